import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileJournal, needsResume, type JournalEntry } from '../src/node/index.ts';

const entry = (key: string, over: Partial<JournalEntry> = {}): JournalEntry => ({
  idempotencyKey: key,
  family: 'B',
  kind: 'generate',
  path: '/v1/video/generations',
  model: 'video-v1-5s',
  fingerprint: 'sha256:00',
  submittedAt: Date.now(),
  updatedAt: Date.now(),
  state: 'submitting',
  body: { model: 'video-v1-5s', prompt: 'p' },
  ...over,
});

describe('FileJournal', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-journal-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('records, updates, lists oldest first and removes', async () => {
    const journal = new FileJournal(join(dir, 'basic'));
    assert.deepEqual(await journal.list(), [], 'a missing directory is an empty journal');
    await journal.record(entry('k2', { submittedAt: 2 }));
    await journal.record(entry('k1', { submittedAt: 1 }));
    const updated = await journal.update('k1', { state: 'submitted', taskId: 't1', status: undefined });
    assert.equal(updated?.taskId, 't1');
    assert.deepEqual(
      (await journal.list()).map((e) => e.idempotencyKey),
      ['k1', 'k2'],
    );
    assert.equal((await journal.get('k1'))?.state, 'submitted');
    assert.equal(await journal.update('nope', { state: 'failed' }), undefined);
    await journal.remove('k2');
    assert.deepEqual(
      (await journal.list()).map((e) => e.idempotencyKey),
      ['k1'],
    );
  });

  it('keeps odd keys inside the directory', async () => {
    const journal = new FileJournal(join(dir, 'odd'));
    await journal.record(entry('../../escape key'));
    const names = await readdir(journal.dir);
    assert.equal(names.length, 1);
    assert.match(names[0], /^k-[0-9a-f]{64}\.json$/);
    assert.equal((await journal.get('../../escape key'))?.idempotencyKey, '../../escape key');
  });

  it('ignores the temp file a crash left behind', async () => {
    const journal = new FileJournal(join(dir, 'crash'));
    await journal.record(entry('k1'));
    await writeFile(join(journal.dir, '.k1.json.5f0c.tmp'), '{"idempotencyKey":"k1","sta');
    assert.deepEqual(
      (await journal.list()).map((e) => e.idempotencyKey),
      ['k1'],
    );
    assert.equal((await journal.get('k1'))?.state, 'submitting');
  });

  it('never shows a reader a half-written entry, and leaves no temp files', async () => {
    const journal = new FileJournal(join(dir, 'atomic'));
    const big = 'x'.repeat(200_000);
    await journal.record(entry('k1', { body: { prompt: big } }));
    let reading = true;
    const reader = (async () => {
      let reads = 0;
      while (reading) {
        const text = await readFile(join(journal.dir, 'k1.json'), 'utf8');
        JSON.parse(text);
        reads++;
      }
      return reads;
    })();
    for (let i = 0; i < 40; i++) await journal.update('k1', { progress: i, body: { prompt: `${big}${i}` } });
    reading = false;
    assert.ok((await reader) > 0);
    assert.equal((await journal.get('k1'))?.progress, 39);
    assert.deepEqual(await readdir(journal.dir), ['k1.json']);
  });

  it('knows which entries still need a resume', () => {
    assert.equal(needsResume(entry('a', { state: 'submitting' })), true);
    assert.equal(needsResume(entry('a', { state: 'submitted', taskId: 't' })), true);
    assert.equal(needsResume(entry('a', { state: 'unknown' })), true);
    assert.equal(needsResume(entry('a', { state: 'succeeded' })), false, 'nothing to download to');
    assert.equal(needsResume(entry('a', { state: 'succeeded', downloadTo: '/tmp/x.mp4' })), true);
    for (const state of ['failed', 'expired', 'rejected', 'downloaded'] as const)
      assert.equal(needsResume(entry('a', { state })), false);
  });
});
