/**
 * Every input role reaches each upstream in that upstream's own field, checked in what its
 * stand-in recorded (each stand-in follows its upstream's code and docs, and refuses what it
 * refuses); a channel that cannot take a task's inputs is never picked.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { JobInput } from '../../src/generators/generator.ts';
import { parseRelayBackend } from '../../src/generators/relay/relay-config.ts';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { context, failure, job, relayOf, type RawChannel } from '../support/relay-fixtures.ts';
import { XaiStandin } from '../support/xai-standin.ts';
import { VeoStandin } from '../support/veo-standin.ts';
import { VllmOmniStandin } from '../support/vllm-omni-standin.ts';
import { NewApiStandin } from '../support/newapi-standin.ts';
import { FalStandin, ReplicateStandin } from '../support/hosted-standins.ts';

const bins = resolveFfmpegBinaries({});
const run = promisify(execFile);
const env = { KEY: 'sk-inputs-test-0001' };
const XAI_MODEL = 'grok-imagine-video-1.5';
const b64 = async (path: string) => (await readFile(path)).toString('base64');
const uri = async (path: string, type = 'image/png') => `data:${type};base64,${await b64(path)}`;

describe("relay inputs in each upstream's own fields", () => {
  let root: string;
  const file: Record<string, string> = {};
  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-inputs-'));
    // Distinct pictures, so each field can be matched to the input it came from.
    for (const [i, name] of ['first', 'last', 'k1', 'k2', 'r1', 'r2', 'r3'].entries()) {
      file[name] = join(root, `${name}.png`);
      await sharp({ create: { width: 32 + i, height: 18, channels: 3, background: { r: 30 * i, g: 90, b: 200 } } })
        .png()
        .toFile(file[name]);
    }
    file.audio = join(root, 'voice.wav');
    await run(bins.ffmpeg, ['-v', 'error', '-f', 'lavfi', '-i', 'sine=f=440:d=1', file.audio]);
    file.video = join(root, 'motion.mp4');
    await run(bins.ffmpeg, [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=64x36:rate=24', '-t', '1'],
      ...['-pix_fmt', 'yuv420p', file.video],
    ]);
  });
  after(() => rm(root, { recursive: true, force: true }));

  const inputs = (...list: Array<[JobInput['role'], string, number?]>): JobInput[] =>
    list.map(([role, name, atSeconds]) => ({ role, path: file[name], ...(atSeconds ? { atSeconds } : {}) }));
  const withInputs = (list: JobInput[], extra: Record<string, unknown> = {}) =>
    job('A', {
      images: list.filter((i) => i.role === 'first_frame').map((i) => i.path),
      inputs: list,
      ...extra,
    });
  const base = (dialect: string, url: string, models: Record<string, string>, extra: RawChannel = {}): RawChannel => ({
    dialect,
    base_url: url,
    api_key_env: 'KEY',
    models,
    poll_interval_seconds: 0.05,
    ...extra,
  });

  it('xAI: last_frame, keyframes, reference_images and reference_audios, each as xAI names them', async () => {
    const xai = await XaiStandin.start({ key: env.KEY, models: [XAI_MODEL, 'grok-imagine-video'] });
    try {
      const relay = relayOf([base('A', `${xai.url}/v1`, { ours: XAI_MODEL })], env);
      const list = inputs(
        ['first_frame', 'first'],
        ['last_frame', 'last'],
        ['keyframe', 'k1', 0.25],
        ['keyframe', 'k2', 0.75],
        ['reference_image', 'r1'],
        ['reference_image', 'r2'],
        ['reference_audio', 'audio'],
      );
      await relay.generate(withInputs(list, { model: 'ours', width: 854, height: 480 }), (await context(root)).ctx);
      const body = xai.jobs.at(-1)!.body;
      assert.equal(body.image.url, await uri(file.first));
      assert.equal(body.last_frame.url, await uri(file.last));
      assert.deepEqual(body.keyframes, [
        { image: { url: await uri(file.k1) }, timestamp_s: 0.25 },
        { image: { url: await uri(file.k2) }, timestamp_s: 0.75 },
      ]);
      assert.deepEqual(body.reference_images, [{ url: await uri(file.r1) }, { url: await uri(file.r2) }]);
      assert.deepEqual(body.reference_audios, [{ url: await uri(file.audio, 'audio/wav') }]);
      // As xAI does, the stand-in refuses a last frame for a model that has none.
      const refused = await fetch(`${xai.url}/v1/videos/generations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'grok-imagine-video', prompt: 'x', last_frame: { url: body.image.url } }),
      });
      assert.equal(refused.status, 400);
    } finally {
      await xai.close();
    }
  });

  it('Veo: lastFrame beside image, and referenceImages as base64 "asset" images without frames', async () => {
    const MODEL = 'veo-3.1-generate-preview';
    const veo = await VeoStandin.start({ key: env.KEY, models: [MODEL] });
    try {
      const relay = relayOf([base('veo', `${veo.url}/v1beta`, { ours: MODEL })], env);
      const shape = { model: 'ours', width: 1280, height: 720, duration: 4 };
      await relay.generate(
        withInputs(inputs(['first_frame', 'first'], ['last_frame', 'last']), shape),
        (await context(root)).ctx,
      );
      const frames = veo.operations.at(-1)!.body.instances[0];
      assert.deepEqual(frames.image, { bytesBase64Encoded: await b64(file.first), mimeType: 'image/png' });
      assert.deepEqual(frames.lastFrame, { bytesBase64Encoded: await b64(file.last), mimeType: 'image/png' });
      await relay.generate(
        withInputs(inputs(['reference_image', 'r1'], ['reference_image', 'r2'], ['reference_image', 'r3']), shape),
        (await context(root)).ctx,
      );
      const refs = veo.operations.at(-1)!.body.instances[0];
      assert.equal(refs.image, undefined);
      assert.deepEqual(
        refs.referenceImages,
        await Promise.all(
          ['r1', 'r2', 'r3'].map(async (n) => ({
            image: { bytesBase64Encoded: await b64(file[n]), mimeType: 'image/png' },
            referenceType: 'asset',
          })),
        ),
      );
      // A first frame with references: no Veo channel takes it, so it never reaches Veo.
      const before = veo.operations.length;
      const mixed = withInputs(inputs(['first_frame', 'first'], ['reference_image', 'r1']), shape);
      assert.equal((await failure(relay.generate(mixed, (await context(root)).ctx))).code, 'invalid_input');
      assert.equal(veo.operations.length, before);
    } finally {
      await veo.close();
    }
  });

  it('vLLM-Omni: input_reference, video_reference and audio_reference as multipart files', async () => {
    const omni = await VllmOmniStandin.start({ key: env.KEY });
    try {
      const channel = base('openai', omni.url, { ours: 'Wan-AI/Wan2.2-TI2V-5B-Diffusers' }, { upstream: 'vllm-omni' });
      const relay = relayOf([channel], env);
      const list = inputs(['first_frame', 'first'], ['reference_video', 'video'], ['reference_audio', 'audio']);
      await relay.generate(withInputs(list, { model: 'ours', width: 256, height: 144 }), (await context(root)).ctx);
      const fields = omni.jobs.at(-1)!.fields;
      assert.deepEqual(
        [fields.input_reference.type, fields.input_reference.file],
        ['image/png', await readFile(file.first)],
      );
      assert.deepEqual(
        [fields.video_reference.type, fields.video_reference.file],
        ['video/mp4', await readFile(file.video)],
      );
      assert.deepEqual(
        [fields.audio_reference.type, fields.audio_reference.file],
        ['audio/wav', await readFile(file.audio)],
      );
    } finally {
      await omni.close();
    }
  });

  it('new-api: images with the references after the first frame, and last_frame where it keeps it (metadata)', async () => {
    const gateway = await NewApiStandin.start({ key: env.KEY, models: ['video-v1'] });
    try {
      const declared = { inputs: { last_frame: true, reference_images: 2 } };
      const relay = relayOf([base('B', gateway.url, { ours: 'video-v1' }, declared)], env);
      const list = inputs(
        ['first_frame', 'first'],
        ['reference_image', 'r1'],
        ['reference_image', 'r2'],
        ['last_frame', 'last'],
      );
      await relay.generate(
        withInputs(list, { model: 'ours', width: 1280, height: 720, duration: 5 }),
        (await context(root)).ctx,
      );
      const decoded = gateway.tasks.at(-1)!.decoded;
      assert.deepEqual(decoded.images, await Promise.all(['first', 'r1', 'r2'].map((n) => uri(file[n]))));
      assert.equal(decoded.metadata.last_frame, await uri(file.last));
      // Undeclared, a new-api channel takes the first frame only: a last frame is never sent there to be dropped.
      const plain = relayOf([base('B', gateway.url, { ours: 'video-v1' })], env);
      const sent = gateway.tasks.length;
      const task = withInputs(inputs(['first_frame', 'first'], ['last_frame', 'last']), { model: 'ours' });
      assert.equal((await failure(plain.generate(task, (await context(root)).ctx))).code, 'invalid_input');
      assert.equal(gateway.tasks.length, sent);
    } finally {
      await gateway.close();
    }
  });

  it('fal and Replicate: the input template places each role where the model wants it', async () => {
    const schema = {
      end_image_url: 'url',
      keyframes: 'keyframes',
      reference_image_urls: 'urls',
      audio_urls: 'urls',
    } as const;
    const fal = await FalStandin.start({ key: 'fal-id:secret', models: ['fal-ai/some-model/refs'], schema });
    const replicate = await ReplicateStandin.start({ key: env.KEY, models: ['owner/refs'], schema });
    try {
      const input = {
        prompt: '{{prompt}}',
        image_url: '{{image}}',
        end_image_url: '{{last_frame}}',
        keyframes: '{{keyframes}}',
        reference_image_urls: '{{reference_images}}',
        audio_urls: '{{reference_audios}}',
        duration: '{{duration}}',
        aspect_ratio: '{{ratio}}',
      };
      const list = inputs(
        ['first_frame', 'first'],
        ['last_frame', 'last'],
        ['keyframe', 'k1', 2.5],
        ['reference_image', 'r1'],
        ['reference_audio', 'audio'],
      );
      for (const [host, channel] of [
        [fal, base('fal', fal.url, { ours: 'fal-ai/some-model/refs' }, { input, api_key_env: 'FAL' })],
        [replicate, base('replicate', replicate.url, { ours: 'owner/refs' }, { input })],
      ] as const) {
        const relay = relayOf([channel], { ...env, FAL: 'fal-id:secret' });
        const task = withInputs(list, { model: 'ours', width: 1280, height: 720, duration: 5 });
        await relay.generate(task, (await context(root)).ctx);
        const sent = host.jobs.at(-1)!.input;
        assert.equal(sent.image_url, await uri(file.first));
        assert.equal(sent.end_image_url, await uri(file.last));
        assert.deepEqual(sent.keyframes, [{ image_url: await uri(file.k1), timestamp_s: 2.5 }]);
        assert.deepEqual(sent.reference_image_urls, [await uri(file.r1)]);
        assert.deepEqual(sent.audio_urls, [await uri(file.audio, 'audio/wav')]);
      }
    } finally {
      await fal.close();
      await replicate.close();
    }
  });

  it("routing skips a channel that cannot take the task's inputs, and a task none can take gets none", async () => {
    const [first, second] = [
      await XaiStandin.start({ key: env.KEY, models: [XAI_MODEL] }),
      await XaiStandin.start({ key: env.KEY, models: [XAI_MODEL] }),
    ];
    try {
      const relay = relayOf(
        [
          base(
            'A',
            `${first.url}/v1`,
            { ours: XAI_MODEL },
            { priority: 10, inputs: { last_frame: false, keyframes: 0 } },
          ),
          base('A', `${second.url}/v1`, { ours: XAI_MODEL }, { inputs: { reference_audios: 0 } }),
        ],
        env,
      );
      const shape = { model: 'ours', width: 854, height: 480 };
      await relay.generate(withInputs(inputs(['first_frame', 'first']), shape), (await context(root)).ctx);
      assert.deepEqual([first.jobs.length, second.jobs.length], [1, 0], 'the preferred channel takes a first frame');
      await relay.generate(
        withInputs(inputs(['first_frame', 'first'], ['last_frame', 'last']), shape),
        (await context(root)).ctx,
      );
      assert.deepEqual([first.jobs.length, second.jobs.length], [1, 1], 'only the second takes a last frame');
      const none = withInputs(inputs(['last_frame', 'last'], ['reference_audio', 'audio']), shape);
      assert.equal((await failure(relay.generate(none, (await context(root)).ctx))).code, 'invalid_input');
      const creates = (s: XaiStandin) => s.requests.filter((r) => r.method === 'POST').length;
      assert.deepEqual([creates(first), creates(second)], [1, 1], 'no channel was asked');
      assert.deepEqual(
        relay.inputsFor('ours').map((i) => i.last_frame),
        [false, true],
      );
    } finally {
      await first.close();
      await second.close();
    }
  });

  it("a channel's inputs default from its upstream and are checked at start, naming the field", () => {
    const parse = (c: RawChannel) => parseRelayBackend({ channels: [c] }, env).channels[0].inputs;
    const at = (dialect: string, extra: RawChannel = {}) =>
      parse(base(dialect, 'http://127.0.0.1:9', { m: 'x' }, extra));
    assert.deepEqual([at('A').keyframes, at('A').reference_images, at('A').reference_audios], [4, 7, 3]);
    assert.deepEqual([at('B').last_frame, at('B').reference_images], [false, 0]);
    assert.deepEqual(
      [at('B', { upstream: 'vidgen' }).last_frame, at('B', { upstream: 'vidgen' }).reference_images],
      [true, 7],
    );
    assert.deepEqual(at('veo').exclusive, [
      ['reference_images', 'first_frame'],
      ['reference_images', 'last_frame'],
    ]);
    assert.equal(at('openai', { upstream: 'vllm-omni' }).reference_videos, 1);
    assert.equal(at('fal', { input: { prompt: '{{prompt}}', tail: '{{last_frame}}' } }).last_frame, true);
    assert.equal(at('fal').last_frame, false);
    assert.throws(() => at('A', { inputs: { keyframe: 2 } }), /channels\[0\]: "inputs.keyframe" is not an input/);
    assert.throws(() => at('A', { inputs: { last_frame: 1 } }), /"inputs.last_frame" must be true or false/);
    assert.throws(() => at('A', { inputs: { exclusive: [['last_frame']] } }), /"inputs.exclusive\[0\]"/);
  });
});
