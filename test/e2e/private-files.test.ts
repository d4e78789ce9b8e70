import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';

/** Every entry under `dir` with its mode bits. */
async function modes(dir: string): Promise<Array<{ path: string; mode: number; directory: boolean }>> {
  const found: Array<{ path: string; mode: number; directory: boolean }> = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath ?? entry.path, entry.name);
    const info = await stat(path).catch(() => undefined);
    if (info) found.push({ path, mode: info.mode & 0o777, directory: info.isDirectory() });
  }
  return found;
}

// Stored videos, their stills, uploads and the work folders are readable by the service's user only.
describe('the data directory is private', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(() => svc?.close());

  it('keeps videos, stills and uploads 0600 in folders 0700', async () => {
    const client = api(svc.url, await svc.createKey('private'));
    const submit = await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'a house' });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    await pollUntil(
      () => client.get(`/v1/video/generations/${submit.body.task_id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      'base64',
    );
    const upload = new FormData();
    upload.append('file', new Blob([png]), 'dot.png');
    const uploaded = await fetch(`${svc.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await svc.createKey('private')}` },
      body: upload,
    });
    assert.equal(uploaded.status, 200, await uploaded.text());
    const entries = await modes(join(svc.dataDir, 'blobs'));
    assert.ok(entries.filter((e) => !e.directory).length >= 3, 'a video, its stills and an upload were kept');
    for (const entry of [...entries, ...(await modes(join(svc.dataDir, 'work')))]) {
      assert.equal(entry.mode & 0o077, 0, `${entry.path} is ${entry.mode.toString(8)}`);
    }
  });
});
