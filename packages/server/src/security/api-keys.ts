import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../engine/ids.ts';

export interface GeneratedKey {
  id: string;
  /** Shown to the operator once; never stored. */
  secret: string;
  hash: string;
  prefix: string;
}

/**
 * Keys carry 256 random bits, so a single SHA-256 is a sound way to store them: there is
 * nothing to brute-force, and a lookup by hash stays one indexed read per request.
 */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function generateApiKey(): GeneratedKey {
  const secret = `vg-${randomBytes(32).toString('base64url')}`;
  return { id: newId('key', 9), secret, hash: hashApiKey(secret), prefix: secret.slice(0, 10) };
}

/** The key from `Authorization: Bearer <key>`, or undefined when the header is missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
