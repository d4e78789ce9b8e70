import { createHmac, timingSafeEqual } from 'node:crypto';

export interface SignedParams {
  expires: number;
  kid: string;
  sig: string;
}

export type SignatureCheck = { ok: true; keyId: string } | { ok: false; reason: 'invalid' | 'expired' };

/**
 * Download links that work without the API key: an HMAC over task id, expiry and the id of
 * the key that asked for it. Revoking that key revokes its links too.
 */
export class UrlSigner {
  constructor(private readonly secret: Buffer) {}

  sign(taskId: string, keyId: string, expiresAtSec: number): SignedParams {
    return { expires: expiresAtSec, kid: keyId, sig: this.mac(taskId, expiresAtSec, keyId) };
  }

  verify(taskId: string, query: Partial<Record<'expires' | 'kid' | 'sig', unknown>>, nowSec: number): SignatureCheck {
    const { expires, kid, sig } = query;
    if (
      typeof expires !== 'string' ||
      typeof kid !== 'string' ||
      typeof sig !== 'string' ||
      !/^\d{1,12}$/.test(expires)
    ) {
      return { ok: false, reason: 'invalid' };
    }
    const expected = Buffer.from(this.mac(taskId, Number(expires), kid));
    const given = Buffer.from(sig);
    // Compare in constant time; the length check first is safe since the MAC length is public.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
    if (Number(expires) < nowSec) return { ok: false, reason: 'expired' };
    return { ok: true, keyId: kid };
  }

  private mac(taskId: string, expires: number, keyId: string): string {
    return createHmac('sha256', this.secret).update(`${taskId}\n${expires}\n${keyId}`).digest('base64url');
  }
}
