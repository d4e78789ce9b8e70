import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { APIConnectionError, FileJournal, NodeVidgenClient } from '../../packages/client/src/node/index.ts';
import { startTestService, type TestService } from './support/service.ts';

// One journal directory serves every server and key a user has; resume only chases its own.
describe('journal entries belong to a server and a key', () => {
  let svc: TestService;
  let dir: string;
  before(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-scope-'));
  });
  after(async () => {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('resume leaves another key’s entries alone, and their owner finishes them', async () => {
    const journalDir = join(dir, 'shared');
    const [alice, bob] = [await svc.createKey('alice'), await svc.createKey('bob')];
    const asAlice = new NodeVidgenClient({ baseURL: svc.url, apiKey: alice, journalDir });
    const output = join(dir, 'alice.mp4');
    await asAlice.videoGenerations.create({ model: 'video-v1-5s', prompt: 'fog over a lake' }, { downloadTo: output });
    const raw = await Promise.all((await readdir(journalDir)).map((n) => readFile(join(journalDir, n), 'utf8')));
    assert.ok(
      raw.every((text) => !text.includes(alice)),
      'the key itself is never written',
    );
    const [entry] = await new FileJournal(journalDir).list();
    assert.equal(entry.server, svc.url);
    assert.match(entry.account ?? '', /^key:[0-9a-f]{16}$/);

    const byBob = await new NodeVidgenClient({ baseURL: svc.url, apiKey: bob, journalDir }).resume();
    assert.deepEqual(
      byBob.map((r) => r.outcome),
      ['elsewhere'],
    );
    const elsewhere = await new NodeVidgenClient({
      baseURL: `${svc.url}/v1`,
      apiKey: alice,
      journalDir,
    }).journalEntries();
    assert.equal(elsewhere.length, 1, 'a base URL ending in /v1 is the same server');

    const byAlice = await asAlice.resume({ intervalMs: 250 });
    assert.deepEqual(
      byAlice.map((r) => r.outcome),
      ['downloaded'],
    );
    assert.equal((await readFile(output)).subarray(4, 8).toString('latin1'), 'ftyp');
  });

  it('reports a server that cannot be reached at once instead of waiting on it', async () => {
    const journalDir = join(dir, 'down');
    const port = await freePort();
    const down = new NodeVidgenClient({ baseURL: `http://127.0.0.1:${port}`, apiKey: 'k', journalDir, maxRetries: 0 });
    const scope = await down.journalScope();
    const now = Date.now();
    await new FileJournal(journalDir).record({
      idempotencyKey: 'k1',
      family: 'B',
      kind: 'generate',
      path: '/v1/video/generations',
      model: 'video-v1-5s',
      fingerprint: 'sha256:00',
      submittedAt: now,
      updatedAt: now,
      state: 'submitted',
      taskId: 't1',
      ...scope,
    });
    const results = await down.resume();
    assert.deepEqual(
      results.map((r) => r.outcome),
      ['error'],
    );
    assert.ok(results[0].error instanceof APIConnectionError);
    assert.equal((await new FileJournal(journalDir).get('k1'))?.state, 'submitted', 'kept for a later resume');
  });
});

/** A port nothing listens on: bound, read, released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
