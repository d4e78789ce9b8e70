import { randomBytes } from 'node:crypto';

/**
 * Time-ordered UUID (version 7): ids sort by creation, which keeps the primary-key index
 * append-mostly and gives listings a stable order.
 */
export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6] & 0x0f);
  bytes[8] = 0x80 | (bytes[8] & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The smallest version-7 id of millisecond `ms`: every id made at `ms` or later sorts at or after it. */
export function uuidv7Floor(ms: number): string {
  const time = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7000-8000-000000000000`;
}

/** Short random id with a readable prefix, e.g. `file-3k9...`. */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}-${randomBytes(bytes).toString('base64url')}`;
}
