import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnInGroup } from './support/process-groups.ts';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestService, type TestService } from './support/service.ts';
import { gatedImageServer } from './support/gated-image.ts';

const VIDGEN_BIN = fileURLToPath(new URL('../../packages/client/bin/vidgen.mjs', import.meta.url));

/**
 * `vidgen generate` on a real terminal (a pseudo-terminal from util-linux `script`). The task's
 * image is held back by the test, so the task keeps running for as long as the test needs: no
 * timing assumption, the test releases it once it has seen what it checks.
 */
describe('vidgen generate on a terminal', () => {
  let svc: TestService;
  let dir: string;
  const image = gatedImageServer();
  before(async () => {
    svc = await startTestService({ VIDGEN_FETCH_TIMEOUT_MS: '120000' });
    await image.start();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-tty-'));
  });
  after(async () => {
    image.release();
    await image.close();
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the progress line moving while the task runs, long-polling throughout, then shows the download', async () => {
    const output = join(dir, 'tty.mp4');
    const args = [
      process.execPath,
      VIDGEN_BIN,
      'generate',
      '--model',
      'video-v1-5s',
      '--prompt',
      'harbour at dawn',
      '--image',
      image.url,
      '--output',
      output,
      '--long-poll',
      '2',
    ];
    const env = {
      ...process.env,
      VIDGEN_BASE_URL: svc.url,
      VIDGEN_API_KEY: await svc.createKey('tty'),
      VIDGEN_JOURNAL_DIR: join(dir, 'journal'),
    };
    const child = spawnInGroup('script', ['-qfec', args.map(shellQuote).join(' '), '/dev/null'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let screen = '';
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    const taskLines = () => screen.split(/[\r\n]/).filter((l) => /\[[█░]+\] \S+% /.test(l));
    const seconds = () => new Set(taskLines().map((l) => / (\d+)s( ·|$)/.exec(l)?.[1]));
    const answered = () => taskLines().filter((l) => / (queued|IN_PROGRESS) /.test(l));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        screen += d;
        // Three clock readings and answers to held polls (2 s each, short so the test is quick),
        // all while the task cannot have finished: the line redraws by itself.
        if (seconds().size >= 3 && answered().length >= 2) resolve();
      });
      void exited.then((code) => reject(new Error(`vidgen exited (${code}) early:\n${screen}`)));
    });
    assert.ok(image.requested, 'the task is running: the server is fetching its image');
    image.release();
    const code = await exited;
    assert.equal(code, 0, screen);
    // Every redraw after the server's first answer shows the CLI still long-polling.
    const notLive = answered().filter((l) => !l.endsWith(' · live'));
    assert.deepEqual(notLive, [], 'long-polling on every redraw');
    assert.doesNotMatch(screen, /next check in/);
    assert.match(screen, /downloading /);
    assert.match(screen, /saved \d+ bytes to /);
    assert.equal((await readFile(output)).subarray(4, 8).toString('latin1'), 'ftyp');
  });

  it('vidgen login reads the key at a terminal without echoing it', async () => {
    const key = await svc.createKey('tty-login');
    const env = { ...process.env, VIDGEN_BASE_URL: svc.url, VIDGEN_API_KEY: '', VIDGEN_PROFILE: join(dir, 'p.json') };
    const child = spawnInGroup(
      'script',
      ['-qfec', `${shellQuote(process.execPath)} ${shellQuote(VIDGEN_BIN)} login`, '/dev/null'],
      {
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let screen = '';
    const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        screen += d;
        if (screen.includes('API key')) resolve();
      });
      void exited.then((code) => reject(new Error(`vidgen exited (${code}) before asking:\n${screen}`)));
    });
    // Typed into the terminal as a person would; a terminal with echo on would show each character.
    child.stdin!.write(`${key}\r`);
    const code = await exited;
    assert.equal(code, 0, screen);
    assert.match(screen, /Logged in to /);
    assert.ok(!screen.includes(key), `the key was echoed:\n${screen}`);
    assert.equal(JSON.parse(await readFile(join(dir, 'p.json'), 'utf8')).apiKey, key);
  });
});

function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
