import { lookup } from 'node:dns/promises';
import net from 'node:net';
import { InvalidField } from '../errors.ts';
import { isPublicAddress } from '../security/create-safe-fetch.ts';

/**
 * Checks a webhook URL at registration, or a per-request callback's at submit (docs/architecture.md,
 * invariant 5): http(s), no credentials, and every address it resolves to public unless private
 * URLs are allowed. Delivery checks again at connect time, so a DNS change after registration is
 * refused there too. Errors name `field` (a dialect renames a callback's to the alias it was sent as).
 */
export async function checkWebhookUrl(raw: string, allowPrivate: boolean, field = 'url'): Promise<string> {
  const invalid = (problem: string) =>
    new InvalidField(field, 'invalid_webhook_url', (name) => `\`${name}\` ${problem}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('must use http or https.');
  if (url.username !== '' || url.password !== '') throw invalid('must not contain credentials.');
  if (raw.length > 2000) throw invalid('must be at most 2000 characters long.');
  if (allowPrivate) return url.href;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  try {
    addresses = net.isIP(host) !== 0 ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw invalid('has a host name the server could not resolve.');
  }
  if (!addresses.every(isPublicAddress)) {
    throw new InvalidField(
      field,
      'webhook_url_forbidden',
      (name) =>
        `\`${name}\` points to an address that is not publicly routable. To receive webhooks on this machine, ` +
        'run `vidgen webhooks listen --forward-to <url>`, with the server started with VIDGEN_ALLOW_PRIVATE_URLS=1 ' +
        '(development only: it lets webhooks and fetched inputs reach private addresses).',
    );
  }
  return url.href;
}
