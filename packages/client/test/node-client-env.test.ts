import { describe, it, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { NodeVidgenClient } from '../src/node/index.ts';

// NodeVidgenClient takes its key and server from the environment as the CLI does, and a missing
// key is a local error before any request.
describe('NodeVidgenClient from the environment', () => {
  const saved = { key: process.env.VIDGEN_API_KEY, url: process.env.VIDGEN_BASE_URL };
  afterEach(() => {
    for (const [name, value] of [
      ['VIDGEN_API_KEY', saved.key],
      ['VIDGEN_BASE_URL', saved.url],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('reads VIDGEN_API_KEY and VIDGEN_BASE_URL when the options name neither', () => {
    process.env.VIDGEN_API_KEY = 'vg-from-env';
    process.env.VIDGEN_BASE_URL = 'http://127.0.0.1:9999/v1';
    const client = new NodeVidgenClient();
    assert.equal(client.baseURL, 'http://127.0.0.1:9999');
    assert.equal(client.transport.options.apiKey, 'vg-from-env');
    const given = new NodeVidgenClient({ apiKey: 'vg-given', baseURL: 'http://example.test' });
    assert.equal(given.transport.options.apiKey, 'vg-given', 'options win');
    assert.equal(given.baseURL, 'http://example.test');
  });

  it('refuses to start without a key, naming VIDGEN_API_KEY', () => {
    delete process.env.VIDGEN_API_KEY;
    assert.throws(() => new NodeVidgenClient({ baseURL: 'http://127.0.0.1:9' }), /VIDGEN_API_KEY/);
  });
});
