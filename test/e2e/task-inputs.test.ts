import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, readdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { forEachDatabase } from '../../packages/server/test/support/databases.ts';
import { openSqlDatabase, type SqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { startEconomicsService, type EconomicsService } from './support/economics.ts';
import { api, finishedFamilyA, pollUntil, type Api } from './support/http.ts';
import { dataUri, makeImage } from './support/images.ts';
import { audioDataUri, makeAudio } from './support/audio.ts';

// Every input the field composes video from, as each dialect names it (docs/inputs.md): what a
// model does not take is a 400 naming the caller's field, with no task, no blob, no hold and no
// idempotency record written; what it takes is stored as one list of roles.
const DEFAULT_MODELS = JSON.parse(
  await readFile(new URL('../../packages/server/src/catalog/default-models.json', import.meta.url), 'utf8'),
);
const TEST_MODELS = {
  models: [
    ...DEFAULT_MODELS.models,
    // A family B model that declares nothing: first frame only, as every model before references.
    { id: 'plain-b', family: 'B', backend: 'renderer', resolution: '144p', durations: [2], aspect_ratios: ['16:9'] },
    {
      id: 'text-only-o',
      family: 'O',
      backend: 'renderer',
      resolution: '144p',
      durations: [4],
      aspect_ratios: ['16:9'],
      inputs: { first_frame: false },
    },
    {
      id: 'frames-or-refs',
      family: 'A',
      backend: 'renderer',
      resolution: '144p',
      durations: { min: 1, max: 5 },
      sound: { optional: false },
      inputs: {
        last_frame: true,
        reference_images: 2,
        exclusive: [
          ['reference_images', 'first_frame'],
          ['reference_images', 'last_frame'],
        ],
      },
    },
  ],
};

forEachDatabase('task inputs at submit', (database) => {
  let svc: EconomicsService;
  let client: Api;
  let db: SqlDatabase;
  let png: string;
  let wav: string;
  let key: string;
  const uploadFile = async (bytes: Buffer, name: string) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), name);
    const res = await fetch(`${svc.url}/v1/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    return { status: res.status, body: await res.json() };
  };

  before(async () => {
    svc = await startEconomicsService(database.location, { VIDGEN_ROLE: 'api' }, TEST_MODELS);
    key = await svc.account('inputs', { credits_usd_ticks: 1_000_000_000_000 });
    client = api(svc.url, key);
    db = await openSqlDatabase(database.location);
    png = dataUri(await makeImage(64, 36), 'image/png');
    wav = audioDataUri(await makeAudio(1));
  });
  after(async () => {
    await db?.close();
    await svc?.close();
  });

  /** Nothing was written or held: no task, no idempotency record, no input blob, only the grant in the ledger. */
  const assertNothingWritten = async (what: string) => {
    assert.equal((await db.db.selectFrom('tasks').select('id').execute()).length, 0, `${what}: a task was written`);
    const keys = await db.db.selectFrom('idempotency_keys').selectAll().execute();
    assert.equal(keys.length, 0, `${what}: an idempotency record was kept`);
    const ledger = await db.db.selectFrom('ledger_entries').select('kind').execute();
    assert.deepEqual(
      ledger.map((e) => e.kind),
      ['grant'],
      `${what}: something was held`,
    );
    const inputs = await readdir(join(svc.dataDir, 'blobs', 'inputs')).catch(() => []);
    assert.deepEqual(inputs, [], `${what}: an input blob was left`);
  };

  const A = '/v1/videos/generations';
  const grok15 = { model: 'grok-imagine-video-1.5', prompt: 'a harbour at dawn', duration: 4 };
  const refusals = (): Array<[string, string, Record<string, unknown>, string, string, RegExp]> => [
    [
      'A: a last frame to a model that takes one image',
      A,
      { model: 'vx-imagine-video-1.5-720p', prompt: 'p', duration: 3, image: { url: png }, last_frame: { url: png } },
      'unsupported_input',
      'last_frame',
      /`last_frame` is a last frame, which model 'vx-imagine-video-1\.5-720p' does not take; it takes a first frame\./,
    ],
    [
      'A: keyframes to grok-imagine-video',
      A,
      { ...grok15, model: 'grok-imagine-video', keyframes: [{ image: { url: png }, timestamp_s: 1 }] },
      'unsupported_input',
      'keyframes[0]',
      /`keyframes\[0\]` is a keyframe.*takes a first frame, up to 7 reference images and up to 3 reference audios/,
    ],
    [
      'A: reference images to the spec model',
      A,
      {
        model: 'vx-imagine-video-1.5-720p',
        prompt: 'p',
        duration: 3,
        image: { url: png },
        reference_images: [{ url: png }],
      },
      'unsupported_input',
      'reference_images[0]',
      /`reference_images\[0\]` is a reference image/,
    ],
    [
      'A: a keyframe at 0',
      A,
      { ...grok15, keyframes: [{ image: { url: png }, timestamp_s: 0 }] },
      'invalid_keyframe',
      'keyframes[0].timestamp_s',
      /after 0 and before the video's end \(4 s\)/,
    ],
    [
      'A: a keyframe at the end',
      A,
      {
        ...grok15,
        keyframes: [
          { image: { url: png }, timestamp_s: 1 },
          { image: { url: png }, timestamp_s: 4 },
        ],
      },
      'invalid_keyframe',
      'keyframes[1].timestamp_s',
      /before the video's end/,
    ],
    [
      // At 24 fps over 4 s, frame round(t / 4 × 95): 1 s and 1.01 s both show frame 24.
      'A: two keyframes on one frame',
      A,
      {
        ...grok15,
        keyframes: [
          { image: { url: png }, timestamp_s: 1 },
          { image: { url: png }, timestamp_s: 1.01 },
        ],
      },
      'invalid_keyframe',
      'keyframes[1]',
      /`keyframes\[1\]` at 1\.01 s falls on frame 24 at 24 fps, which already shows the keyframe at 1 s/,
    ],
    [
      'A: a keyframe on the last frame',
      A,
      { ...grok15, last_frame: { url: png }, keyframes: [{ image: { url: png }, timestamp_s: 3.99 }] },
      'invalid_keyframe',
      'keyframes[0]',
      /`keyframes\[0\]` at 3\.99 s falls on frame 95 at 24 fps, which already shows the last frame/,
    ],
    [
      'A: a keyframe on the opening frame',
      A,
      { ...grok15, keyframes: [{ image: { url: png }, timestamp_s: 0.01 }] },
      'invalid_keyframe',
      'keyframes[0]',
      /`keyframes\[0\]` at 0\.01 s falls on frame 0 at 24 fps, which already shows the prompt.s opening scene/,
    ],
    [
      'A: reference audio without sound',
      A,
      { ...grok15, reference_images: [{ url: png }], reference_audios: [{ url: wav }] },
      'unsupported_input',
      'reference_audios',
      /makes a silent one/,
    ],
    [
      'A: a voice id',
      A,
      { ...grok15, generate_audio: true, reference_audios: [{ voice_id: 'eve' }] },
      'unsupported_input',
      'reference_audios[0].voice_id',
      /declares no voices/,
    ],
    [
      'A: a keyframe image that is not an image',
      A,
      { ...grok15, keyframes: [{ image: { url: 'data:image/png;base64,AAAA' }, timestamp_s: 1 }] },
      'image_type_mismatch',
      'keyframes[0].image.url',
      /declares image\/png/,
    ],
    [
      'A: a reference audio that is an image',
      A,
      { ...grok15, generate_audio: true, reference_audios: [{ url: png }] },
      'invalid_audio',
      'reference_audios[0].url',
      /data:audio\/wav/,
    ],
    [
      'A: a last frame with both url and file_id',
      A,
      { ...grok15, last_frame: { url: png, file_id: 'file_x' } },
      'invalid_image',
      'last_frame',
      /exactly one of `url` or `file_id`/,
    ],
    [
      'A: references with a first frame where they exclude each other',
      A,
      { model: 'frames-or-refs', prompt: 'p', duration: 2, image: { url: png }, reference_images: [{ url: png }] },
      'unsupported_input',
      'reference_images[0]',
      /takes reference images or first frames, never both/,
    ],
    [
      'A: one reference image too many',
      A,
      {
        model: 'frames-or-refs',
        prompt: 'p',
        duration: 2,
        reference_images: [{ url: png }, { url: png }, { url: png }],
      },
      'unsupported_input',
      'reference_images[2]',
      /one reference image too many/,
    ],
    [
      'B: a last frame to a model that takes none',
      '/v1/video/generations',
      { model: 'video-v1-5s', prompt: 'p', image: png, last_frame: png },
      'unsupported_input',
      'last_frame',
      /`last_frame` is a last frame/,
    ],
    [
      'B: images[1] to a model that takes only a first frame',
      '/v1/video/generations',
      { model: 'plain-b', prompt: 'p', images: [png, png] },
      'unsupported_input',
      'images[1]',
      /`images\[1\]` is a reference image, which model 'plain-b' does not take; it takes a first frame\./,
    ],
    [
      'OpenAI: input_reference to a text-only model',
      '/v1/videos',
      { model: 'text-only-o', prompt: 'p', input_reference: { image_url: png } },
      'unsupported_input',
      'input_reference',
      /`input_reference` is a first frame.*no inputs besides the prompt/,
    ],
    [
      "OpenRouter's shape: a last frame to a model that takes a first frame only",
      '/v1/videos',
      {
        model: 'sora-2',
        prompt: 'p',
        duration: 4,
        frame_images: [
          { type: 'image_url', image_url: { url: png }, frame_type: 'first_frame' },
          { type: 'image_url', image_url: { url: png }, frame_type: 'last_frame' },
        ],
      },
      'unsupported_input',
      'frame_images[1]',
      /`frame_images\[1\]` is a last frame, which model 'sora-2' does not take; it takes a first frame\./,
    ],
    [
      "OpenRouter's shape: a reference video to a model that takes none",
      '/v1/videos',
      { ...grok15, input_references: [{ type: 'video_url', video_url: { url: 'https://example.com/a.mp4' } }] },
      'unsupported_input',
      'input_references[0]',
      /`input_references\[0\]` is a reference video, which model 'grok-imagine-video-1\.5' does not take/,
    ],
    [
      "OpenRouter's shape: reference audio without sound",
      '/v1/videos',
      { ...grok15, input_references: [{ type: 'audio_url', audio_url: { url: wav } }] },
      'unsupported_input',
      'input_references',
      /makes a silent one/,
    ],
    [
      "OpenRouter's shape: a reference whose type names a field it lacks",
      '/v1/videos',
      { ...grok15, input_references: [{ type: 'audio_url', image_url: { url: png } }] },
      'invalid_audio',
      'input_references[0].audio_url',
      /must hold `audio_url: \{url\}`/,
    ],
    [
      "OpenRouter's shape: a size and an aspect ratio that disagree",
      '/v1/videos',
      { ...grok15, size: '1280x720', aspect_ratio: '9:16' },
      'invalid_aspect_ratio',
      'aspect_ratio',
      /`aspect_ratio` '9:16' disagrees with `size` '1280x720'/,
    ],
  ];

  it('refuses every input a model does not take, naming the caller\u2019s field, and writes and holds nothing', async () => {
    for (const [i, [name, path, body, code, param, message]] of refusals().entries()) {
      const res = await client.post(path, body, { 'idempotency-key': `refused-${i}` });
      assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, code, name);
      assert.equal(res.body.error.param, param, name);
      assert.match(res.body.error.message, message, name);
      assert.ok(res.headers.get('x-request-id'), `${name}: request id`);
      await assertNothingWritten(name);
    }
  });

  it('refuses audio longer than 15 s at submit, as a data URI and as an upload', async () => {
    const long = await makeAudio(16);
    const res = await client.post(A, {
      ...grok15,
      generate_audio: true,
      reference_audios: [{ url: audioDataUri(long) }],
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'invalid_audio');
    assert.equal(res.body.error.param, 'reference_audios[0].url');
    assert.match(res.body.error.message, /lasts 16\.0 s; at most 15 s/);
    await assertNothingWritten('long audio');
    const upload = await uploadFile(long, 'long.wav');
    assert.equal(upload.status, 400, JSON.stringify(upload.body));
    assert.match(upload.body.error.message, /at most 15 s/);
  });

  it('stores every input as one list of roles, uploads of audio included; prompt tags pass untouched', async () => {
    const upload = await uploadFile(await makeAudio(2, 'm4a'), 'bed.m4a');
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    assert.equal(upload.body.mime_type, 'audio/mp4');
    const prompt = 'the harbour of <IMAGE_0> in the style of @Image1 with <AUDIO_0>';
    const res = await client.post(A, {
      ...grok15,
      prompt,
      generate_audio: true,
      image: { url: png },
      last_frame: { url: 'https://example.com/last.png' },
      keyframes: [{ image: { url: png }, timestamp_s: 2.5 }],
      reference_images: [{ url: png }],
      reference_audios: [{ url: wav }, { file_id: upload.body.id }, { url: 'https://example.com/a.mp3' }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const row = await db.db
      .selectFrom('tasks')
      .selectAll()
      .where('id', '=', res.body.request_id)
      .executeTakeFirstOrThrow();
    const params = typeof row.params === 'string' ? JSON.parse(row.params) : row.params;
    assert.equal(params.prompt, prompt);
    assert.equal(params.images, undefined, 'the first frame is in the one list');
    assert.deepEqual(
      params.inputs.map((i: { role: string; ref: { kind: string }; atSeconds?: number }) => [
        i.role,
        i.ref.kind,
        i.atSeconds,
      ]),
      [
        ['first_frame', 'blob', undefined],
        ['last_frame', 'url', undefined],
        ['keyframe', 'blob', 2.5],
        ['reference_image', 'blob', undefined],
        ['reference_audio', 'blob', undefined],
        ['reference_audio', 'file', undefined],
        ['reference_audio', 'url', undefined],
      ],
    );
    assert.equal((await readdir(join(svc.dataDir, 'blobs', 'inputs', res.body.request_id))).length, 4);
    // Canceled, the task's inline inputs go.
    assert.equal((await client.post(`/v1/videos/${res.body.request_id}/cancel`)).status, 200);
    const left = await readdir(join(svc.dataDir, 'blobs', 'inputs', res.body.request_id)).catch(() => []);
    assert.deepEqual(left, []);
  });

  it('family B: images[0] is the first frame and images[1..] reference images', async () => {
    const res = await client.post('/v1/video/generations', {
      model: 'video-v1-5s',
      prompt: 'p',
      images: [png, png, png],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const row = await db.db
      .selectFrom('tasks')
      .select('params')
      .where('id', '=', res.body.task_id)
      .executeTakeFirstOrThrow();
    const params = typeof row.params === 'string' ? JSON.parse(row.params) : row.params;
    assert.deepEqual(
      params.inputs.map((i: { role: string }) => i.role),
      ['first_frame', 'reference_image', 'reference_image'],
    );
  });

  it("OpenRouter's shape: frame_images and input_references are one list of roles; uploads by id", async () => {
    const upload = await uploadFile(await makeAudio(1), 'bed.wav');
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    const res = await client.post('/v1/videos', {
      ...grok15,
      generate_audio: true,
      frame_images: [
        { type: 'image_url', image_url: { url: png }, frame_type: 'first_frame' },
        { type: 'image_url', image_url: { url: 'https://example.com/last.png' }, frame_type: 'last_frame' },
      ],
      input_references: [
        { type: 'image_url', image_url: { url: png } },
        { type: 'audio_url', audio_url: { url: upload.body.id } },
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.match(res.body.id, /^job-[0-9a-f]{32}$/);
    const id = res.body.id.replace(/^job-(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    const row = await db.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.family, 'R', 'the task keeps the shape that created it');
    const params = typeof row.params === 'string' ? JSON.parse(row.params) : row.params;
    assert.deepEqual(
      params.inputs.map((i: { role: string; ref: { kind: string } }) => [i.role, i.ref.kind]),
      [
        ['first_frame', 'blob'],
        ['last_frame', 'url'],
        ['reference_image', 'blob'],
        ['reference_audio', 'file'],
      ],
    );
    assert.equal((await client.post(`/v1/videos/${res.body.id}/cancel`)).status, 200);
  });

  it('makes the inputs part of the Idempotency-Key fingerprint', async () => {
    const body = { ...grok15, reference_images: [{ url: 'https://example.com/one.png' }] };
    const first = await client.post(A, body, { 'idempotency-key': 'refs-1' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const replay = await client.post(A, body, { 'idempotency-key': 'refs-1' });
    assert.equal(replay.body.request_id, first.body.request_id);
    const other = await client.post(
      A,
      { ...body, reference_images: [{ url: 'https://example.com/two.png' }] },
      { 'idempotency-key': 'refs-1' },
    );
    assert.equal(other.status, 422, JSON.stringify(other.body));
    assert.equal(other.body.error.code, 'idempotency_key_reused');
  });

  it('shows each model\u2019s inputs in /v1/models', async () => {
    const models = (await client.get('/v1/models')).body.data as Array<{ id: string; inputs: unknown }>;
    const inputs = (id: string) => models.find((m) => m.id === id)?.inputs;
    assert.deepEqual(inputs('grok-imagine-video-1.5'), {
      first_frame: true,
      last_frame: true,
      keyframes: 4,
      reference_images: 7,
      reference_audios: 3,
      reference_videos: 0,
      exclusive: [],
    });
    assert.deepEqual(inputs('grok-imagine-video'), {
      first_frame: true,
      last_frame: false,
      keyframes: 0,
      reference_images: 7,
      reference_audios: 3,
      reference_videos: 0,
      exclusive: [],
    });
    for (const id of ['vx-imagine-video-1.5-720p', 'sora-2', 'plain-b'])
      assert.deepEqual(inputs(id), {
        first_frame: true,
        last_frame: false,
        keyframes: 0,
        reference_images: 0,
        reference_audios: 0,
        reference_videos: 0,
        exclusive: [],
      });
    assert.equal((inputs('video-v1-5s') as { reference_images: number }).reference_images, 7);
  });
});

forEachDatabase(
  'task inputs in the worker',
  (database) => {
    let svc: EconomicsService;
    let client: Api;
    let files: { url: string; close(): Promise<void> };

    before(async () => {
      const models = {
        models: [
          {
            id: 'tiny-refs',
            family: 'A',
            backend: 'renderer',
            resolution: '144p',
            durations: { min: 1, max: 5 },
            sound: { optional: true },
            inputs: { last_frame: true, keyframes: 2, reference_images: 2, reference_audios: 2 },
          },
        ],
      };
      svc = await startEconomicsService(database.location, {}, models);
      client = api(svc.url, await svc.account('worker-inputs'));
      const served: Record<string, Buffer> = {
        '/bed.mp3': await makeAudio(1, 'mp3'),
        '/fake.wav': await makeImage(16, 16),
        '/frame.png': await makeImage(64, 36),
      };
      const server = createServer((req, res) => {
        const body = served[req.url ?? ''];
        if (!body) return res.writeHead(404).end();
        res.writeHead(200, { 'content-length': body.length }).end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      files = {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((resolve) => server.close(() => resolve())),
      };
    });
    after(async () => {
      await files?.close();
      await svc?.close();
    });

    it('fetches every role through the SSRF-safe fetcher and renders; audio that is not audio fails the task', async () => {
      const body = {
        model: 'tiny-refs',
        prompt: 'a lighthouse',
        duration: 2,
        generate_audio: true,
        image: { url: `${files.url}/frame.png` },
        last_frame: { url: `${files.url}/frame.png` },
        keyframes: [{ image: { url: `${files.url}/frame.png` }, timestamp_s: 1 }],
        reference_images: [{ url: `${files.url}/frame.png` }],
        reference_audios: [{ url: `${files.url}/bed.mp3` }],
      };
      const done = await finishedFamilyA(client, '/v1/videos/generations', body);
      assert.equal(done.status, 'done', JSON.stringify(done));
      assert.equal(done.video.has_audio, true);
      const bad = await client.post('/v1/videos/generations', {
        ...body,
        reference_audios: [{ url: `${files.url}/fake.wav` }],
      });
      assert.equal(bad.status, 200, JSON.stringify(bad.body));
      const failed = await pollUntil(
        () => client.get(`/v1/videos/${bad.body.request_id}`),
        (answer) => answer.body.status === 'failed',
      );
      assert.equal(failed.body.error.code, 'audio_invalid', JSON.stringify(failed.body));
      assert.match(failed.body.error.message, /not a WAV, MP3 or AAC\/M4A file/);
    });
  },
  ['SQLite'],
);
