/**
 * How long after a task finishes its file is on disk: `vidgen generate` against a plain curl
 * loop that long-polls with `?wait=30` and then downloads (the baseline), in the same run, one
 * server process configured as `npm start` is. Each round runs both, one after the other, on the
 * same model; a watcher polling every 50 ms marks when each task finished, so render time does not
 * count, only what each client adds after it. Prints both lags and their difference; aim: CLI
 * within 1 s of curl. A lag can come out slightly negative: the watcher sees the end
 * to within its 50 ms, and a long-polling client may hear of it first.
 *
 *   node --import tsx bench/cli-wait.bench.ts [--rounds 3] [--model video-v1-5s]
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { spawnServer, runServerCommand } from '../test/e2e/support/process.ts';

const VIDGEN_BIN = fileURLToPath(new URL('../packages/client/bin/vidgen.mjs', import.meta.url));
const option = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const rounds = Number(option('rounds', '3'));
const model = option('model', 'video-v1-5s');

// The baseline a user writes by hand: submit, long-poll until SUCCESS, download.
const CURL_SCRIPT = `
set -eu
auth="authorization: Bearer $VIDGEN_API_KEY"
id=$(curl -sf -H "$auth" -H 'content-type: application/json' -d "{\\"model\\":\\"$MODEL\\",\\"prompt\\":\\"bench\\"}" "$VIDGEN_BASE_URL/v1/video/generations" | sed -E 's/.*"task_id":"([^"]+)".*/\\1/')
echo "submitted $id" >&2
while :; do
  answer=$(curl -sf -H "$auth" "$VIDGEN_BASE_URL/v1/video/generations/$id?wait=30")
  case "$answer" in *'"SUCCESS"'*) break ;; *'"FAILURE"'*) exit 1 ;; esac
done
curl -sf -H "$auth" -o "$OUTPUT" "$VIDGEN_BASE_URL/v1/videos/$id/content"
`;

interface Lag {
  /** Milliseconds from the task's end (as the watcher saw it) to the client's exit with the file written. */
  afterDone: number;
  total: number;
}

/** Runs one client; it prints `submitted <id>` on stderr, which starts the watcher. */
async function timed(command: string, args: string[], env: Record<string, string>): Promise<Lag> {
  const started = performance.now();
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  const id = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const m = /^submitted (\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`${command} exited ${code} before submitting`)));
  });
  const doneAt = watch(env.VIDGEN_BASE_URL, env.VIDGEN_API_KEY, id);
  const code = await exited;
  const endedAt = performance.now();
  if (code !== 0) throw new Error(`${command} exited ${code}`);
  return { afterDone: endedAt - (await doneAt), total: endedAt - started };
}

/** Polls every 50 ms without holding: when the task turned SUCCESS, to within 50 ms. */
async function watch(baseURL: string, key: string, id: string): Promise<number> {
  for (;;) {
    const task = (await (
      await fetch(`${baseURL}/v1/video/generations/${id}`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { status: string };
    if (task.status === 'SUCCESS') return performance.now();
    if (task.status === 'FAILURE') throw new Error(`task ${id} failed`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-bench-cli-'));
const env = { VIDGEN_DATA_DIR: dataDir };
const key = (await runServerCommand(['keys', 'create', '--account', 'bench'], env)).stdout.trim();
const server = await spawnServer(env);
try {
  const common = { VIDGEN_BASE_URL: server.url, VIDGEN_API_KEY: key, VIDGEN_JOURNAL_DIR: join(dataDir, 'journal') };
  const rows: { cli: Lag; curl: Lag }[] = [];
  for (let round = 0; round < rounds; round++) {
    const cli = await timed(
      process.execPath,
      [VIDGEN_BIN, 'generate', '--model', model, '--prompt', 'bench', '--output', join(dataDir, `cli-${round}.mp4`)],
      common,
    );
    const curl = await timed('bash', ['-c', CURL_SCRIPT], {
      ...common,
      MODEL: model,
      OUTPUT: join(dataDir, `curl-${round}.mp4`),
    });
    rows.push({ cli, curl });
    console.log(
      `round ${round + 1}: file after done  cli ${cli.afterDone.toFixed(0)} ms  curl ${curl.afterDone.toFixed(0)} ms  (submit to file: cli ${cli.total.toFixed(0)} ms, curl ${curl.total.toFixed(0)} ms)`,
    );
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const cliLag = mean(rows.map((r) => r.cli.afterDone));
  const curlLag = mean(rows.map((r) => r.curl.afterDone));
  console.log(`model ${model}, ${rounds} paired rounds, one server process (embedded default)`);
  console.log(
    `mean file-after-done: cli ${cliLag.toFixed(0)} ms, curl ${curlLag.toFixed(0)} ms; difference cli − curl = ${(cliLag - curlLag).toFixed(0)} ms  (aim ≤ 1000)`,
  );
} finally {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
}
