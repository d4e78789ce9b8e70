import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { loadConfig } from '../../packages/server/src/config.ts';

const A = {
  model: 'vx-imagine-video-1.5-720p',
  prompt: 'links',
  duration: 1,
  image: {
    url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  },
};

/** A done family A task's `video.url`, polled with extra headers (a forged Host, proxy headers). */
async function doneLink(svc: TestService, key: string, headers: Record<string, string>): Promise<URL> {
  const client = api(svc.url, key);
  const id = (await client.post('/v1/videos/generations', A)).body.request_id;
  const done = await pollUntil(
    () => client.get(`/v1/videos/${id}`, headers),
    (a) => a.body.status !== 'pending',
  );
  assert.equal(done.body.status, 'done', JSON.stringify(done.body));
  return new URL(done.body.video.url);
}

describe('absolute links come from configuration or trusted proxies only', () => {
  let plain: TestService;
  let proxied: TestService;
  before(async () => {
    plain = await startTestService();
    proxied = await startTestService({ VIDGEN_TRUST_PROXY: '127.0.0.1' });
  });
  after(async () => {
    await plain?.close();
    await proxied?.close();
  });

  it('ignores a forged Host header: the link points at the address the request came in on', async () => {
    const link = await doneLink(plain, await plain.createKey('links'), {
      host: 'evil.example',
      'x-forwarded-host': 'evil.example',
    });
    assert.equal(link.origin, new URL(plain.url).origin);
  });

  it('uses X-Forwarded-Proto/-Host from a proxy named in VIDGEN_TRUST_PROXY', async () => {
    const link = await doneLink(proxied, await proxied.createKey('links'), {
      'x-forwarded-host': 'videos.example.com',
      'x-forwarded-proto': 'https',
    });
    assert.equal(link.origin, 'https://videos.example.com');
  });

  it('/metrics reports an idle lane as 0, not as no sample', async () => {
    // Its one task has finished: nothing is queued or running, and each gauge still has a sample per lane.
    const text = await (await fetch(`${proxied.url}/metrics`)).text();
    assert.match(text, /^vidgen_queue_depth\{backend="renderer"\} 0$/m);
    assert.match(text, /^vidgen_running_tasks\{backend="renderer"\} 0$/m);
  });

  it('/metrics names no account unless asked to, and asking needs a metrics token', async () => {
    const text = await (await fetch(`${plain.url}/metrics`)).text();
    assert.match(text, /vidgen_running_tasks/);
    assert.doesNotMatch(text, /account="/);
    assert.throws(() => loadConfig({ VIDGEN_METRICS_PER_ACCOUNT: '1' }), /VIDGEN_METRICS_TOKEN/);
    assert.equal(loadConfig({ VIDGEN_METRICS_PER_ACCOUNT: '1', VIDGEN_METRICS_TOKEN: 't' }).metricsPerAccount, true);
  });
});
