import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyWebhook } from '../../packages/client/src/index.ts';
import { spawnServer, runServerCommand, type ServerProcess } from './support/process.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

// Invariant 8 with real processes: a worker killed (-9) while its deliveries are in flight loses
// none of them. The receiver holds the first request of each event unanswered, so the kill falls
// between the task's final transition and the delivery's acknowledgement; the next worker sends
// every event again with the same webhook-id, and each is acknowledged (2xx) exactly once.
describe('webhook deliveries survive kill -9 of the worker', () => {
  let dataDir: string;
  let apiServer: ServerProcess;
  let client: Api;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let holding = true;
  const seen = new Set<string>();
  const workers: ServerProcess[] = [];
  const env = () => ({
    VIDGEN_DATA_DIR: dataDir,
    VIDGEN_ALLOW_PRIVATE_URLS: '1',
    VIDGEN_LEASE_SECONDS: '1',
    VIDGEN_HEARTBEAT_SECONDS: '0.3',
    VIDGEN_POLL_MS: '100',
    VIDGEN_WEBHOOK_TIMEOUT_MS: '3000',
    VIDGEN_WEBHOOK_RETRY_BASE_MS: '100',
    VIDGEN_SHUTDOWN_GRACE_SECONDS: '0',
  });
  const worker = async () => {
    const w = await spawnServer(env(), ['--role', 'worker']);
    workers.push(w);
    return w;
  };

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'vidgen-webhook-crash-'));
    const key = (
      await runServerCommand(['keys', 'create', '--account', 'crash'], { VIDGEN_DATA_DIR: dataDir })
    ).stdout.trim();
    apiServer = await spawnServer(env(), ['--role', 'api']);
    client = api(apiServer.url, key);
    // The first request of each event is never answered while `holding`: its sender dies waiting.
    receiver = await startWebhookReceiver((r) => {
      const id = String(r.headers['webhook-id']);
      if (holding && !seen.has(id)) {
        seen.add(id);
        return new Promise<number>(() => undefined);
      }
      return 200;
    });
  });
  after(async () => {
    for (const w of workers) await w.stop('SIGKILL');
    await apiServer.stop();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('every event is delivered after a restart, none acknowledged twice, twice over', async () => {
    const created = await client.post('/v1/webhooks', { url: receiver.url });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const { id: endpoint, secret } = created.body;
    let current = await worker();
    const tasks: string[] = [];
    for (let round = 0; round < 2; round++) {
      holding = true;
      const ids = await Promise.all(
        [1, 2].map(
          async () =>
            (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: `round ${round}` })).body
              .task_id as string,
        ),
      );
      tasks.push(...ids);
      const before = receiver.received.length;
      await receiver.until((all) => all.length > before);
      await current.stop('SIGKILL');
      holding = false;
      current = await worker();
      await pollUntil(
        () => client.get(`/v1/webhooks/${endpoint}/deliveries?limit=100`),
        (a) => a.body.data.length === tasks.length && a.body.data.every((d: any) => d.status === 'delivered'),
      );
    }
    const acknowledged = receiver.received.filter((r) => r.answered !== undefined && r.answered < 300);
    const events = await Promise.all(acknowledged.map((r) => verifyWebhook<any>(r.body, r.headers, secret)));
    assert.deepEqual(events.map((e) => e.data.id).sort(), [...tasks].sort(), 'each task acknowledged exactly once');
    assert.ok(events.every((e) => e.type === 'video.completed'));
    const unanswered = receiver.received.filter((r) => r.answered === undefined);
    assert.ok(unanswered.length >= 2, 'a request was in flight at each kill');
    const ackIds = new Set(acknowledged.map((r) => r.headers['webhook-id']));
    assert.ok(
      unanswered.every((r) => ackIds.has(r.headers['webhook-id'])),
      'the interrupted ones came again with the same webhook-id',
    );
  });
});
