import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlStores, type SqlStores } from '../../src/composition/open-sql-stores.ts';
import { TaskEvents } from '../../src/domain/task-events.ts';
import { startRetentionSweeper } from '../../src/engine/retention-sweeper.ts';
import { FileService } from '../../src/engine/file-service.ts';
import { LocalDiskBlobStore } from '../../src/blobs/local-disk-blob-store.ts';
import { createLogger } from '../../src/logging.ts';
import { forEachDatabase } from '../support/databases.ts';

// Files with an expiry (a video kept for `storage_options.expires_after`, docs/storage.md) are not
// found once it passes, and the retention sweeper deletes their bytes and rows; files without one stay.
forEachDatabase('file expiry', (database) => {
  let stores: SqlStores;
  let dir: string;
  let accountId: string;
  before(async () => {
    stores = await openSqlStores(database.location, { events: new TaskEvents(), logger: createLogger('silent') });
    dir = await mkdtemp(join(tmpdir(), 'vidgen-file-expiry-'));
    accountId = (await stores.accounts.ensureAccount('files', null, Date.now())).id;
  });
  after(async () => {
    await stores?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('hides an expired file at once and sweeps its bytes and row', async () => {
    const blobs = new LocalDiskBlobStore(dir);
    let now = 1_000_000;
    const clock = () => now;
    const service = new FileService({
      files: stores.files,
      blobs,
      clock,
      checkImage: async () => ({ mimeType: 'image/png' }),
      checkVideo: async () => ({ mimeType: 'video/mp4' }),
    });
    const file = (id: string, expiresAt: number | null) => ({
      id,
      accountId,
      filename: `${id}.mp4`,
      bytes: 3,
      mimeType: 'video/mp4',
      purpose: 'video_output',
      blobKey: `files/${id}`,
      createdAt: now,
      expiresAt,
    });
    for (const [id, expiresAt] of [
      ['file-soon', now + 1000],
      ['file-later', now + 60_000],
      ['file-kept', null],
    ] as const) {
      await blobs.putBuffer(`files/${id}`, Buffer.from('abc'));
      await stores.files.insert(file(id, expiresAt));
    }
    const sweeper = startRetentionSweeper({
      tasks: stores.tasks,
      blobs,
      files: stores.files,
      intervalMs: 3_600_000,
      logger: createLogger('silent'),
      clock,
    });
    try {
      assert.equal(await sweeper.sweep(), 0);
      now += 2000;
      await assert.rejects(service.get(accountId, 'file-soon'), { code: 'file_not_found' });
      assert.equal((await service.get(accountId, 'file-later')).expiresAt, 1_060_000);
      assert.equal(await sweeper.sweep(), 1);
      assert.equal(await stores.files.get('file-soon'), undefined);
      assert.equal(await blobs.stat('files/file-soon'), undefined);
      assert.ok(await blobs.stat('files/file-later'));
      now += 10 * 365 * 86_400_000;
      assert.equal(await sweeper.sweep(), 1);
      assert.equal((await service.get(accountId, 'file-kept')).expiresAt, null, 'no expiry, never swept');
    } finally {
      sweeper.stop();
    }
  });
});
