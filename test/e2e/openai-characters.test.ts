import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { forEachDatabase } from '../../packages/server/test/support/databases.ts';
import { openSqlDatabase, type SqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { VllmOmniStandin } from '../../packages/server/test/support/vllm-omni-standin.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';

// OpenAI's characters through the real `openai` Node SDK, unmodified (node_modules/openai/src/resources/
// videos.ts: `createCharacter` posts multipart `name` and `video` to /videos/characters, `getCharacter`
// reads /videos/characters/{id}; both answer `{id, created_at, name}`). A character is a reference
// video kept as an upload of its account, a 404 to every other account, and usable as a reference
// video where a model takes one: here a model relayed to a vLLM-Omni stand-in, which receives the
// character's MP4 as its `video_reference` file.
const OMNI_KEY = 'omni-characters-key';
const CLIP = new URL('../../docs/samples/clip.mp4', import.meta.url);
const FRAME = new URL('../../docs/samples/frame.png', import.meta.url);

forEachDatabase('OpenAI characters', (database, kind) => {
  let svc: TestService;
  let omni: VllmOmniStandin;
  let dir: string;
  let db: SqlDatabase;
  let key: string;
  let client: OpenAI;
  let clip: Buffer;

  before(async () => {
    omni = await VllmOmniStandin.start({ key: OMNI_KEY });
    dir = await mkdtemp(join(tmpdir(), 'vidgen-characters-'));
    const backends = {
      'relay-omni': {
        type: 'relay',
        channels: [
          {
            name: 'omni',
            dialect: 'openai',
            upstream: 'vllm-omni',
            base_url: omni.url,
            api_key_env: 'TEST_OMNI_KEY',
            models: { 'omni-ref': 'Wan-AI/Wan2.2-TI2V-5B-Diffusers' },
            poll_interval_seconds: 0.05,
          },
        ],
      },
    };
    const defaults = JSON.parse(
      await readFile(new URL('../../packages/server/src/catalog/default-models.json', import.meta.url), 'utf8'),
    );
    const models = [
      ...defaults.models,
      {
        id: 'omni-ref',
        family: 'O',
        backend: 'relay-omni',
        resolution: '144p',
        durations: [1],
        aspect_ratios: ['16:9'],
        inputs: { reference_videos: 1 },
      },
    ];
    await writeFile(join(dir, 'backends.json'), JSON.stringify({ backends }));
    await writeFile(join(dir, 'models.json'), JSON.stringify({ models }));
    svc = await startTestService({
      VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
      VIDGEN_MODELS_FILE: join(dir, 'models.json'),
      TEST_OMNI_KEY: OMNI_KEY,
      ...(kind === 'PostgreSQL' ? { VIDGEN_DATABASE_URL: database.location } : {}),
    });
    db = await openSqlDatabase(kind === 'PostgreSQL' ? database.location : join(svc.dataDir, 'vidgen.db'));
    key = await svc.createKey('characters');
    client = new OpenAI({ apiKey: key, baseURL: `${svc.url}/v1`, maxRetries: 0 });
    clip = await readFile(CLIP);
  });
  after(async () => {
    await db?.close();
    await svc?.close();
    await omni?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const fileRows = async () => (await db.db.selectFrom('files').select(['id', 'purpose']).execute()).length;

  let characterId: string;
  it('createCharacter and getCharacter answer as OpenAI does', async () => {
    const created = await client.videos.createCharacter({
      name: 'Mossy the cat',
      video: await toFile(clip, 'mossy.mp4', { type: 'video/mp4' }),
    });
    assert.match(created.id ?? '', /^char_[\w-]+$/);
    assert.equal(created.name, 'Mossy the cat');
    assert.ok(Math.abs(created.created_at - Date.now() / 1000) < 600, `created_at ${created.created_at}`);
    characterId = created.id as string;
    const fetched = await client.videos.getCharacter(characterId);
    assert.deepEqual(fetched, created);
  });

  it("is another account's 404, and a missing one's", async () => {
    const other = new OpenAI({
      apiKey: await svc.createKey('characters-other'),
      baseURL: `${svc.url}/v1`,
      maxRetries: 0,
    });
    await assert.rejects(other.videos.getCharacter(characterId), (err: InstanceType<typeof OpenAI.NotFoundError>) => {
      assert.equal(err.status, 404);
      assert.equal((err.error as { code?: string }).code, 'character_not_found');
      return true;
    });
    await assert.rejects(client.videos.getCharacter('char_nothing'), OpenAI.NotFoundError);
    // Nor may another account use it as an input.
    const used = await api(svc.url, other.apiKey ?? undefined).post('/v1/videos', {
      model: 'omni-ref',
      prompt: 'a cat',
      input_references: [{ type: 'video_url', video_url: { url: characterId } }],
    });
    assert.equal(used.status, 400, JSON.stringify(used.body));
    assert.equal(used.body.error.code, 'file_not_found');
    assert.equal(used.body.error.param, 'input_references[0].video_url.url');
  });

  it('refuses a video that is not an MP4, or no name, and keeps nothing', async () => {
    const before = await fileRows();
    await assert.rejects(
      client.videos.createCharacter({
        name: 'a picture',
        video: await toFile(await readFile(FRAME), 'frame.png', { type: 'image/png' }),
      }),
      (err: InstanceType<typeof OpenAI.BadRequestError>) => {
        assert.equal(err.status, 400);
        assert.equal((err.error as { param?: string }).param, 'video');
        assert.equal((err.error as { code?: string }).code, 'invalid_video');
        return true;
      },
    );
    await assert.rejects(
      client.videos.createCharacter({ name: ' ', video: await toFile(clip, 'a.mp4', { type: 'video/mp4' }) }),
      (err: InstanceType<typeof OpenAI.BadRequestError>) => (err.error as { param?: string }).param === 'name',
    );
    assert.equal(await fileRows(), before, 'no upload was kept');
  });

  it('is a reference video where a model takes one: the upstream receives its MP4 as video_reference', async () => {
    const caller = api(svc.url, key);
    const body = {
      model: 'omni-ref',
      prompt: 'the cat @Mossy walks across the room',
      input_references: [{ type: 'video_url', video_url: { url: characterId } }],
    };
    const created = await caller.post('/v1/videos', body);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const done = await pollUntil(
      () => caller.get(`/v1/videos/${created.body.id}`),
      (a) => a.body.status === 'completed',
    );
    assert.equal(done.body.status, 'completed');
    const job = omni.jobs.at(-1)!;
    assert.equal(job.fields.prompt, body.prompt, 'the prompt, its tag untouched');
    assert.deepEqual([job.fields.video_reference.type, job.fields.video_reference.file], ['video/mp4', clip]);
    // A model that takes no reference video refuses it, naming the field.
    const refused = await caller.post('/v1/videos', { ...body, model: 'grok-imagine-video-1.5' });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, 'unsupported_input');
    assert.equal(refused.body.error.param, 'input_references[0]');
  });

  it('is kept until the account deletes it; then it and its video are gone', async () => {
    const before = await fileRows();
    const deleted = await api(svc.url, key).delete(`/v1/videos/characters/${characterId}`);
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.deepEqual(deleted.body, { id: characterId, object: 'video.character.deleted', deleted: true });
    await assert.rejects(client.videos.getCharacter(characterId), OpenAI.NotFoundError);
    assert.equal(await fileRows(), before - 1, 'its video went with it');
    assert.equal((await api(svc.url, key).delete(`/v1/videos/characters/${characterId}`)).status, 404);
  });
});
