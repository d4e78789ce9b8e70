/**
 * scripts/leak-check.mjs, which every test file loads: a child process the file forgot fails the file
 * and is named, while a child that was asked to stop and takes longer than the check's grace to exit
 * (as on a busy machine) is waited for, not reported.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const LEAK_CHECK = resolve('scripts/leak-check.mjs');

async function runFile(source: string) {
  const dir = await mkdtemp(join(tmpdir(), 'vidgen-leak-check-'));
  try {
    const file = join(dir, 'fixture.test.mjs');
    await writeFile(file, source);
    // Without NODE_TEST_CONTEXT, which this runner sets: the nested run would report to it as a child.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    return spawnSync(process.execPath, ['--import', 'tsx', '--import', LEAK_CHECK, '--test', file], {
      encoding: 'utf8',
      env,
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

it('a forgotten child fails the file, named with its pid and command, and is killed', async () => {
  const run = await runFile(`
    import { it } from 'node:test';
    import { spawn } from 'node:child_process';
    it('starts a child and forgets it', () => { spawn('sleep', ['600'], { stdio: 'ignore' }); });
  `);
  assert.notEqual(run.status, 0);
  assert.match(run.stdout, /leaked after all tests and hooks: child process \[still running: \d+ sleep\]/);
});

it('a child asked to stop is waited for, however long past the grace its exit takes', async () => {
  // The child ignores SIGTERM for 6 s, a second past the check's 5 s grace, then exits.
  const run = await runFile(`
    import { it } from 'node:test';
    import { spawn } from 'node:child_process';
    it('stops a slow child without waiting for it', () => {
      const child = spawn(process.execPath, ['-e', "process.on('SIGTERM', () => setTimeout(() => process.exit(0), 6000)); setInterval(() => {}, 1000); process.send?.('ready'); console.log('ready')"], { stdio: ['ignore', 'pipe', 'ignore'] });
      return new Promise((resolve) => child.stdout.once('data', () => { child.kill('SIGTERM'); resolve(); }));
    });
  `);
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
