import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { InvalidRequest } from '../errors.ts';
import { isPublicAddress } from '../security/create-safe-fetch.ts';

/**
 * Checks a webhook URL at registration (invariant 5, docs/architecture.md): http(s), no credentials, and every
 * address it resolves to public unless private URLs are allowed. Delivery checks again at
 * connect time, so a DNS change after registration is refused there too.
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidRequest('invalid_webhook_url', '`url` is not a valid URL.', 'url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidRequest('invalid_webhook_url', '`url` must use http or https.', 'url');
  if (url.username !== '' || url.password !== '')
    throw new InvalidRequest('invalid_webhook_url', '`url` must not contain credentials.', 'url');
  if (raw.length > 2000)
    throw new InvalidRequest('invalid_webhook_url', '`url` must be at most 2000 characters long.', 'url');
  if (allowPrivate) return url.href;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = net.isIP(host) !== 0 ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw new InvalidRequest('invalid_webhook_url', "`url`'s host name could not be resolved from the server.", 'url');
  }
  if (!addresses.every(isPublicAddress)) {
    throw new InvalidRequest(
      'webhook_url_forbidden',
      '`url` points to an address that is not publicly routable.',
      'url',
    );
  }
  return url.href;
}
