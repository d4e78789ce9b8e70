import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawnInGroup } from './support/process-groups.ts';
import { collectOutput } from './support/process.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/service.ts';
import { makeImage, startImageServer } from './support/images.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';

const { ffprobe } = resolveFfmpegBinaries({});

const VIDGEN_BIN = fileURLToPath(new URL('../../packages/client/bin/vidgen.mjs', import.meta.url));

// The `vidgen` CLI as a user runs it: its own process, config from the environment, exit codes.
describe('vidgen CLI', () => {
  let svc: TestService;
  let images: Awaited<ReturnType<typeof startImageServer>>;
  let dir: string;
  let env: Record<string, string>;
  before(async () => {
    svc = await startTestService();
    images = await startImageServer();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-cli-'));
    env = {
      VIDGEN_BASE_URL: svc.url,
      VIDGEN_API_KEY: await svc.createKey('cli'),
      VIDGEN_JOURNAL_DIR: join(dir, 'journal'),
    };
  });
  after(async () => {
    await svc.close();
    await images.close();
    await rm(dir, { recursive: true, force: true });
  });
  const vidgen = (args: string[], extraEnv: Record<string, string> = {}) =>
    collectOutput(spawnVidgen(args, { ...env, ...extraEnv }));
  const isMp4 = async (path: string) => (await readFile(path)).subarray(4, 8).toString('latin1') === 'ftyp';

  it('lists models as JSON', async () => {
    const r = await vidgen(['models', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const models = JSON.parse(r.stdout);
    assert.ok(models.some((m: { id: string; family: string }) => m.id === 'video-v1-5s' && m.family === 'B'));
  });

  it("shows each model's sound and asks for it with --audio", async () => {
    const table = await vidgen(['models']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^MODEL\s+FAMILY\s+SECONDS\s+OFFERS\s+SOUND\s+PRICE/m);
    assert.match(table.stdout, /^video-v1-5s\s.*\soptional \(off\)\s/m);
    const output = join(dir, 'sound.mp4');
    const r = await vidgen(['generate', '-m', 'video-v1-5s', '-p', 'sunset over the ocean', '--audio', '-o', output]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok((await probeVideo(ffprobe, output)).audio, 'the video has a sound track');
  });

  it('generates a family B video end to end from a local image, with plain progress lines off a terminal', async () => {
    const output = join(dir, 'b.mp4');
    const photo = join(dir, 'photo.jpg');
    await writeFile(photo, await makeImage(300, 400, 'jpeg'));
    const r = await vidgen([
      'generate',
      '--model',
      'video-v1-5s',
      '--prompt',
      'sunset over the ocean',
      '--image',
      photo,
      '--ratio',
      '1:1',
      '--output',
      output,
      '--interval',
      '0.3',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), output);
    assert.ok(await isMp4(output));
    assert.match(r.stderr, /^submitted \S+ \(family B, model video-v1-5s\)$/m);
    assert.match(r.stderr, /^task \S+: SUCCESS 100%$/m);
    assert.doesNotMatch(r.stderr, /\r/);
  });

  it('generates family A from a local image (uploaded) and reports JSON', async () => {
    const frame = join(dir, 'frame.png');
    await writeFile(frame, await makeImage(400, 300, 'png'));
    const output = join(dir, 'out', 'a.mp4');
    const r = await vidgen([
      'generate',
      '-m',
      'vx-imagine-video-1.5-720p',
      '-p',
      'slow zoom in',
      '--image',
      frame,
      '--duration',
      '1',
      '-o',
      output,
      '--interval',
      '0.3',
      '--json',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout);
    assert.equal(result.family, 'A');
    assert.equal(result.status, 'done');
    assert.equal(result.output, output);
    assert.ok(await isMp4(output));
    const status = await vidgen(['status', result.id]);
    assert.match(status.stdout, new RegExp(`^${result.id}: done 100%`));
  });

  it('exits with the documented codes', async () => {
    const out = join(dir, 'never.mp4');
    const base = ['generate', '--prompt', 'p', '--output', out, '--interval', '0.3'];
    assert.equal((await vidgen(['frobnicate'])).code, 1);
    assert.equal((await vidgen(['generate', '--prompt', 'p', '--output', out])).code, 1, 'missing --model');
    assert.equal((await vidgen([...base, '--model', 'no-such-model'])).code, 2);
    assert.equal((await vidgen([...base, '--model', 'video-v1-5s', '--ratio', '4:3'])).code, 2);
    assert.equal((await vidgen([...base, '--model', 'video-v1-5s'], { VIDGEN_API_KEY: 'wrong' })).code, 3);
    const failed = await vidgen([...base, '--model', 'video-v1-5s', '--image', `${images.url}/missing.png`]);
    assert.equal(failed.code, 4, failed.stderr);
    assert.match(failed.stderr, /image_unreachable/);
    const timedOut = await vidgen([...base, '--model', 'video-v1-5s', '--max-wait', '0.2', '--json']);
    assert.equal(timedOut.code, 5, timedOut.stderr);
    const { task_id } = JSON.parse(timedOut.stdout).error;
    assert.match(timedOut.stderr, new RegExp(`vidgen wait ${task_id}`));
    await assert.rejects(access(out), 'nothing at --output');
    const waited = await vidgen(['wait', task_id, '--output', out, '--interval', '0.3']);
    assert.equal(waited.code, 0, waited.stderr);
    assert.ok(await isMp4(out));
    assert.equal((await vidgen(['download', 'no-such-task', '--output', join(dir, 'x.mp4'), '--family', 'B'])).code, 2);
  });

  it('stops waiting on Ctrl-C with exit 130 and a pointer to `vidgen resume`', async () => {
    // An image URL that never answers keeps the task running until the test cancels it: however late
    // the CLI starts on a busy machine, it finds the task still running.
    const stall = createServer(() => undefined);
    await new Promise<void>((r) => stall.listen(0, '127.0.0.1', r));
    const slowImage = `http://127.0.0.1:${(stall.address() as AddressInfo).port}/photo.png`;
    const ownJournal = { VIDGEN_JOURNAL_DIR: join(dir, 'ctrl-c-journal') };
    const submitted = await vidgen(
      ['submit', '--model', 'video-v1-5s', '--prompt', 'p', '--image', slowImage, '--json'],
      ownJournal,
    );
    const { id } = JSON.parse(submitted.stdout);
    const waiting = spawnVidgen(['wait', id, '--interval', '5', '--long-poll', '0'], { ...env, ...ownJournal });
    const done = collectOutput(waiting);
    await new Promise<void>((resolve) => createInterface({ input: waiting.stderr! }).once('line', () => resolve()));
    waiting.kill('SIGINT');
    const r = await done;
    const canceled = await vidgen(['cancel', id], ownJournal);
    stall.closeAllConnections();
    stall.close();
    assert.equal(r.code, 130, r.stderr);
    // The abort is the CLI's own: the last line says what to do next, and nothing repeats the Ctrl-C back.
    assert.doesNotMatch(r.stderr, /aborted/i);
    assert.match(
      r.stderr,
      new RegExp(
        `\\nInterrupted\\. Task ${id} goes on on the server; \`vidgen resume\` finishes it \\(\`vidgen wait ${id}\`[^\\n]*\\n$`,
      ),
    );
    assert.equal(canceled.code, 0, canceled.stderr);
    const forgot = await vidgen(['forget', id], ownJournal);
    assert.equal(forgot.code, 0, forgot.stderr);
    assert.equal((await vidgen(['resume'], ownJournal)).stdout.trim(), 'nothing to resume');
  });

  it('finishes with `vidgen resume` after being killed while waiting', async () => {
    const output = join(dir, 'killed.mp4');
    const child = spawnVidgen(
      [
        'generate',
        '--model',
        'video-v1-5s',
        '--prompt',
        'city at night, zoom out',
        '--output',
        output,
        '--interval',
        '0.3',
      ],
      env,
    );
    // The first progress line means the submit is journaled and the CLI is polling.
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => /^task \S+: /.test(line) && resolve());
      child.once('exit', (code) => reject(new Error(`vidgen exited (${code}) before waiting`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    await assert.rejects(access(output));
    const resumed = await vidgen(['resume', '--interval', '0.3']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, new RegExp(`downloaded → ${output.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.ok(await isMp4(output));
    const again = await vidgen(['resume']);
    assert.equal(again.stdout.trim(), 'nothing to resume');
    const tasks = JSON.parse((await vidgen(['tasks', '--json', '--family', 'B'])).stdout);
    assert.ok(tasks.length >= 3 && tasks.every((t: { source: string }) => t.source === 'server'));
  });
});

function spawnVidgen(args: string[], env: Record<string, string>): ChildProcess {
  return spawnInGroup(process.execPath, [VIDGEN_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
