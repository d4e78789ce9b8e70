import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnInGroup } from './support/process-groups.ts';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api, type Api } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

const VIDGEN_BIN = fileURLToPath(new URL('../../packages/client/bin/vidgen.mjs', import.meta.url));

// `vidgen webhooks listen`: a loopback endpoint registered for the session, verified events
// forwarded unchanged, the endpoint deleted on Ctrl-C.
describe('vidgen webhooks listen', () => {
  let svc: TestService;
  let client: Api;
  let key: string;
  let app: Awaited<ReturnType<typeof startWebhookReceiver>>;
  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('listen');
    client = api(svc.url, key);
    app = await startWebhookReceiver();
  });
  after(async () => {
    await svc.close();
    await app.close();
  });

  it('forwards verified events to --forward-to and deletes its endpoint on Ctrl-C', async () => {
    const child = spawnInGroup(
      process.execPath,
      [VIDGEN_BIN, 'webhooks', 'listen', '--forward-to', app.url, '--json'],
      {
        env: {
          ...process.env,
          VIDGEN_BASE_URL: svc.url,
          VIDGEN_API_KEY: key,
          VIDGEN_PROFILE: '/nonexistent/profile.json',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const [line] = await Promise.race([
      createInterface({ input: child.stdout! })
        [Symbol.asyncIterator]()
        .next()
        .then((r) => [r.value as string]),
      exited.then((code) => assert.fail(`vidgen exited with ${code}: ${stderr}`)),
    ]);
    const session = JSON.parse(line);
    assert.match(session.secret, /^whsec_/);
    assert.equal((await client.get('/v1/webhooks')).body.data[0].url, session.url);

    const task = (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'forwarded' })).body
      .task_id;
    await app.until((all) => all.length === 1);
    const event = await verifyWebhook<any>(app.received[0].body, app.received[0].headers, session.secret);
    assert.deepEqual([event.type, event.data.id], ['video.completed', task]);

    child.kill('SIGINT');
    assert.equal(await exited, 0, stderr);
    assert.match(stderr, /video\.completed evt_\S+ \(.+\) → 200/);
    assert.deepEqual((await client.get('/v1/webhooks')).body.data, [], 'the temporary endpoint is gone');
  });
});
