import { it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook, WebhookVerificationError } from '../src/index.ts';
import { newWebhookSecret, webhookHeaders } from '../../server/src/webhooks/webhook-signing.ts';

// verifyWebhook (Web Crypto only) against the reference Standard Webhooks library, both ways:
// what the reference signs, the SDK accepts; what the server signs, the reference accepts.
const body = JSON.stringify({
  id: 'evt_1',
  type: 'video.completed',
  created_at: 1,
  data: { id: 't1', family: 'B', object: { status: 'SUCCESS' } },
});

it('accepts what the standardwebhooks package signs, and refuses any change', async () => {
  const secret = newWebhookSecret();
  const now = new Date();
  const headers = {
    'webhook-id': 'evt_1',
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign('evt_1', now, body),
  };
  assert.deepEqual(await verifyWebhook(body, headers, secret), JSON.parse(body));
  assert.deepEqual(await verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret), JSON.parse(body));
  await assert.rejects(verifyWebhook(`${body} `, headers, secret), WebhookVerificationError);
  await assert.rejects(verifyWebhook(body, { ...headers, 'webhook-id': 'evt_2' }, secret), WebhookVerificationError);
  await assert.rejects(verifyWebhook(body, headers, newWebhookSecret()), /No signature matches/);
  await assert.rejects(verifyWebhook(body, headers, secret, { now: now.getTime() + 301_000 }), /too old/);
  await assert.rejects(verifyWebhook(body, { 'webhook-id': 'evt_1' }, secret), /Missing/);
});

it('what the server signs, the standardwebhooks package accepts, with one or two secrets', async () => {
  const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
  const headers = webhookHeaders('evt_9', Math.floor(Date.now() / 1000), body, [current, previous]);
  assert.deepEqual(new Webhook(current).verify(body, headers), JSON.parse(body));
  assert.deepEqual(new Webhook(previous).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
  assert.deepEqual(await verifyWebhook(body, headers, previous), JSON.parse(body));
});
