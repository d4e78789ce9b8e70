import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api } from './support/http.ts';
import { makeImage } from './support/images.ts';

async function upload(url: string, key: string, bytes: Buffer, filename: string, type = 'image/png') {
  const form = new FormData();
  form.append('purpose', 'vision');
  form.append('file', new Blob([new Uint8Array(bytes)], { type }), filename);
  const res = await fetch(`${url}/v1/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

describe('files', () => {
  let svc: TestService;
  let key: string;
  before(async () => {
    svc = await startTestService({ VIDGEN_ROLE: 'api', VIDGEN_UPLOAD_LIMIT_MB: '1' });
    key = await svc.createKey('uploader');
  });
  after(() => svc.close());

  it('uploads, reads and deletes an image, scoped to its account', async () => {
    const res = await upload(svc.url, key, await makeImage(64, 48), 'frame.png');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.id, /^file-/);
    assert.equal(res.body.object, 'file');
    assert.equal(res.body.filename, 'frame.png');
    assert.equal(res.body.mime_type, 'image/png');
    const client = api(svc.url, key);
    assert.deepEqual((await client.get(`/v1/files/${res.body.id}`)).body, res.body);
    const other = api(svc.url, await svc.createKey('someone-else'));
    assert.equal((await other.get(`/v1/files/${res.body.id}`)).status, 404);
    assert.equal((await other.delete(`/v1/files/${res.body.id}`)).status, 404);
    const submit = await other.post('/v1/videos/generations', {
      model: 'vx-imagine-video-1.5-720p',
      prompt: 'p',
      image: { file_id: res.body.id },
      duration: 1,
    });
    assert.equal(submit.status, 400);
    assert.equal(submit.body.error.param, 'image.file_id');
    assert.deepEqual((await client.delete(`/v1/files/${res.body.id}`)).body, {
      id: res.body.id,
      object: 'file',
      deleted: true,
    });
    assert.equal((await client.get(`/v1/files/${res.body.id}`)).status, 404);
  });

  it('refuses what is not a JPEG or PNG', async () => {
    const res = await upload(svc.url, key, Buffer.from('GIF89a not really'), 'x.gif', 'image/gif');
    assert.equal(res.status, 400);
    assert.equal(res.body.error.param, 'file');
  });

  it('refuses a file over the upload limit with 413', async () => {
    const res = await upload(svc.url, key, Buffer.alloc(2 * 1024 * 1024, 1), 'big.png');
    assert.equal(res.status, 413);
  });

  it('refuses a JSON body on the upload route', async () => {
    const res = await api(svc.url, key).post('/v1/files', { file: 'x' });
    assert.equal(res.status, 415);
  });
});
