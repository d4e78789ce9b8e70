import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inputsFitWithin, servedBy } from '../../src/domain/input-fit.ts';
import { FIRST_FRAME_ONLY, type ModelInputs } from '../../src/domain/task-inputs.ts';
import { parseRelayBackend } from '../../src/generators/relay/relay-config.ts';

const model = (over: Partial<ModelInputs>): ModelInputs => ({ ...FIRST_FRAME_ONLY, exclusive: [], ...over });
const channel = (dialect: string, extra: Record<string, unknown> = {}) =>
  parseRelayBackend(
    { channels: [{ dialect, base_url: 'http://127.0.0.1:9', api_key_env: 'K', models: { m: 'x' }, ...extra }] },
    { K: 'k' },
  ).channels[0].inputs;

describe("a model's inputs against its backend's", () => {
  it('fits within a channel that takes at least as much of every role', () => {
    const grok = model({ last_frame: true, keyframes: 4, reference_images: 7, reference_audios: 3 });
    assert.equal(inputsFitWithin(grok, channel('A')), true);
    assert.equal(inputsFitWithin(grok, channel('B')), false, 'new-api takes a first frame only by default');
    assert.equal(inputsFitWithin(model({ keyframes: 5 }), channel('A')), false);
  });

  it('keeps apart what the channel keeps apart: Veo references never with a frame', () => {
    const veo = channel('veo');
    assert.equal(inputsFitWithin(model({ last_frame: true, reference_images: 3 }), veo), false);
    const declared = model({
      last_frame: true,
      reference_images: 3,
      exclusive: [['reference_images', 'first_frame', 'last_frame']],
    });
    assert.equal(inputsFitWithin(declared, veo), true);
  });

  it('is served when one declaration of the backend takes it all, not pieces of several', () => {
    const lastOnly = channel('A', { inputs: { reference_images: 0, reference_audios: 0, keyframes: 0 } });
    const refsOnly = channel('A', { inputs: { last_frame: false, keyframes: 0 } });
    const both = model({ last_frame: true, reference_images: 2 });
    assert.equal(servedBy(both, [lastOnly, refsOnly]), false);
    assert.equal(servedBy(both, [lastOnly, channel('A')]), true);
    assert.equal(servedBy(FIRST_FRAME_ONLY, []), false, 'a model with no channel is served by none');
  });
});
