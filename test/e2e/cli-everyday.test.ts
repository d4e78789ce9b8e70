import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { spawnInGroup } from './support/process-groups.ts';
import { collectOutput } from './support/process.ts';
import { startTestService, type TestService } from './support/service.ts';
import { startEconomicsService, type EconomicsService } from './support/economics.ts';
import { gatedImageServer } from './support/gated-image.ts';

const VIDGEN_BIN = fileURLToPath(new URL('../../packages/client/bin/vidgen.mjs', import.meta.url));
const isMp4 = async (path: string) => (await readFile(path)).subarray(4, 8).toString('latin1') === 'ftyp';

/**
 * What a person reads and gets from the `vidgen` CLI day to day: refusals that name the way out, a
 * queued task's place, tables with headers, prices, and a file named after the task when no
 * --output is given. One render slot, so a task held on its image keeps the others queued.
 */
describe('vidgen CLI, everyday use', () => {
  let svc: TestService;
  let dir: string;
  let env: Record<string, string>;
  const image = gatedImageServer();
  before(async () => {
    svc = await startTestService({ VIDGEN_WORKER_CONCURRENCY: '1', VIDGEN_FETCH_TIMEOUT_MS: '120000' });
    await image.start();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-cli-everyday-'));
    env = {
      VIDGEN_BASE_URL: svc.url,
      VIDGEN_API_KEY: await svc.createKey('everyday'),
      VIDGEN_JOURNAL_DIR: join(dir, 'journal'),
    };
  });
  after(async () => {
    image.release();
    await image.close();
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });
  const spawn = (args: string[], cwd = dir) =>
    spawnInGroup(process.execPath, [VIDGEN_BIN, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const vidgen = (args: string[], cwd = dir) => collectOutput(spawn(args, cwd));

  it('refuses a --duration the model does not render, naming the models that do (or saying none does)', async () => {
    const seven = await vidgen(['generate', '--model', 'video-v1-5s', '--prompt', 'p', '--duration', '7']);
    assert.equal(seven.code, 2, seven.stderr);
    assert.match(seven.stderr, /model 'video-v1-5s' renders 5 s, not 7 s\. Models that render 7 s: /);
    const named = /Models that render 7 s: (.*)\.$/m.exec(seven.stderr)![1].split(', ');
    assert.ok(named.includes('grok-imagine-video'), seven.stderr);
    assert.ok(named.includes('vx-imagine-video-1.5-720p (needs an image)'), seven.stderr);
    assert.ok(!named.some((m) => m.startsWith('video-v1-')), 'family B models render 5, 10 or 15 s');
    assert.ok(!named.some((m) => m.startsWith('sora-')), 'the CLI does not submit to the OpenAI dialect');
    const none = await vidgen(['generate', '--model', 'grok-imagine-video', '--prompt', 'p', '--duration', '16']);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /renders 1-15 s, not 16 s\. No model available to this key renders 16 s\.$/m);
    const tasks = await vidgen(['tasks', '--json']);
    assert.deepEqual(JSON.parse(tasks.stdout), [], 'nothing was submitted');
  });

  it('shows a queued task by its place in the queue, then saves it as <task id>.mp4 where it was started', async () => {
    // A task whose image the test holds back waits in the fetch stage, not in the one render slot; a
    // second task takes the slot, and this one queues behind it.
    const blocker = await vidgen(['submit', '--model', 'video-v1-5s', '--prompt', 'held', '--image', image.url]);
    assert.equal(blocker.code, 0, blocker.stderr);
    await until(() => image.requested);
    const ahead = await vidgen(['submit', '--model', 'video-v1-5s', '--prompt', 'ahead']);
    assert.equal(ahead.code, 0, ahead.stderr);
    const here = join(dir, 'here');
    await mkdir(here);
    const child = spawn(
      ['generate', '--model', 'video-v1-5s', '--prompt', 'mine', '--long-poll', '0', '--interval', '0.3'],
      here,
    );
    const result = collectOutput(child);
    const lines: string[] = [];
    // The first answer about the task, while it cannot have left the queue: the slot is held.
    const queuedLine = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        lines.push(line);
        if (/^task \S+: /.test(line)) resolve(line);
      });
      child.once('exit', (code) => reject(new Error(`vidgen exited (${code}) before polling:\n${lines.join('\n')}`)));
    });
    image.release();
    const r = await result;
    assert.equal(r.code, 0, r.stderr);
    const id = /^submitted (\S+) /m.exec(r.stderr)![1];
    // Next in line once the second task is rendering; one ahead if its claim has not happened yet.
    assert.match(queuedLine, new RegExp(`^task ${id}: queued, (next in line|1 task ahead)$`));
    assert.equal(r.stdout.trim(), join(here, `${id}.mp4`));
    assert.deepEqual(await readdir(here), [`${id}.mp4`]);
    assert.ok(await isMp4(join(here, `${id}.mp4`)));
    assert.doesNotMatch(r.stderr, /\?%|waiting \d/);
  });

  it('lists tasks under a header, each column lined up', async () => {
    const r = await vidgen(['tasks']);
    assert.equal(r.code, 0, r.stderr);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    assert.match(header, /^ID {2,}FAMILY {2}STATUS {2,}MODEL {2,}CREATED$/);
    assert.equal(rows.length, 3, r.stdout);
    for (const column of ['FAMILY', 'STATUS', 'MODEL', 'CREATED']) {
      const at = header.indexOf(column);
      for (const row of rows) assert.match(row.slice(at - 2), /^ {2}\S/, `${column} starts at ${at} in: ${row}`);
    }
    assert.ok(
      rows.every((row) => / B {7}SUCCESS {2}video-v1-5s {2}\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(row)),
      r.stdout,
    );
  });

  it('resume saves a default-named video in the directory generate was started in', async () => {
    const there = join(dir, 'there');
    await mkdir(there);
    const child = spawn(['generate', '--model', 'video-v1-5s', '--prompt', 'harbour', '--interval', '0.3'], there);
    // The first progress line means the submit is journaled and the CLI is polling.
    const id = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        const polled = /^task (\S+): /.exec(line);
        if (polled) resolve(polled[1]);
      });
      child.once('exit', (code) => reject(new Error(`vidgen exited (${code}) before waiting`)));
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const resumed = await vidgen(['resume', '--interval', '0.3']);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, new RegExp(`^${id}: downloaded → ${literal(join(there, `${id}.mp4`))}$`, 'm'));
    assert.ok(await isMp4(join(there, `${id}.mp4`)));
  });

  it('lists what each model offers and what it costs', async () => {
    const r = await vidgen(['models']);
    assert.equal(r.code, 0, r.stderr);
    const [header, ...rows] = r.stdout.trimEnd().split('\n');
    assert.match(header, /^MODEL {2,}FAMILY {2}SECONDS {2,}OFFERS {2,}SOUND {2,}PRICE {2,}RATIOS$/);
    const row = (id: string) => rows.find((line) => line.startsWith(`${id} `)) ?? assert.fail(`no row for ${id}`);
    assert.match(
      row('grok-imagine-video'),
      / A {7}1-15 +generate, edit, extend +optional \(off\) +\$0\.05\/s, 1080p \$0\.10\/s +16:9 /,
    );
    assert.match(row('vx-imagine-video-edit'), / edit +\S.* +\$0\.10\/s /);
    assert.match(row('vx-imagine-video-extend'), / extend +\S.* +\$0\.10\/s /);
    assert.match(row('vx-imagine-video-1.5-720p'), / generate \(needs an image\) +\S.* +\$0\.05\/s /);
    assert.match(row('video-v1-10s'), / B {7}10 +generate +\S.* +\$0\.05\/s /);
    // This key's account has no credit: the prices are listed, and the CLI says they are not charged.
    assert.match(r.stderr, /not metered/);
  });
});

describe('vidgen models for an account in a price group', () => {
  let svc: EconomicsService;
  before(async () => {
    svc = await startEconomicsService();
  });
  after(async () => {
    await svc?.close();
  });

  it('shows the prices this account pays, not the catalog’s', async () => {
    const group = await svc.admin.call('PUT', '/admin/v1/price-groups/half', { ratio: 0.5, models: { 'tiny-1s': 7 } });
    assert.equal(group.status, 200, JSON.stringify(group.body));
    const key = await svc.account('reseller', { credits_usd_ticks: 10_000_000_000, price_group: 'half' });
    const listPrice = await svc.account('list-price', { credits_usd_ticks: 10_000_000_000 });
    const models = (apiKey: string) =>
      collectOutput(
        spawnInGroup(process.execPath, [VIDGEN_BIN, 'models', '--no-journal'], {
          env: { ...process.env, VIDGEN_BASE_URL: svc.url, VIDGEN_API_KEY: apiKey },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
    const half = await models(key);
    assert.equal(half.code, 0, half.stderr);
    assert.match(half.stdout, /^tiny-5s +B +5 +generate +none +\$0\.05\/s +16:9$/m, 'the group’s ratio: half of $0.10');
    assert.match(half.stdout, /^tiny-1s +B +1 +generate +none +\$0\.0000000007\/s +16:9$/m, 'the group’s own price');
    assert.doesNotMatch(half.stderr, /not metered/);
    const full = await models(listPrice);
    assert.match(full.stdout, /^tiny-5s +B +5 +generate +none +\$0\.10\/s +16:9$/m);
  });
});

/** Waits for a condition the test cannot be told about (another process's request), looking every 20 ms. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 20));
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
