import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { startTestService, type TestService } from './support/service.ts';
import { api } from './support/http.ts';
import { makeImage } from './support/images.ts';

const line = (i: number) =>
  JSON.stringify({
    custom_id: `line-${i}`,
    method: 'POST',
    url: '/v1/videos',
    body: { model: 'sora-2', prompt: `a kite ${i}`, seconds: '4' },
  });

// A batch's input file through the real `openai` Node SDK (src/resources/files.ts): `purpose:
// "batch"` takes JSONL, written to the disk as it arrives and read a line at a time; every file an
// account owns reads back through `files.content`, and no other account's does.
describe('files for batches', () => {
  let svc: TestService;
  let client: OpenAI;
  let other: OpenAI;
  before(async () => {
    svc = await startTestService();
    client = new OpenAI({ apiKey: await svc.createKey('batch-files'), baseURL: `${svc.url}/v1`, maxRetries: 0 });
    other = new OpenAI({ apiKey: await svc.createKey('batch-files-other'), baseURL: `${svc.url}/v1`, maxRetries: 0 });
  });
  after(() => svc.close());

  it('takes a JSONL batch file and gives back its bytes to its owner alone', async () => {
    const text = `${[1, 2, 3].map(line).join('\n')}\n`;
    const file = await client.files.create({ file: await toFile(Buffer.from(text), 'in.jsonl'), purpose: 'batch' });
    assert.match(file.id, /^file-/);
    assert.equal(file.purpose, 'batch');
    assert.equal(file.bytes, Buffer.byteLength(text));
    assert.equal(file.status, 'processed');
    const content = await client.files.content(file.id);
    assert.equal(await content.text(), text);
    await assert.rejects(other.files.content(file.id), (err: unknown) => (err as { status?: number }).status === 404);
    await assert.rejects(other.files.retrieve(file.id), (err: unknown) => (err as { status?: number }).status === 404);
    // Nothing is left in the staging directory.
    assert.deepEqual(await readdir(join(svc.dataDir, 'uploads')), []);
  });

  it('gives back an uploaded image too', async () => {
    const png = await makeImage(64, 48, 'png');
    const file = await client.files.create({ file: await toFile(png, 'frame.png'), purpose: 'vision' });
    const content = await client.files.content(file.id);
    assert.equal(content.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await content.arrayBuffer()), png);
  });

  it('refuses a file that is not JSONL, or has more lines than a batch takes, and stores nothing', async () => {
    const key = await svc.createKey('batch-files-refused');
    for (const [text, pattern] of [
      [`${line(1)}\nnot json\n`, /line 2 is not a JSON object/],
      ['[1, 2]\n', /line 1 is not a JSON object/],
      [`${Array.from({ length: 50_001 }, () => '{}').join('\n')}\n`, /more than 50000 lines/],
    ] as const) {
      const form = new FormData();
      form.append('purpose', 'batch');
      form.append('file', new Blob([text]), 'in.jsonl');
      const res = await fetch(`${svc.url}/v1/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: form,
      });
      const body = await res.json();
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(body.error.param, 'file');
      assert.match(body.error.message, pattern);
    }
    assert.deepEqual(await readdir(join(svc.dataDir, 'uploads')), []);
    assert.equal((await api(svc.url, key).get('/v1/files/none/content')).status, 404);
  });
});
