import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, pollUntil, type Api } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';
import { measureLoudness } from '../../packages/server/src/media/audio-loudness.ts';
import { TARGET_LUFS } from '../../packages/server/src/generators/ffmpeg/sound/soundtrack.ts';

const bins = resolveFfmpegBinaries({});
const SOUND_TICKS = TICKS_PER_SECOND / 2;
const common = { backend: 'renderer', resolution: '144p', aspect_ratios: ['16:9'] };
const price = { usd_ticks_per_second: TICKS_PER_SECOND, sound_usd_ticks_per_second: SOUND_TICKS };
/** One model of each sound, in both families, priced with a sound surcharge. */
const MODELS = {
  models: [
    { id: 'snd-a', family: 'A', durations: { min: 1, max: 5 }, sound: { optional: false }, price, ...common },
    { id: 'mute-a', family: 'A', durations: { min: 1, max: 5 }, sound: 'none', price, ...common },
    { id: 'loud-a', family: 'A', durations: { min: 1, max: 5 }, sound: 'always', price, ...common },
    { id: 'snd-b', family: 'B', durations: [2], sound: { optional: true }, price, ...common },
    { id: 'mute-b', family: 'B', durations: [2], price, ...common },
    { id: 'snd-o', family: 'O', durations: [2], sound: { optional: false }, price, ...common },
    { id: 'mute-o', family: 'O', durations: [2], sound: 'none', price, ...common },
  ],
};

// Sound end to end on a real server: asked in family A and (as an extension) in family B,
// refused for models that cannot honour it, delivered as checked, shown in the poll and priced.
describe('sound', () => {
  let svc: EconomicsService;
  let client: Api;
  let key: string;
  let dir: string;
  before(async () => {
    svc = await startEconomicsService(undefined, {}, MODELS);
    key = await svc.account('listener', { credits_usd_ticks: 100 * TICKS_PER_SECOND });
    client = api(svc.url, key);
    dir = await mkdtemp(join(tmpdir(), 'vidgen-sound-e2e-'));
  });
  after(async () => {
    await svc?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Downloads a finished video: its probe and, when it has sound, its loudness. */
  const fetchVideo = async (url: string, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { headers });
    assert.equal(res.status, 200);
    const file = join(dir, `${Math.random().toString(36).slice(2)}.mp4`);
    await writeFile(file, Buffer.from(await res.arrayBuffer()));
    const probe = await probeVideo(bins.ffprobe, file);
    return { probe, lufs: probe.audioStreams > 0 ? await measureLoudness(bins.ffmpeg, file) : undefined };
  };
  const doneA = async (body: Record<string, unknown>) => {
    const submit = await client.post('/v1/videos/generations', { prompt: 'waves on a beach', duration: 2, ...body });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const done = await pollUntil(
      () => client.get(`/v1/videos/${submit.body.request_id}`),
      (a) => a.body.status !== 'pending',
    );
    assert.equal(done.body.status, 'done', JSON.stringify(done.body));
    return done.body;
  };
  const doneB = async (body: Record<string, unknown>) => {
    const submit = await client.post('/v1/video/generations', { prompt: 'a crackling campfire', ...body });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${submit.body.task_id}`),
      (a) => a.body.status === 'SUCCESS' || a.body.status === 'FAILURE',
    );
    assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
    return done.body;
  };
  const assertSound = (got: Awaited<ReturnType<typeof fetchVideo>>) => {
    assert.equal(got.probe.audioStreams, 1);
    assert.equal(got.probe.audio?.codec, 'aac');
    assert.equal(got.probe.audio?.channels, 2);
    assert.ok(Math.abs((got.probe.audio?.durationSeconds ?? 0) - got.probe.durationSeconds) <= 1 / 24);
    assert.ok(Math.abs((got.lufs ?? -99) - TARGET_LUFS) <= 1, `loudness ${got.lufs} LUFS`);
  };

  it('GET /v1/models shows each model’s sound and the sound price', async () => {
    const models = await client.get('/v1/models');
    const byId = Object.fromEntries(models.body.data.map((m: any) => [m.id, m]));
    assert.deepEqual(byId['snd-a'].sound, { mode: 'optional', default: false });
    assert.deepEqual(byId['snd-b'].sound, { mode: 'optional', default: true });
    assert.deepEqual(byId['mute-a'].sound, { mode: 'none' });
    assert.deepEqual(byId['mute-b'].sound, { mode: 'none' });
    assert.deepEqual(byId['loud-a'].sound, { mode: 'always' });
    assert.equal(byId['snd-a'].pricing.sound_usd_ticks_per_second, SOUND_TICKS);
  });

  it('family A: generate_audio true gives loudness-normalised stereo AAC, priced with sound', async () => {
    const task = await doneA({ model: 'snd-a', generate_audio: true });
    assert.equal(task.video.has_audio, true);
    assertSound(await fetchVideo(task.video.url));
    assert.equal(task.usage.cost_in_usd_ticks, 2 * (TICKS_PER_SECOND + SOUND_TICKS));
  });

  it('family A: false (and the default here) gives no audio stream and no sound price', async () => {
    for (const body of [{ generate_audio: false }, {}]) {
      const task = await doneA({ model: 'snd-a', ...body });
      assert.equal(task.video.has_audio, false);
      assert.equal((await fetchVideo(task.video.url)).probe.audioStreams, 0);
      assert.equal(task.usage.cost_in_usd_ticks, 2 * TICKS_PER_SECOND);
    }
  });

  it('family A: a model whose sound is always makes it without being asked', async () => {
    const task = await doneA({ model: 'loud-a' });
    assert.equal(task.video.has_audio, true);
    assertSound(await fetchVideo(task.video.url));
  });

  it('family B: generate_audio as an extension field, has_audio in the answer', async () => {
    for (const [body, sound] of [
      [{ generate_audio: true }, true],
      [{}, true],
      [{ generate_audio: false }, false],
    ] as const) {
      const task = await doneB({ model: 'snd-b', ...body });
      assert.equal(task.has_audio, sound);
      const got = await fetchVideo(new URL(task.result_url, svc.url).href, { authorization: `Bearer ${key}` });
      if (sound) assertSound(got);
      else assert.equal(got.probe.audioStreams, 0);
      assert.equal(task.usage.cost_in_usd_ticks, 2 * (TICKS_PER_SECOND + (sound ? SOUND_TICKS : 0)));
    }
  });

  it('the usage report splits the seconds with sound from the rest', async () => {
    const usage = await client.get('/v1/usage');
    assert.equal(usage.status, 200, JSON.stringify(usage.body));
    const row = usage.body.data.find((r: any) => r.model === 'snd-a');
    // Above: one 2 s task of snd-a with sound, two without.
    assert.deepEqual([row.tasks, row.sound_tasks, row.seconds, row.sound_seconds], [3, 1, 6, 2]);
    assert.equal(row.cost_in_usd_ticks, 6 * TICKS_PER_SECOND + 2 * SOUND_TICKS);
  });

  it('OpenAI Videos: generate_audio (JSON, and multipart text) gives sound and has_audio; none without it', async () => {
    const done = async (body: Record<string, unknown> | FormData) => {
      const res = await fetch(`${svc.url}/v1/videos`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }),
        },
        body: body instanceof FormData ? body : JSON.stringify(body),
      });
      const created = await res.json();
      assert.equal(res.status, 200, JSON.stringify(created));
      const video = await pollUntil(
        () => client.get(`/v1/videos/${created.id}`),
        (a) => a.body.status === 'completed' || a.body.status === 'failed',
      );
      assert.equal(video.body.status, 'completed', JSON.stringify(video.body));
      return video.body;
    };
    const base = { model: 'snd-o', prompt: 'rain on a window', seconds: '2', size: '256x144' };
    const loud = await done({ ...base, generate_audio: true });
    assert.equal(loud.has_audio, true);
    assertSound(await fetchVideo(`${svc.url}/v1/videos/${loud.id}/content`, { authorization: `Bearer ${key}` }));
    const form = new FormData();
    for (const [name, value] of Object.entries({ ...base, generate_audio: 'false' })) form.append(name, value);
    const quiet = await done(form);
    assert.equal(quiet.has_audio, false);
    const got = await fetchVideo(`${svc.url}/v1/videos/${quiet.id}/content`, { authorization: `Bearer ${key}` });
    assert.equal(got.probe.audioStreams, 0);
    const refused = await client.post('/v1/videos', { ...base, model: 'mute-o', generate_audio: true });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.equal(refused.body.error.param, 'generate_audio');
  });

  it('asking a model for sound it cannot make is a 400 naming generate_audio, and writes nothing', async () => {
    const cases = [
      ['/v1/videos/generations', { model: 'mute-a', generate_audio: true, duration: 1 }],
      ['/v1/videos/generations', { model: 'loud-a', generate_audio: false, duration: 1 }],
      ['/v1/video/generations', { model: 'mute-b', generate_audio: true }],
      ['/v1/videos/generations', { model: 'snd-a', generate_audio: 'yes', duration: 1 }],
    ] as const;
    const before = await client.get('/v1/videos?limit=100');
    for (const [path, body] of cases) {
      const res = await client.post(path, { prompt: 'rain', ...body });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.error.param ?? res.body.error.message, /generate_audio/);
      if (typeof body.generate_audio === 'boolean') assert.equal(res.body.error.code, 'unsupported_audio');
    }
    const after = await client.get('/v1/videos?limit=100');
    assert.equal(after.body.data.length, before.body.data.length);
  });
});
