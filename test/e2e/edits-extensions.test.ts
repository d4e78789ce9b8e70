import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeVidgenClient } from '../../packages/client/src/node/index.ts';
import { resolveFfmpegBinaries } from '../../packages/server/src/media/ffmpeg-binaries.ts';
import { probeVideo } from '../../packages/server/src/media/video-probe.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, finishedFamilyA, pollUntil, type Api } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { CLIP, decodeRgb, frameDistance, startVideoServer } from './support/video-server.ts';

const { ffprobe } = resolveFfmpegBinaries({});

// POST /v1/videos/extensions end to end: the input, then its last frame carried on by a camera
// move, as one seamless stream, from each kind of source: a URL, an uploaded MP4, a finished task.
describe('extensions journey', () => {
  let svc: TestService;
  let videos: Awaited<ReturnType<typeof startVideoServer>>;
  let client: Api;
  let sdk: NodeVidgenClient;
  let dir: string;
  let input: Buffer[];
  const FRAMES = CLIP.seconds * CLIP.fps;

  before(async () => {
    svc = await startTestService();
    videos = await startVideoServer();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-extend-'));
    const key = await svc.createKey('extender');
    client = api(svc.url, key);
    sdk = new NodeVidgenClient({ baseURL: svc.url, apiKey: key, journalDir: join(dir, 'journal') });
    input = await decodeRgb(videos.clip, CLIP.width, CLIP.height);
  });
  after(async () => {
    await svc.close();
    await videos.close();
    await rm(dir, { recursive: true, force: true });
  });

  const finished = (path: string, body: unknown) => finishedFamilyA(client, path, body);

  /** The extension's frames, after checking size, codec and length: the input's plus `seconds`. */
  async function extended(prompt: string, video: Record<string, string>, seconds: number, inputSeconds = CLIP.seconds) {
    const task = await finished('/v1/videos/extensions', {
      model: 'vx-imagine-video-extend',
      prompt,
      video,
      duration: seconds,
    });
    const { probe, bytes } = await downloadAndProbe(task.video.url);
    assert.deepEqual(
      [probe.codec, probe.pixelFormat, probe.width, probe.height],
      ['h264', 'yuv420p', CLIP.width, CLIP.height],
    );
    assert.ok(
      Math.abs(probe.durationSeconds - (inputSeconds + seconds)) <= 1 / CLIP.fps + 0.01,
      `lasts ${probe.durationSeconds} s`,
    );
    const frames = await decodeRgb(bytes, CLIP.width, CLIP.height);
    assert.equal(frames.length, (inputSeconds + seconds) * CLIP.fps);
    return { task, frames };
  }

  /** The join is seamless: the first new frame is nearly the last old one, closer than two input frames are. */
  function assertSeamless(frames: Buffer[]) {
    const seam = frameDistance(frames[FRAMES - 1], frames[FRAMES]);
    const step = frameDistance(input[FRAMES - 2], input[FRAMES - 1]);
    assert.ok(seam < 1.5 && seam < step, `seam ${seam.toFixed(2)}, input frame step ${step.toFixed(2)}`);
  }

  it('from a URL: the input unchanged, then a zoom in from its last frame', async () => {
    const { frames } = await extended('continue with a slow zoom in', { url: `${videos.url}/clip.mp4` }, 2);
    for (const i of [0, 20, FRAMES - 1])
      assert.ok(frameDistance(frames[i], input[i]) < 6, `frame ${i} differs from the input`);
    assertSeamless(frames);
    assert.ok(frameDistance(frames[frames.length - 1], frames[FRAMES]) > 5, 'the camera moved');
  });

  it('every camera move starts exactly on the last frame, a pull-back and a shake included', async () => {
    for (const prompt of [
      'zoom out to reveal more',
      'pan left',
      'orbit around the scene',
      'handheld camera shake',
      'zoom in while tilting up',
    ]) {
      const { frames } = await extended(prompt, { url: `${videos.url}/clip.mp4` }, 1);
      assertSeamless(frames);
    }
  });

  it('from an uploaded MP4 (file_id), with the SDK', async () => {
    const file = await sdk.files.create({ file: videos.clip, filename: 'clip.mp4' });
    assert.equal(file.mime_type, 'video/mp4');
    const { request_id } = await sdk.videos.extensions.create({
      model: 'vx-imagine-video-extend',
      prompt: 'pan right',
      video: { file_id: file.id },
      duration: 1,
    });
    const task = await sdk.videos.wait(request_id, { intervalMs: 200, maxWaitMs: 120_000 });
    const saved = await sdk.download({ family: 'A', task }, { path: join(dir, 'from-file.mp4') });
    const probe = await probeVideo(ffprobe, saved.path);
    assert.ok(Math.abs(probe.durationSeconds - 3) < 0.05, `lasts ${probe.durationSeconds} s`);
    assertSeamless(await decodeRgb(saved.path, CLIP.width, CLIP.height));
  });

  it('from a finished task (request_id): an edit, extended', async () => {
    const edit = await finished('/v1/videos/edits', {
      model: 'vx-imagine-video-edit',
      prompt: 'black and white',
      video: { url: `${videos.url}/clip.mp4` },
    });
    const editId = new URL(edit.video.url).pathname.split('/')[3];
    const { frames } = await extended('slow push in', { request_id: editId }, 3);
    const last = frames[frames.length - 1];
    for (let i = 0; i < last.length; i += 3 * 97)
      assert.ok(Math.abs(last[i] - last[i + 2]) <= 8, 'the extension of a grey video stays grey');
  });

  it('a generation, extended, then edited, each by request_id: `video.duration` adds up', async () => {
    const b = await client.post('/v1/video/generations', {
      model: 'video-v1-5s',
      prompt: 'a lighthouse at night',
      ratio: '1:1',
    });
    const source = await pollUntil(
      () => client.get(`/v1/video/generations/${b.body.task_id}`),
      (a) => a.body.status === 'SUCCESS' || a.body.status === 'FAILURE',
    );
    assert.equal(source.body.status, 'SUCCESS');
    const extendedTask = await finished('/v1/videos/extensions', {
      model: 'vx-imagine-video-extend',
      prompt: 'pan left',
      video: { request_id: b.body.task_id },
      duration: 1,
    });
    assert.equal(extendedTask.video.duration, 6);
    const id = new URL(extendedTask.video.url).pathname.split('/')[3];
    const reversed = await finished('/v1/videos/edits', {
      model: 'vx-imagine-video-edit',
      prompt: 'reverse it',
      video: { request_id: id },
    });
    assert.equal(reversed.video.duration, 6);
    const { probe } = await downloadAndProbe(reversed.video.url);
    assert.deepEqual([probe.width, probe.height], [720, 720]);
    assert.ok(Math.abs(probe.durationSeconds - 6) < 0.05);
  });
});
