import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import { openSqlDatabase, type SqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { SqlWebhookStore } from '../../packages/server/src/webhooks/sql-webhook-store.ts';
import { SqlAccountStore } from '../../packages/server/src/store/sql/sql-account-store.ts';
import { SecretBox } from '../../packages/server/src/webhooks/secret-box.ts';
import { loadSigningSecret } from '../../packages/server/src/security/signing-secret.ts';
import { newWebhookSecret } from '../../packages/server/src/webhooks/webhook-signing.ts';

// Invariant 5 for webhooks: private addresses are refused at registration, and at delivery too
// (a name that resolved publicly at registration may point inside later).
describe('webhook URLs on private addresses', () => {
  let svc: TestService;
  let client: Api;
  let database: SqlDatabase;
  before(async () => {
    svc = await startTestService({ VIDGEN_ALLOW_PRIVATE_URLS: '0' });
    client = api(svc.url, await svc.createKey('private'));
    database = await openSqlDatabase(join(svc.dataDir, 'vidgen.db'));
  });
  after(async () => {
    await database.close();
    await svc.close();
  });

  it('are refused at registration, by address and by name, with the field named', async () => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://[::1]:9/hook',
      'http://169.254.169.254/latest',
      'http://localhost:9/hook',
    ]) {
      const refused = await client.post('/v1/webhooks', { url });
      assert.equal(refused.status, 400, url);
      assert.equal(refused.body.error.code, 'webhook_url_forbidden', url);
      assert.equal(refused.body.error.param, 'url');
      assert.match(refused.body.error.message, /`url`/);
    }
  });

  it('are refused at delivery when the stored endpoint now points inside', async () => {
    const receiver = await startWebhookReceiver();
    try {
      // What a DNS change after registration leaves behind: an endpoint whose URL reaches loopback.
      const account = await new SqlAccountStore(database.db).ensureAccount('private', null, Date.now());
      const box = new SecretBox(await loadSigningSecret(undefined, svc.dataDir));
      const store = new SqlWebhookStore(database.db, database.dialect);
      const endpoint = await store.insertEndpoint({
        id: 'wh_rebound',
        accountId: account.id,
        url: receiver.url,
        events: ['video.completed'],
        secret: box.seal(newWebhookSecret()),
        createdAt: Date.now(),
      });
      const test = await client.post(`/v1/webhooks/${endpoint.id}/test`);
      assert.equal(test.status, 200, JSON.stringify(test.body));
      const tried = await pollUntil(
        () => client.get(`/v1/webhooks/${endpoint.id}/deliveries`),
        (a) => a.body.data[0]?.last_error !== null,
      );
      const [delivery] = tried.body.data;
      assert.equal(delivery.status, 'pending', 'retried later: the name may resolve publicly again');
      assert.match(delivery.last_error, /not publicly routable/);
      assert.equal(delivery.last_status_code, null);
      assert.equal(receiver.received.length, 0, 'nothing reached the private address');
    } finally {
      await receiver.close();
    }
  });
});
