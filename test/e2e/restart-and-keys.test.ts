import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrapKeyOf, spawnServer, runServerCommand } from './support/process.ts';
import { api, pollUntil } from './support/http.ts';
import { KEY_CACHE_MS } from '../../packages/server/src/api/authenticate.ts';
import { taskBlobFiles } from './support/blob-files.ts';

describe('operator commands and crash recovery (real processes)', () => {
  it('keys create prints only the key; list and revoke manage it', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-keys-'));
    try {
      const env = { VIDGEN_DATA_DIR: dataDir };
      const created = await runServerCommand(['keys', 'create', '--account', 'demo', '--models', 'video-v1-5s'], env);
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /^vg-[A-Za-z0-9_-]{43}\n$/);
      const listed = await runServerCommand(['keys', 'list'], env);
      // Under the header row, one row per key.
      const [keyId, account, prefix] = listed.stdout.trim().split('\n')[1].split('\t');
      assert.equal(account, 'demo');
      assert.equal(prefix, `${created.stdout.slice(0, 10)}…`);
      assert.ok(!listed.stdout.includes(created.stdout.trim()), 'the key itself is never shown again');
      const server = await spawnServer(env);
      try {
        const client = api(server.url, created.stdout.trim());
        assert.deepEqual(
          (await client.get('/v1/models')).body.data.map((m: { id: string }) => m.id),
          ['video-v1-5s'],
        );
        assert.ok(!server.lines.some((l) => l.includes('No API key existed')), 'no bootstrap key when one exists');
        assert.equal((await runServerCommand(['keys', 'revoke', keyId], env)).code, 0);
        await pollUntil(
          () => client.get('/v1/models'),
          (a) => a.status === 401,
          KEY_CACHE_MS + 1000,
        );
        assert.equal((await runServerCommand(['keys', 'revoke', keyId], env)).code, 1);
        assert.equal((await runServerCommand(['keys', 'create'], env)).code, 2);
      } finally {
        await server.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('loses no task across kill -9: queued ones run, the interrupted one runs again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-restart-'));
    const env = {
      VIDGEN_DATA_DIR: dataDir,
      VIDGEN_LEASE_SECONDS: '2',
      VIDGEN_HEARTBEAT_SECONDS: '0.5',
      VIDGEN_WORKER_CONCURRENCY: '1',
      VIDGEN_POLL_MS: '100',
    };
    try {
      const first = await spawnServer(env);
      const key = await bootstrapKeyOf(first);
      const client = api(first.url, key);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push(
          (await client.post('/v1/video/generations', { model: 'video-v1-15s', prompt: `ocean waves ${i}` })).body
            .task_id,
        );
      await pollUntil(
        () => client.get(`/v1/video/generations/${ids[0]}`),
        (a) => a.body.status === 'IN_PROGRESS',
      );
      await first.stop('SIGKILL');

      const second = await spawnServer(env);
      try {
        assert.ok(
          !second.lines.some((l) => l.includes('No API key existed')),
          'the bootstrap key is printed only once',
        );
        const again = api(second.url, key);
        for (const id of ids) {
          const done = await pollUntil(
            () => again.get(`/v1/video/generations/${id}`),
            (a) => a.body.status === 'SUCCESS' || a.body.status === 'FAILURE',
          );
          assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
          // Beside the video: its poster and sprite sheet.
          const files = (await taskBlobFiles(dataDir, id)).files.filter((f) => f.endsWith('.mp4'));
          assert.equal(files.length, 1, `exactly one video file for ${id}: ${files}`);
        }
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
