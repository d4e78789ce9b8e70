/** The relay's config: what an operator writes, what stops the service at start, and where the key may show. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { parseRelayBackend } from '../../src/generators/relay/relay-config.ts';
import { createRelayBackends } from '../../src/generators/relay/relay-backends.ts';
import { ratioOf } from '../../src/generators/relay/relay-request.ts';
import { phaseOf } from '../../src/generators/relay/relay-dialects.ts';
import { testFetchForeign } from '../support/relay-fixtures.ts';

const SECRET = 'sk-live-0123456789abcdef';
const env = { XAI_KEY: SECRET, NEWAPI_KEY: 'sk-other' };
const a = {
  dialect: 'A',
  base_url: 'https://api.example.com/v1/',
  api_key_env: 'XAI_KEY',
  models: { 'vx-720p': 'grok-imagine-video' },
};
const b = {
  dialect: 'B',
  base_url: 'https://relay.example.net/proxy',
  api_key_env: 'NEWAPI_KEY',
  models: { 'vx-720p': 'video-v1-5s' },
  priority: 5,
};

describe('relay config', () => {
  it('orders channels by priority (higher first, ties in file order), normalises URLs and fills defaults', () => {
    const config = parseRelayBackend(
      { type: 'relay', channels: [a, b, { ...a, base_url: 'https://mirror.example.com' }] },
      env,
    );
    assert.deepEqual(
      config.channels.map((c) => c.baseUrl),
      ['https://relay.example.net/proxy', 'https://api.example.com', 'https://mirror.example.com'],
    );
    const [first, second] = config.channels;
    assert.deepEqual(
      [first.name, first.pollIntervalMs, second.name, second.pollIntervalMs],
      ['B-2', 15_000, 'A-1', 4000],
    );
    // Dialect A defaults to xAI and B to new-api: no listing, no replay, no cancel, no long-poll (docs/relays.md §6).
    assert.deepEqual(
      [
        second.upstream,
        second.longPollSeconds,
        second.lookupByIdempotencyKey,
        second.replaysIdempotencyKey,
        second.cancel,
      ],
      ['xai', 0, false, false, false],
    );
    assert.deepEqual(
      [first.upstream, first.longPollSeconds, first.lookupByIdempotencyKey, first.cancel, first.submitTimeoutMs],
      ['new-api', 0, false, false, 300_000],
    );
    const vidgen = parseRelayBackend({ channels: [{ ...a, upstream: 'vidgen' }] }, env).channels[0];
    assert.deepEqual(
      [vidgen.longPollSeconds, vidgen.lookupByIdempotencyKey, vidgen.cancel, vidgen.submitTimeoutMs],
      [25, true, true, undefined],
    );
    assert.deepEqual([config.timeoutMs, config.slots, config.maxVideoBytes], [1_800_000, 16, 512 * 1024 * 1024]);
    assert.match(first.id, /^[0-9a-f]{16}$/);
  });

  it('never shows the key: not in JSON, not in inspect, not in errors', () => {
    const config = parseRelayBackend({ channels: [a] }, env);
    assert.ok(!JSON.stringify(config).includes(SECRET));
    assert.ok(!inspect(config, { depth: 10 }).includes(SECRET));
    assert.equal(config.channels[0].apiKey.header(), `Bearer ${SECRET}`);
    const err = catchMessage(() => parseRelayBackend({ channels: [{ ...a, dialect: 'C' }] }, env));
    assert.ok(!err.includes(SECRET));
  });

  it('stops the service at start on every mistake, naming the field', () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ channels: [] }, /"channels" must be a non-empty list/],
      [
        { channels: [{ ...a, api_key_env: 'MISSING_KEY' }] },
        /channels\[0\]: the environment variable MISSING_KEY \(api_key_env\) is not set/,
      ],
      [{ channels: [{ ...a, base_url: 'ftp://x' }] }, /"base_url" must be an http or https URL/],
      [{ channels: [{ ...a, base_url: 'https://user:pw@x' }] }, /must not carry credentials/],
      [{ channels: [{ ...a, models: {} }] }, /"models" is empty/],
      [{ channels: [{ ...a, aspect_ratios: ['5:4'] }] }, /"aspect_ratios" must be a list of/],
      [{ channels: [{ ...a, durations: { min: 3, max: 1 } }] }, /"durations" must be/],
      [{ channels: [{ ...a, api_key: 'inline' }] }, /unknown field "api_key"/],
      [{ channels: [a, { ...a, base_url: 'https://api.example.com' }] }, /repeats the dialect and base_url/],
      [{ type: 'comfyui', channels: [a] }, /"type" must be "relay"/],
      [{ channels: [{ ...a, upstream: 'sora' }] }, /"upstream" must be "xai" or "vidgen" for dialect A/],
      [
        { channels: [{ ...a, dialect: 'fal', input: { prompt: '{{promt}}' } }] },
        /"input" names unknown placeholders: \{\{promt\}\}/,
      ],
      [{ channels: [{ ...a, input: { prompt: '{{prompt}}' } }] }, /"input" is for the fal and replicate dialects/],
      [{ channels: [{ ...a, dialect: 'C' }] }, /"dialect" must be "A", "B", "fal", "replicate", "openai" or "veo"/],
      [{ channels: [{ ...a, extra_body: [] }] }, /"extra_body" must be a JSON object/],
    ];
    for (const [raw, message] of cases)
      assert.throws(
        () => parseRelayBackend(raw, env, 'backends.x'),
        (e: Error) => message.test(e.message) && e.message.startsWith('backends.x: '),
      );
  });

  it('builds one generator per relay entry of a backends file and leaves other types alone', () => {
    const built = createRelayBackends(
      {
        backends: {
          'relay-main': { type: 'relay', channels: [a, b], slots: 32 },
          'relay-b': { type: 'relay', channels: [b, { ...a, upstream: 'vidgen' }] },
          gpu: { type: 'comfyui' },
        },
      },
      env,
      { foreignFetch: () => testFetchForeign },
    );
    assert.deepEqual(Object.keys(built.generators), ['relay-main', 'relay-b']);
    // Edits and extensions only where an xAI channel takes them; the catalog refuses edit models on the others.
    assert.deepEqual(built.generators['relay-main'].kinds, ['generate', 'edit', 'extend']);
    assert.deepEqual(built.generators['relay-b'].kinds, ['generate']);
    assert.equal(built.slots['relay-main'], 32);
    assert.ok(built.deadlinesMs['relay-main'] > 1_800_000);
  });

  it('reads ratios from output sizes and state words in any spelling', () => {
    assert.deepEqual(
      [
        ratioOf(1280, 720),
        ratioOf(720, 1280),
        ratioOf(960, 720),
        ratioOf(1080, 720),
        ratioOf(320, 180),
        ratioOf(720, 720),
      ],
      ['16:9', '9:16', '4:3', '3:2', '16:9', '1:1'],
    );
    const words = {
      queued: 'pending',
      IN_PROGRESS: 'pending',
      'in-progress': 'pending',
      SUCCESS: 'succeeded',
      completed: 'succeeded',
      FAILURE: 'failed',
      cancelled: 'failed',
      expired: 'expired',
      thinking: 'unknown',
    };
    for (const [word, phase] of Object.entries(words)) assert.equal(phaseOf(word), phase, word);
  });
});

function catchMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return (e as Error).message;
  }
  assert.fail('expected an error');
}
