import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NodeVidgenClient,
  BadRequestError,
  type FamilyAInputs,
  type FamilyAKeyframe,
} from '../../packages/client/src/node/index.ts';
import { startTestService, type TestService } from './support/service.ts';
import { decodedFrames, framed, picture } from './support/anchor-pictures.ts';
import { psnr } from '../../packages/server/test/support/colour-analysis.ts';

// The SDK's input types at run time, against a real server: a family A generation composed of an
// uploaded first frame, a last frame as a data URI and a keyframe, built with the exported types,
// rendered by the built-in renderer and checked in the MP4 by PSNR (docs/inputs.md: >= 25 dB for
// the first and last frames, >= 22 dB for a keyframe).
describe('SDK: every family A input, typed, through a real server', () => {
  const [W, H] = [854, 480];
  let svc: TestService;
  let dir: string;
  let client: NodeVidgenClient;
  before(async () => {
    svc = await startTestService();
    dir = await mkdtemp(join(tmpdir(), 'vidgen-sdk-inputs-'));
    client = new NodeVidgenClient({ baseURL: svc.url, apiKey: await svc.createKey('sdk-inputs') });
  });
  after(async () => {
    await svc?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('first frame as an upload, last frame and a keyframe: the MP4 passes through each picture', async () => {
    const [first, last, key] = await Promise.all([
      picture('#1040c0', '#f0d020'),
      picture('#c02040', '#20e0a0'),
      picture('#302020', '#e0e0f0'),
    ]);
    const upload = await client.files.create({
      file: new Blob([new Uint8Array(first)], { type: 'image/png' }),
      filename: 'first.png',
      purpose: 'vision',
    });
    const keyframe: FamilyAKeyframe = {
      image: { url: `data:image/png;base64,${key.toString('base64')}` },
      timestamp_s: 1,
    };
    const inputs: FamilyAInputs = {
      image: { file_id: upload.id },
      last_frame: { url: `data:image/png;base64,${last.toString('base64')}` },
      keyframes: [keyframe],
    };
    const created = await client.videos.generate({
      model: 'grok-imagine-video-1.5',
      prompt: 'a slow push in',
      duration: 2,
      aspect_ratio: '16:9',
      resolution: '480p',
      ...inputs,
    });
    const task = await client.videos.wait(created.request_id, { intervalMs: 200, maxWaitMs: 300_000 });
    assert.equal(task.status, 'done');
    const saved = await client.download({ family: 'A', task }, { path: join(dir, 'inputs.mp4') });
    const frames = await decodedFrames(saved.path, W, H);
    assert.equal(frames.length, 48);
    const at = Math.round((1 / 2) * (frames.length - 1));
    const checks: Array<[string, Buffer, number, number]> = [
      ['first frame', frames[0], 0, 25],
      ['keyframe', frames[at], 2, 22],
      ['last frame', frames[47], 1, 25],
    ];
    const pictures = [first, last, key];
    for (const [what, frame, which, floor] of checks) {
      const db = psnr(frame, await framed(pictures[which], W, H));
      assert.ok(db >= floor, `${what}: ${db.toFixed(1)} dB`);
    }
  });

  it('an input the model does not take is a BadRequestError naming the field', async () => {
    const inputs: FamilyAInputs = {
      image: { url: 'https://example.com/first.png' },
      last_frame: { url: 'https://example.com/last.png' },
    };
    await assert.rejects(
      client.videos.generate({ model: 'vx-imagine-video-1.5-720p', prompt: 'p', duration: 3, ...inputs }),
      (err: unknown) =>
        err instanceof BadRequestError && err.code === 'unsupported_input' && err.param === 'last_frame',
    );
  });
});
