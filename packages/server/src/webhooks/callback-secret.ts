import { createHmac, hkdfSync } from 'node:crypto';

/**
 * The secret that signs an account's per-request callbacks (Replicate's "default" webhook secret):
 * one per account, derived from the server's signing secret, so there is nothing more to store or
 * lose, and every process signs alike. Shown to the account by `GET /v1/webhooks/default/secret`.
 */
export class CallbackSecrets {
  private readonly key: Buffer;

  constructor(serverSecret: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', serverSecret, Buffer.alloc(0), 'vidgen callback secrets v1', 32));
  }

  /** `whsec_` and 24 bytes in Base64, the Standard Webhooks form of an endpoint's secret. */
  of(accountId: string): string {
    const bytes = createHmac('sha256', this.key).update(accountId).digest().subarray(0, 24);
    return `whsec_${bytes.toString('base64')}`;
  }
}
