/**
 * A reference video from the caller to an upstream that takes one, end to end: OpenRouter's shape on
 * `POST /v1/videos` (`input_references: [{type: "video_url", video_url: {url}}]`, the url an upload's
 * id), through the relay, to the vLLM-Omni stand-in, which reads it as its `video_reference`
 * UploadFile part of a multipart create (vllm-omni `vllm_omni/entrypoints/openai/api_server.py`
 * create_video), the very bytes uploaded. The built-in renderer's models declare no reference video:
 * there the same body is a 400 naming the field, with nothing written.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VllmOmniStandin } from '../../packages/server/test/support/vllm-omni-standin.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { makeClip } from './support/video-server.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';

describe('a reference video relayed to vLLM-Omni as video_reference', () => {
  const KEY = 'vllm-reference-key';
  let vllm: VllmOmniStandin;
  let svc: TestService;
  let client: Api;
  let key: string;
  let dir: string;
  let clip: Buffer;

  before(async () => {
    vllm = await VllmOmniStandin.start({ key: KEY });
    dir = await mkdtemp(join(tmpdir(), 'vidgen-reference-video-'));
    const backends = {
      'relay-vllm': {
        type: 'relay',
        channels: [
          {
            name: 'vllm-omni',
            dialect: 'openai',
            upstream: 'vllm-omni',
            base_url: vllm.url,
            api_key_env: 'TEST_VLLM_KEY',
            models: { 'wan-ref': 'Wan-AI/Wan2.2-T2V-A14B-Diffusers' },
            poll_interval_seconds: 0.1,
          },
        ],
      },
    };
    const models = [
      {
        id: 'wan-ref',
        family: 'B',
        backend: 'relay-vllm',
        resolution: '720p',
        durations: [2],
        aspect_ratios: ['16:9'],
        inputs: { reference_videos: 1 },
      },
      { id: 'sora-2', family: 'O', backend: 'renderer', resolution: '144p', durations: [2], aspect_ratios: ['16:9'] },
    ];
    await writeFile(join(dir, 'backends.json'), JSON.stringify({ backends }));
    await writeFile(join(dir, 'models.json'), JSON.stringify({ models }));
    svc = await startTestService({
      VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
      VIDGEN_MODELS_FILE: join(dir, 'models.json'),
      TEST_VLLM_KEY: KEY,
    });
    key = await svc.createKey('reference-video');
    client = api(svc.url, key);
    clip = await makeClip();
  });
  after(async () => {
    await svc?.close();
    await vllm?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const upload = async () => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(clip)], { type: 'video/mp4' }), 'reference.mp4');
    const res = await fetch(`${svc.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { id: string }).id;
  };
  const body = (model: string, url: string) => ({
    model,
    prompt: 'the subject of the reference walks along a harbour',
    duration: 2,
    aspect_ratio: '16:9',
    input_references: [{ type: 'video_url', video_url: { url } }],
  });

  it('reaches the upstream as the multipart video_reference file, byte for byte, and the task completes', async () => {
    const fileId = await upload();
    const created = await client.post('/v1/videos', body('wan-ref', fileId));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.match(created.body.id, /^job-/);
    const done = await pollUntil(
      () => client.get(`/v1/videos/${created.body.id}`),
      (a) => ['completed', 'failed', 'cancelled', 'expired'].includes(a.body.status),
    );
    assert.equal(done.body.status, 'completed', JSON.stringify(done.body));
    assert.equal(vllm.jobs.length, 1, 'one upstream job');
    const [job] = vllm.jobs;
    assert.equal(job.encoding, 'multipart');
    const sent = job.fields.video_reference as { file: Buffer; type: string };
    assert.ok(sent && typeof sent === 'object', 'video_reference is a file part, not a text field');
    assert.match(sent.type, /^video\/mp4/);
    assert.ok(sent.file.equals(clip), 'the bytes the caller uploaded');
    assert.equal(job.fields.input_reference, undefined, 'no first frame was sent, none was given');
  });

  it("is a 400 naming the field on the built-in renderer's models, with nothing written", async () => {
    const blobs = async () => (await readdir(join(svc.dataDir, 'blobs', 'inputs')).catch(() => [])).length;
    const before = await blobs();
    const fileId = await upload();
    const refused = await client.post('/v1/videos', body('sora-2', fileId));
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'unsupported_input');
    assert.equal(refused.body.error.param, 'input_references[0]');
    assert.match(refused.body.error.message, /is a reference video, which model 'sora-2' does not take/);
    assert.equal(await blobs(), before, 'no input was stored');
    const db = await openSqlDatabase(join(svc.dataDir, 'vidgen.db'));
    try {
      const tasks = await db.db.selectFrom('tasks').select('model').execute();
      assert.deepEqual(
        tasks.map((t) => t.model),
        ['wan-ref'],
        'only the relayed task was written',
      );
    } finally {
      await db.close();
    }
  });
});
