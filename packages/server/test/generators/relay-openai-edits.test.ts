/**
 * A server of OpenAI's own Videos shape (LiteLLM, Dynamo, Unsloth, vidgen), against a stand-in
 * written from openai-node's `videos.ts` (test/support/openai-videos-standin.ts): the image as
 * `input_reference: {image_url}` in JSON or as a file part, and edits and extensions sent only to a
 * channel that offers them, the input MP4 as the multipart `video` file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { verifyVideo } from '../../src/media/video-probe.ts';
import { OpenAiVideosStandin } from '../support/openai-videos-standin.ts';
import { context, failure, job, relayOf, type RawChannel } from '../support/relay-fixtures.ts';

const bins = resolveFfmpegBinaries({});
const env = { OPENAI_SHAPE_KEY: 'sk-litellm-virtual-key' };
const channel = (url: string, extra: RawChannel = {}): RawChannel => ({
  name: 'litellm',
  dialect: 'openai',
  base_url: `${url}/v1`,
  api_key_env: 'OPENAI_SHAPE_KEY',
  models: { 'sora-720p': 'sora-2' },
  // Ten minutes: only the server's `openai-poll-after-ms` lets these tasks finish while the tests wait.
  poll_interval_seconds: 600,
  ...extra,
});

describe('relay to an OpenAI-shape server with edits and extensions', () => {
  let server: OpenAiVideosStandin;
  let root: string;
  let image: string;
  let input: string;
  before(async () => {
    server = await OpenAiVideosStandin.start({ key: env.OPENAI_SHAPE_KEY, seconds: ['2', '4'] });
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-openai-edits-'));
    image = join(root, 'first.png');
    await sharp({ create: { width: 64, height: 36, channels: 3, background: '#225533' } })
      .png()
      .toFile(image);
    input = await server.media.render(320, 180, 2);
  });
  after(async () => {
    await server?.close();
    await rm(root, { recursive: true, force: true });
  });

  const gen = () => job('A', { model: 'sora-720p', width: 1280, height: 720, duration: 2, images: [image] });
  const edit = (kind: 'edit' | 'extend', duration: number) =>
    job('A', {
      model: 'sora-720p',
      kind,
      width: 320,
      height: 180,
      duration,
      video: { path: input, width: 320, height: 180, durationSeconds: 2, frames: 48, frameRate: '24/1' },
    });

  it('the image goes as a file part by default, or as input_reference.image_url in JSON (multipart: "never")', async () => {
    for (const [extra, encoding] of [
      [{}, 'multipart'],
      [{ multipart: 'never' }, 'json'],
    ] as const) {
      const out = await relayOf([channel(server.url, extra)], env).generate(gen(), (await context(root)).ctx);
      await verifyVideo(bins.ffprobe, out.path, { width: 1280, height: 720, durationSeconds: 2, fps: 24 });
      const sent = server.jobs.at(-1)!;
      assert.equal(sent.encoding, encoding);
      assert.match(sent.id, /^video_[0-9a-f]{32}$/);
      if (encoding === 'json') assert.match(sent.fields.input_reference.image_url, /^data:image\/png;base64,/);
      else assert.equal(sent.fields.input_reference.type, 'image/png');
      assert.ok(!('fps' in sent.fields), 'no vLLM-only fields to a plain OpenAI-shape server');
    }
  });

  it('an edit and an extension go to /v1/videos/edits and /extensions as an uploaded MP4, one job each', async () => {
    const relay = relayOf([channel(server.url, { edits: true })], env);
    const edited = await relay.generate(edit('edit', 2), (await context(root)).ctx);
    await verifyVideo(bins.ffprobe, edited.path, { width: 320, height: 180, durationSeconds: 2, fps: 24 });
    const e = server.jobs.at(-1)!;
    assert.deepEqual([e.encoding, e.fields.video.type, e.fields.seconds], ['multipart', 'video/mp4', undefined]);
    assert.ok(server.requests.some((q) => q.method === 'POST' && q.path === '/v1/videos/edits'));
    const extended = await relay.generate(edit('extend', 4), (await context(root)).ctx);
    await verifyVideo(bins.ffprobe, extended.path, { width: 320, height: 180, durationSeconds: 6, fps: 24 });
    assert.equal(server.jobs.at(-1)!.fields.seconds, '4');
    assert.ok(server.requests.some((q) => q.method === 'POST' && q.path === '/v1/videos/extensions'));
  });

  it('a channel that does not offer edits is never sent one', async () => {
    const before = server.jobs.length;
    const err = await failure(relayOf([channel(server.url)], env).generate(edit('edit', 2), (await context(root)).ctx));
    assert.deepEqual([err.code, err.retryable], ['invalid_input', false]);
    assert.equal(server.jobs.length, before, 'nothing was sent');
  });
});
