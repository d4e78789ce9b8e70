import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createModelCatalog } from '../../src/catalog/model-catalog.ts';
import { reportUnservedInputs } from '../../src/composition/unserved-inputs.ts';
import { FfmpegRenderer } from '../../src/generators/ffmpeg/ffmpeg-renderer.ts';
import type { Generator } from '../../src/generators/generator.ts';
import { capturingLogger, relayOf } from '../support/relay-fixtures.ts';

// What start-up reports: a model whose declared inputs no one channel of its backend takes as a
// whole (docs/inputs.md, "Which rule decides at submit"). The relay is the real one, built from a
// backends entry as the server builds it; nothing is sent to its channels.
describe('models whose inputs their backend cannot take, reported at start', () => {
  const env = { KEY: 'sk-unserved-0001' };
  const xai = (port: number, models: Record<string, string>, extra: Record<string, unknown> = {}) => ({
    dialect: 'A',
    base_url: `http://127.0.0.1:${port}/v1`,
    api_key_env: 'KEY',
    models,
    ...extra,
  });
  const generators = (): Record<string, Generator> => ({
    renderer: new FfmpegRenderer({ ffmpeg: 'ffmpeg' }),
    relay: relayOf(
      [
        // One channel takes frames and keyframes, the other references: none takes both together.
        xai(9, { both: 'grok-imagine-video-1.5', fits: 'grok-imagine-video-1.5' }, { inputs: { reference_images: 0 } }),
        xai(
          10,
          { both: 'grok-imagine-video-1.5', 'text-only': 'grok-imagine-video' },
          { inputs: { first_frame: false, last_frame: false, keyframes: 0, reference_audios: 0 } },
        ),
      ],
      env,
    ),
  });
  const entry = (id: string, backend: string, inputs?: Record<string, unknown>) => ({
    id,
    family: 'A',
    backend,
    durations: [4],
    ...(inputs ? { inputs } : {}),
  });
  const catalog = createModelCatalog(
    {
      models: [
        entry('renders-all', 'renderer', { last_frame: true, keyframes: 4, reference_images: 7 }),
        entry('fits', 'relay', { last_frame: true, keyframes: 2 }),
        entry('both', 'relay', { last_frame: true, reference_images: 2 }),
        // No `inputs`: a first frame, which the only channel mapping it does not take.
        entry('text-only', 'relay'),
        entry('unmapped', 'relay', { last_frame: true }),
      ],
    },
    { renderer: ['generate', 'edit', 'extend'], relay: ['generate'] },
  );

  it('names each such model with what it declares and what each channel takes, and only those', () => {
    const { logger, lines } = capturingLogger();
    const unserved = reportUnservedInputs(catalog, generators(), logger);
    assert.deepEqual(
      unserved.map((u) => u.model),
      ['both', 'text-only'],
      'a model one channel serves whole, or one with no channel at all (a run-time "no channel"), is not reported',
    );
    const warned = lines.filter((l) => l.level === 40);
    assert.deepEqual(
      warned.map((l) => l.model),
      ['both', 'text-only'],
    );
    assert.match(warned[0].msg, /model 'both' declares inputs that no channel of backend 'relay' takes together/);
    assert.equal(warned[0].declared.reference_images, 2);
    assert.deepEqual(
      warned[0].offered.map((o: { last_frame: boolean; reference_images: number }) => [
        o.last_frame,
        o.reference_images,
      ]),
      [
        [true, 0],
        [false, 7],
      ],
    );
    assert.equal(warned[1].declared.first_frame, true);
  });
});
