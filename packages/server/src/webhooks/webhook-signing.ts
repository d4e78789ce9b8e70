import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint secret in the Standard Webhooks form: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` with the secret's key bytes (Standard Webhooks). */
export function signWebhook(id: string, timestampSec: number, body: string, secret: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64')}`;
}

/** The three Standard Webhooks headers; several secrets (a rotation's overlap) give several signatures. */
export function webhookHeaders(
  id: string,
  timestampSec: number,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSec),
    'webhook-signature': secrets.map((s) => signWebhook(id, timestampSec, body, s)).join(' '),
  };
}
