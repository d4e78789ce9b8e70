import { hkdfSync } from 'node:crypto';

/**
 * The operator's webhook (VIDGEN_OPERATOR_WEBHOOK_URL): every account's `account.balance_low`
 * events, signed in the Standard Webhooks scheme with a secret derived from the service's signing
 * secret, so that every process signs alike and there is nothing more to store. Derived rather than
 * the signing secret itself: the receiver then holds a key that verifies deliveries and nothing else
 * (not download links, not the sealed endpoint secrets). `GET /admin/v1/operator-webhook` shows it.
 */
export function operatorWebhookSecret(serverSecret: Buffer): string {
  const bytes = Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), 'vidgen operator webhook v1', 24));
  return `whsec_${bytes.toString('base64')}`;
}
