import type { WebhookEventBody } from '@vidgen/protocol';

/** A delivery whose signature, timestamp or headers do not check out: answer it with a 4xx and drop it. */
export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** Headers as a fetch `Headers`, or as Node's `IncomingHttpHeaders` (lower-case names). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** How far `webhook-timestamp` may be from now, in seconds (default 300): older deliveries are replays. */
  toleranceSeconds?: number;
  /** Epoch milliseconds; for tests. */
  now?: number;
}

const encoder = new TextEncoder();

/**
 * Verifies a vidgen webhook delivery (Standard Webhooks: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`) and returns its event.
 * Pass the body exactly as received (the raw string or bytes, never re-serialized JSON). Uses
 * only Web Crypto, so it runs in Node 20+, browsers and edge runtimes alike. During a secret
 * rotation a delivery carries one signature per secret; any one matching is enough.
 */
export async function verifyWebhook<T = WebhookEventBody>(
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyWebhookOptions = {},
): Promise<T> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature header.');
  const seconds = Number(timestamp);
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not a number of seconds.');
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (seconds < now - tolerance) throw new WebhookVerificationError('The delivery is too old (webhook-timestamp).');
  if (seconds > now + tolerance)
    throw new WebhookVerificationError('The delivery is dated in the future (webhook-timestamp).');
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const expected = await hmac(secret, `${id}.${timestamp}.${text}`);
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    return version === 'v1' && signature !== undefined && equalInConstantTime(base64ToBytes(signature), expected);
  });
  if (!matches) throw new WebhookVerificationError('No signature matches the secret.');
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new WebhookVerificationError('The body is not JSON.');
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const bag = headers as Record<string, string | string[] | undefined>;
  const value = bag[name] ?? Object.entries(bag).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(' ') : value;
}

async function hmac(secret: string, content: string): Promise<Uint8Array> {
  let key: Uint8Array<ArrayBuffer>;
  try {
    key = base64ToBytes(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  } catch {
    throw new WebhookVerificationError('The secret is not a whsec_… secret.');
  }
  const cryptoKey = await globalThis.crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  return new Uint8Array(await globalThis.crypto.subtle.sign('HMAC', cryptoKey, encoder.encode(content)));
}

function base64ToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Time independent of where the first difference is; the length (32 bytes) is public. */
function equalInConstantTime(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
