import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { CLIP, decodeRgb, frameDistance, startVideoServer } from './support/video-server.ts';

// POST /v1/videos/edits end to end: each kind of edit on a real clip served from loopback, checked
// in the decoded frames (colour, blur, timing, crop), always keeping the input's length.
describe('edits journey', () => {
  let svc: TestService;
  let videos: Awaited<ReturnType<typeof startVideoServer>>;
  let client: Api;
  let input: Buffer[];
  const FRAMES = CLIP.seconds * CLIP.fps;

  before(async () => {
    svc = await startTestService();
    videos = await startVideoServer();
    client = api(svc.url, await svc.createKey('editor'));
    input = await decodeRgb(videos.clip, CLIP.width, CLIP.height);
    assert.equal(input.length, FRAMES);
  });
  after(async () => {
    await svc.close();
    await videos.close();
  });

  /** Submits an edit, waits for it to end, and returns the final poll answer. */
  async function edit(prompt: string, video: Record<string, string> = { url: `${videos.url}/clip.mp4` }) {
    const submit = await client.post('/v1/videos/edits', { model: 'vx-imagine-video-edit', prompt, video });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    assert.deepEqual(Object.keys(submit.body), ['request_id']);
    return pollUntil(
      () => client.get(`/v1/videos/${submit.body.request_id}`),
      (a) => a.body.status !== 'pending',
    );
  }

  /** The edit's frames, after checking it is an H.264 MP4 of `size` as long as the input. */
  async function edited(prompt: string, size = [CLIP.width, CLIP.height]) {
    const done = await edit(prompt);
    assert.equal(done.body.status, 'done', JSON.stringify(done.body));
    assert.equal(done.body.model, 'vx-imagine-video-edit');
    const { probe, bytes } = await downloadAndProbe(done.body.video.url);
    assert.deepEqual([probe.codec, probe.pixelFormat, probe.width, probe.height], ['h264', 'yuv420p', ...size]);
    assert.ok(
      Math.abs(probe.durationSeconds - CLIP.seconds) <= 1 / CLIP.fps + 0.01,
      `lasts ${probe.durationSeconds} s`,
    );
    const frames = await decodeRgb(bytes, size[0], size[1]);
    assert.equal(frames.length, FRAMES);
    return frames;
  }

  it('black and white: every frame is grey', async () => {
    const frames = await edited('make it black and white');
    assert.ok(maxChroma(input[10]) > 100, 'the input is colourful');
    for (const i of [0, 24, 47]) assert.ok(maxChroma(frames[i]) <= 8, `frame ${i} has colour ${maxChroma(frames[i])}`);
  });

  it('colour grades: warm is warmer, cool is cooler, vintage and teal-orange change the look', async () => {
    const balance = (f: Buffer) => meanChannel(f, 0) - meanChannel(f, 2);
    const warm = await edited('warm colour grade');
    const cool = await edited('cooler tones');
    assert.ok(balance(warm[5]) > balance(input[5]) + 4, `warm: ${balance(warm[5])} vs ${balance(input[5])}`);
    assert.ok(balance(cool[5]) < balance(input[5]) - 4, `cool: ${balance(cool[5])} vs ${balance(input[5])}`);
    for (const look of ['vintage film look', 'teal and orange blockbuster grade']) {
      const frames = await edited(look);
      assert.ok(frameDistance(frames[5], input[5]) > 4, `${look} left the picture unchanged`);
    }
  });

  it('blur: the picture loses its fine detail', async () => {
    const frames = await edited('blur it heavily');
    assert.ok(
      sharpness(frames[12]) < 0.3 * sharpness(input[12]),
      `${sharpness(frames[12])} vs ${sharpness(input[12])}`,
    );
  });

  it('reverse: the first frame is the last and the last the first', async () => {
    const frames = await edited('play it in reverse');
    assert.ok(
      frameDistance(frames[0], input[FRAMES - 1]) < 6,
      `first vs input last ${frameDistance(frames[0], input[FRAMES - 1])}`,
    );
    assert.ok(frameDistance(frames[FRAMES - 1], input[0]) < 6);
    assert.ok(frameDistance(frames[0], input[0]) > 10, 'the output is not the input');
  });

  it('slow motion: the first half, twice as slow; time-lapse: twice as fast, twice over', async () => {
    const slow = await edited('slow motion');
    const fast = await edited('speed it up, time-lapse');
    for (const k of [4, 10, 20]) {
      assert.ok(
        frameDistance(slow[2 * k], input[k]) < 6,
        `slow frame ${2 * k} vs input ${k}: ${frameDistance(slow[2 * k], input[k])}`,
      );
      assert.ok(frameDistance(fast[k], input[2 * k]) < 6, `fast frame ${k} vs input ${2 * k}`);
      assert.ok(frameDistance(fast[24 + k], input[2 * k]) < 6, `fast frame ${24 + k} loops back to input ${2 * k}`);
    }
  });

  it('crop to 9:16 keeps the middle of the picture at full height', async () => {
    const frames = await edited('crop to 9:16', [100, 180]);
    // Column 0 of the crop is column 110 of the input: (320 - 100) / 2.
    const column = (f: Buffer, width: number, x: number) =>
      Array.from({ length: CLIP.height }, (_, y) => f[(y * width + x) * 3]);
    const diff =
      column(frames[6], 100, 50).reduce((s, v, y) => s + Math.abs(v - column(input[6], CLIP.width, 160)[y]), 0) /
      CLIP.height;
    assert.ok(diff < 8, `middle column differs by ${diff}`);
  });

  it('odd-sized input: the output is its even-sided picture', async () => {
    const done = await edit('sepia', { url: `${videos.url}/odd.mp4` });
    assert.equal(done.body.status, 'done', JSON.stringify(done.body));
    const { probe } = await downloadAndProbe(done.body.video.url);
    assert.deepEqual([probe.width, probe.height, probe.pixelFormat], [320, 180, 'yuv420p']);
  });

  it('fails clearly, and for good, when the input or the prompt cannot be used', async () => {
    const cases: Array<[string, Record<string, string>, string, RegExp]> = [
      [
        'make it black and white',
        { url: `${videos.url}/missing.mp4` },
        'video_unreachable',
        /could not be fetched by the server: The video URL answered with HTTP status 404/,
      ],
      ['make it black and white', { url: `${videos.url}/text.mp4` }, 'video_invalid', /not an MP4/],
      [
        'a nice day at the beach',
        { url: `${videos.url}/clip.mp4` },
        'edit_not_understood',
        /black and white.*crop to a ratio/,
      ],
    ];
    for (const [prompt, video, code, message] of cases) {
      const end = await edit(prompt, video);
      assert.equal(end.body.status, 'failed', JSON.stringify(end.body));
      assert.equal(end.body.error.code, code);
      assert.match(end.body.error.message, message);
    }
  });
});

/** Largest difference between colour channels over the frame: 0 for a perfectly grey picture. */
function maxChroma(rgb: Buffer): number {
  let max = 0;
  for (let i = 0; i < rgb.length; i += 3)
    max = Math.max(max, Math.abs(rgb[i] - rgb[i + 1]), Math.abs(rgb[i + 1] - rgb[i + 2]));
  return max;
}

function meanChannel(rgb: Buffer, channel: number): number {
  let sum = 0;
  for (let i = channel; i < rgb.length; i += 3) sum += rgb[i];
  return sum / (rgb.length / 3);
}

/** Mean squared difference between horizontal neighbours: edge energy, which a blur spreads thin. */
function sharpness(rgb: Buffer): number {
  let sum = 0;
  for (let i = 3; i < rgb.length; i++) sum += (rgb[i] - rgb[i - 3]) ** 2;
  return sum / rgb.length;
}

// `seed` travels from the wire to the renderer: same prompt and seed, same bytes; another seed, another video.
describe('text-to-video seed on the wire', () => {
  let svc: TestService;
  let client: Api;
  let key: string;
  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('seeds');
    client = api(svc.url, key);
  });
  after(() => svc.close());

  it('family B passes `seed` through', async () => {
    const render = async (seed: number) => {
      const submit = await client.post('/v1/video/generations', {
        model: 'video-v1-5s',
        prompt: 'a forest lake at dawn',
        ratio: '1:1',
        seed,
      });
      const done = await pollUntil(
        () => client.get(`/v1/video/generations/${submit.body.task_id}`),
        (a) => a.body.status === 'SUCCESS' || a.body.status === 'FAILURE',
      );
      assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
      return (await downloadAndProbe(`${svc.url}${done.body.result_url}`, { authorization: `Bearer ${key}` })).bytes;
    };
    const [a, b, c] = [await render(11), await render(11), await render(12)];
    assert.ok(a.equals(b), 'the same seed gave another video');
    assert.ok(!a.equals(c), 'another seed gave the same video');
  });
});
