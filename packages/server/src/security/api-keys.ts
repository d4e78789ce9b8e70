import * as crypto from 'node:crypto';
import { newId } from '../domain/ids.ts';

export interface GeneratedKey {
  id: string;
  /** Shown to the operator once; never stored. */
  secret: string;
  hash: string;
  prefix: string;
}

/**
 * Keys carry 256 random bits, so a single SHA-256 is a sound way to store them: there is
 * nothing to brute-force, and a lookup by hash stays one indexed read per request. Every request
 * hashes its key (the authenticator's cache is keyed by the hash, so no secret is compared or
 * kept in memory): the one-shot crypto.hash costs a third of createHash().update().digest().
 */
export function hashApiKey(secret: string): string {
  return sha256Hex(secret);
}

// crypto.hash arrived in Node 20.12; older Node 20 releases take the long way.
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'hex')
    : (text) => crypto.createHash('sha256').update(text).digest('hex');

export function generateApiKey(): GeneratedKey {
  const secret = `vg-${crypto.randomBytes(32).toString('base64url')}`;
  return { id: newId('key', 9), secret, hash: hashApiKey(secret), prefix: secret.slice(0, 10) };
}

/** The key from `Authorization: Bearer <key>`, or undefined when the header is missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
