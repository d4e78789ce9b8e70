import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startTestService, type TestService } from './support/service.ts';
import { api } from './support/http.ts';

/** The README's own `json` and `wait_for`, as a reader pastes them. */
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const definitions = /^json\(\) \{.*$\n(?:#.*\n)*wait_for\(\) \{\n[\s\S]*?^\}$/m.exec(readme)?.[0];

/** Runs `wait_for <path>` in bash, as the tour does (the server answers in this process meanwhile). */
function waitFor(base: string, key: string, path: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('bash', ['-c', `${definitions}\nwait_for "$1"`, 'bash', path], {
    env: { ...process.env, BASE: base, KEY: key },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stderr })));
}

// The README tour's wait loop ends on a mistake instead of polling forever: a typo in the key, an id
// that is not one, no server, a failed task; and it ends quietly when the task is done.
describe("the README's wait loop", () => {
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('readme');
  });
  after(() => svc?.close());

  it('is in the README', () => assert.ok(definitions, 'json() and wait_for() are defined in one block'));

  it('returns when the task is done, and stops with a reason on a wrong key, no server or a failed task', async () => {
    const client = api(svc.url, key);
    const done = await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'a boat on a lake' });
    assert.equal((await waitFor(svc.url, key, `/v1/video/generations/${done.body.task_id}`)).code, 0);

    const typo = await waitFor(svc.url, `${key}x`, `/v1/video/generations/${done.body.task_id}`);
    assert.equal(typo.code, 1);
    assert.match(typo.stderr, /^stopped: .*API key/m);
    // What the tour's `json .task_id` gives when the submit itself was refused.
    const undefinedId = await waitFor(svc.url, key, '/v1/video/generations/undefined');
    assert.equal(undefinedId.code, 1);
    assert.match(undefinedId.stderr, /^stopped: No task found/m);
    const noServer = await waitFor('http://127.0.0.1:9', key, '/v1/video/generations/x');
    assert.equal(noServer.code, 1);
    assert.match(noServer.stderr, /is the server running\?/);

    const failed = await client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: 'never' });
    await client.post(`/v1/videos/${failed.body.task_id}/cancel`);
    const canceled = await waitFor(svc.url, key, `/v1/video/generations/${failed.body.task_id}`);
    assert.equal(canceled.code, 1);
    assert.match(canceled.stderr, /^stopped: /m);
  });
});
