/**
 * Sound through the relays: each upstream is asked for it the way it takes it (xAI and a vidgen
 * upstream `generate_audio`, new-api by passing the same field through, fal and Replicate through
 * the channel's input template), and what comes back is checked by the same rule as every output.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFfmpegBinaries } from '../../src/media/ffmpeg-binaries.ts';
import { OutputRejected, verifyVideo } from '../../src/media/video-probe.ts';
import { renderInputTemplate } from '../../src/generators/relay/relay-input-template.ts';
import { unknownPlaceholders } from '../../src/generators/relay/input-placeholders.ts';
import { context, job, relayOf, type RawChannel } from '../support/relay-fixtures.ts';
import { XaiStandin } from '../support/xai-standin.ts';
import { NewApiStandin } from '../support/newapi-standin.ts';

const bins = resolveFfmpegBinaries({});
const env = { XAI_KEY: 'xai-test-key-0001', NEWAPI_KEY: 'sk-newapi-test-0001' };
const shape = { width: 854, height: 480, durationSeconds: 2, fps: 24 };

describe('relay sound', () => {
  let xai: XaiStandin;
  let newApi: NewApiStandin;
  let root: string;
  before(async () => {
    xai = await XaiStandin.start({ key: env.XAI_KEY, models: ['grok-imagine-video'] });
    newApi = await NewApiStandin.start({ key: env.NEWAPI_KEY, models: ['video-v1'] });
    root = await mkdtemp(join(tmpdir(), 'vidgen-relay-sound-'));
  });
  after(async () => {
    await xai?.close();
    await newApi?.close();
    await rm(root, { recursive: true, force: true });
  });
  const xaiChannel: () => RawChannel = () => ({
    ...{ name: 'xai', dialect: 'A', base_url: `${xai.url}/v1`, api_key_env: 'XAI_KEY' },
    ...{ models: { ours: 'grok-imagine-video' }, poll_interval_seconds: 0.05 },
  });
  const relayJob = (audio: boolean) => job('A', { model: 'ours', width: 854, height: 480, duration: 2, audio });

  it('xAI: generate_audio asked, and the sound that comes back passes the check', async () => {
    const r = await context(root);
    const out = await relayOf([xaiChannel()], env).generate(relayJob(true), r.ctx);
    assert.equal(xai.jobs.at(-1)!.body.generate_audio, true);
    const probe = await verifyVideo(bins.ffprobe, out.path, { ...shape, audio: true }, bins.ffmpeg);
    assert.equal(probe.audioStreams, 1);
  });

  it('xAI: generate_audio false is sent as such, and a silent video passes; asked sound that is missing does not', async () => {
    const r = await context(root);
    const out = await relayOf([xaiChannel()], env).generate(relayJob(false), r.ctx);
    assert.equal(xai.jobs.at(-1)!.body.generate_audio, false);
    await verifyVideo(bins.ffprobe, out.path, { ...shape, audio: false }, bins.ffmpeg);
    await assert.rejects(verifyVideo(bins.ffprobe, out.path, { ...shape, audio: true }, bins.ffmpeg), OutputRejected);
  });

  it('new-api: the field is passed through to the gateway', async () => {
    const channel: RawChannel = {
      ...{ name: 'newapi', dialect: 'B', base_url: newApi.url, api_key_env: 'NEWAPI_KEY' },
      ...{ models: { ours: 'video-v1' }, poll_interval_seconds: 0.05 },
    };
    const r = await context(root);
    await relayOf([channel], env)
      .generate(job('B', { model: 'ours', width: 854, height: 480, duration: 2, audio: true }), r.ctx)
      .catch(() => undefined);
    const sent = newApi.requests.find((q) => q.method === 'POST' && q.path === '/v1/video/generations');
    assert.equal(sent?.body.generate_audio, true);
  });

  it('fal and Replicate: {{generate_audio}} in a channel template is the boolean asked', () => {
    const template = { prompt: '{{prompt}}', generate_audio: '{{generate_audio}}' };
    assert.deepEqual(unknownPlaceholders(template), []);
    const payload = {
      ...{ kind: 'generate' as const, upstreamModel: 'fal-ai/veo3', prompt: 'rain', duration: 4, ratio: '16:9' },
      ...{ images: [], width: 1280, height: 720 },
    };
    assert.deepEqual(renderInputTemplate(template, { ...payload, audio: true }), {
      prompt: 'rain',
      generate_audio: true,
    });
    assert.deepEqual(renderInputTemplate(template, { ...payload, audio: false }).generate_audio, false);
    // A task from before sound existed asks nothing: the key is left out.
    assert.equal('generate_audio' in renderInputTemplate(template, payload), false);
  });
});
