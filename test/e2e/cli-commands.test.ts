import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { runCommand, type CommandResult } from './support/process.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestService, type TestService } from './support/service.ts';
import { makeImage } from './support/images.ts';

const VIDGEN_BIN = fileURLToPath(new URL('../../packages/client/bin/vidgen.mjs', import.meta.url));

// The commands around generate: login profiles, cancel, edit and extend, listing, and the messages
// a person gets when the server is down or a file is missing.
describe('vidgen commands', () => {
  let svc: TestService;
  let dir: string;
  let key: string;
  let base: Record<string, string>;
  before(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-cmds-'));
    key = await svc.createKey('cmds');
    // No VIDGEN_* from the developer's shell, and a profile path of the test's own.
    base = {
      VIDGEN_BASE_URL: '',
      VIDGEN_API_KEY: '',
      VIDGEN_PROFILE: join(dir, 'profile.json'),
      VIDGEN_JOURNAL_DIR: join(dir, 'journal'),
    };
  });
  after(async () => {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });
  const vidgen = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
    run(args, { ...base, VIDGEN_BASE_URL: svc.url, VIDGEN_API_KEY: key, ...env }, stdin);
  const isMp4 = async (path: string) => (await readFile(path)).subarray(4, 8).toString('latin1') === 'ftyp';

  it('logs in with a key from standard input into a 0600 profile; the environment still wins', async () => {
    const refused = await run(['login', '--base-url', svc.url], base, 'vg-not-a-key\n');
    assert.equal(refused.code, 3, refused.stderr);
    await assert.rejects(stat(base.VIDGEN_PROFILE), 'nothing saved for a refused key');
    const login = await run(['login', '--base-url', svc.url], base, `${key}\n`);
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stdout, new RegExp(`Logged in to ${svc.url} \\(key:[0-9a-f]{16}, \\d+ models\\)`));
    assert.equal((await stat(base.VIDGEN_PROFILE)).mode & 0o777, 0o600);
    assert.ok(!login.stdout.includes(key) && !login.stderr.includes(key), 'the key is never printed');
    const models = await run(['models'], base);
    assert.equal(models.code, 0, models.stderr);
    assert.match(models.stdout, /video-v1-5s/);
    assert.equal((await run(['models'], { ...base, VIDGEN_API_KEY: 'vg-wrong' })).code, 3, 'env wins over the profile');
    const elsewhere = await run(['models'], { ...base, VIDGEN_BASE_URL: 'http://127.0.0.1:9' });
    assert.doesNotMatch(elsewhere.stderr, /401/, 'the profile key is not sent to another server');
    assert.equal((await run(['logout'], base)).code, 0);
    await assert.rejects(stat(base.VIDGEN_PROFILE));
  });

  it('names the server when it cannot be reached and the file when it is missing', async () => {
    const down = await vidgen(['models'], { VIDGEN_BASE_URL: 'http://127.0.0.1:9' });
    assert.equal(down.code, 1);
    assert.match(down.stderr, /cannot reach the vidgen server at http:\/\/127\.0\.0\.1:9/);
    const missing = join(dir, 'missing.png');
    const noFile = await vidgen(['generate', '-m', 'video-v1-5s', '-p', 'p', '-i', missing, '-o', join(dir, 'x.mp4')]);
    assert.equal(noFile.code, 1);
    assert.equal(noFile.stderr.trim(), `vidgen: no such file: ${missing}`);
  });

  it('helps with versions, per-command flags and typos', async () => {
    assert.match((await vidgen(['--version'])).stdout, /^vidgen \d+\.\d+\.\d+\n$/);
    assert.match((await vidgen(['extend', '--help'])).stdout, /--duration <s>\s+seconds to add/);
    const typo = await vidgen(['cancle', 'x']);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /Did you mean 'cancel'\?/);
  });

  it('cancels a running task and lists N rows in all with --limit N', async () => {
    // An image URL that never answers keeps the task running until it is canceled.
    const stall = createServer(() => undefined);
    await new Promise<void>((r) => stall.listen(0, '127.0.0.1', r));
    try {
      const image = `http://127.0.0.1:${(stall.address() as AddressInfo).port}/photo.png`;
      const { id } = JSON.parse(
        (await vidgen(['submit', '-m', 'video-v1-5s', '-p', 'p', '-i', image, '--json'])).stdout,
      );
      const canceled = await vidgen(['cancel', id]);
      assert.equal(canceled.code, 0, canceled.stderr);
      assert.equal(canceled.stdout.trim(), `${id}: FAILURE (canceled)`);
    } finally {
      stall.closeAllConnections();
      stall.close();
    }
    const frame = join(dir, 'frame.png');
    await writeFile(frame, await makeImage(320, 240, 'png'));
    assert.equal(
      (await vidgen(['submit', '-m', 'vx-imagine-video-1.5-720p', '-p', 'p', '-i', frame, '-d', '1'])).code,
      0,
    );
    assert.equal((await vidgen(['submit', '-m', 'video-v1-5s', '-p', 'q'])).code, 0);
    const rows = JSON.parse((await vidgen(['tasks', '--limit', '2', '--json'])).stdout);
    assert.equal(rows.length, 2);
    assert.deepEqual(
      new Set(rows.map((r: { family: string }) => r.family)),
      new Set(['A', 'B']),
      'the newest of both families',
    );
  });

  it('edits and extends a finished video', async () => {
    const frame = join(dir, 'first.png');
    await writeFile(frame, await makeImage(320, 240, 'png'));
    const made = await vidgen([
      'generate',
      '-m',
      'vx-imagine-video-1.5-720p',
      '-p',
      'a boat',
      '-i',
      frame,
      '-d',
      '1',
      '-o',
      join(dir, 'a.mp4'),
      '--json',
    ]);
    assert.equal(made.code, 0, made.stderr);
    const { id } = JSON.parse(made.stdout);
    const edited = await vidgen([
      'edit',
      '-m',
      'vx-imagine-video-edit',
      '-p',
      'make it black and white',
      '--video',
      id,
      '-o',
      join(dir, 'edited.mp4'),
    ]);
    assert.equal(edited.code, 0, edited.stderr);
    assert.ok(await isMp4(join(dir, 'edited.mp4')));
    const extended = await vidgen([
      'extend',
      '-m',
      'vx-imagine-video-extend',
      '-p',
      'sails on',
      '--video',
      join(dir, 'a.mp4'),
      '-d',
      '1',
      '-o',
      join(dir, 'longer.mp4'),
    ]);
    assert.equal(extended.code, 0, extended.stderr);
    assert.ok(await isMp4(join(dir, 'longer.mp4')));
    const wrong = await vidgen([
      'extend',
      '-m',
      'vx-imagine-video-edit',
      '-p',
      'x',
      '--video',
      id,
      '-d',
      '1',
      '-o',
      join(dir, 'no.mp4'),
    ]);
    assert.equal(wrong.code, 2);
    assert.match(
      wrong.stderr,
      /does not offer extensions \(models that do: vx-imagine-video-extend, grok-imagine-video\)/,
    );
  });
});

function run(args: string[], env: Record<string, string>, stdin?: string): Promise<CommandResult> {
  // stdin is always given (empty by default): the CLI must not wait on a terminal that is not there.
  return runCommand(process.execPath, [VIDGEN_BIN, ...args], { env, stdin: stdin ?? '' });
}
