import net from 'node:net';
import type { Account } from '../store/account-store.ts';
import type { DeliveryRequest } from '../domain/delivery.ts';
import { InvalidField } from '../errors.ts';
import { isPublicAddress } from '../security/create-safe-fetch.ts';

/**
 * The submit rules of a delivery (docs/storage.md), before anything is written (invariant 4,
 * docs/architecture.md): a zero-retention account must name an upload URL, since its videos are
 * kept only until they reach it; an upload URL that names a private address literally is refused
 * unless the operator allows private URLs. A host name is judged when the worker connects (the
 * SSRF-safe fetcher checks every address it resolves to then).
 */
export function checkDelivery(
  account: Account,
  delivery: DeliveryRequest | undefined,
  allowPrivate: boolean,
): DeliveryRequest | undefined {
  const url = delivery?.uploadUrl;
  if (account.zeroRetention && url === undefined) {
    throw new InvalidField(
      'delivery.uploadUrl',
      'upload_url_required',
      (name) =>
        `\`${name}\` is required: this account has zero retention, so its videos are delivered to its own ` +
        'storage and not kept here.',
    );
  }
  if (url !== undefined && !allowPrivate) {
    const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
    if ((net.isIP(host) !== 0 && !isPublicAddress(host)) || host === 'localhost') {
      throw new InvalidField(
        'delivery.uploadUrl',
        'upload_url_forbidden',
        (name) =>
          `\`${name}\` points to an address that is not publicly routable (set VIDGEN_ALLOW_PRIVATE_URLS=1 to ` +
          'allow private addresses, for development).',
      );
    }
  }
  if (!account.zeroRetention) return delivery;
  if (delivery?.file !== undefined) {
    throw new InvalidField(
      'delivery.file',
      'invalid_value',
      (name) => `\`${name}\` keeps a copy here, which this account's zero retention does not allow.`,
    );
  }
  return { ...delivery, zeroRetention: true };
}
