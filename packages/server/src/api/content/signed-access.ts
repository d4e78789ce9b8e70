import type { AccountStore } from '../../store/account-store.ts';
import type { UrlSigner } from '../../security/url-signer.ts';
import { Forbidden } from '../../errors.ts';
import { KEY_CACHE_MAX, KEY_CACHE_MS } from '../authenticate.ts';
import { ExpiringCache } from '../expiring-cache.ts';
import { OPERATOR_LINK_PREFIX } from '../links.ts';

/**
 * The account a signed link (`expires`, `kid`, `sig`) speaks for, for the object it names: a
 * task's video or one of the account's files. A link lives only as long as the key that asked for
 * it (a revocation takes effect within KEY_CACHE_MS), or one the operator's console minted until it
 * expires; the MAC is checked in constant time
 * (security/url-signer.ts).
 */
export function signedAccess(
  deps: { signer: UrlSigner; accounts: AccountStore; clock: () => number },
  /** Says where a fresh link comes from. */
  expiredMessage: string,
) {
  // The account of each live key that signed a link, trusted as long as a Bearer key is.
  const signers = new ExpiringCache<string>(KEY_CACHE_MS, KEY_CACHE_MAX);
  return async (objectId: string, query: Record<string, unknown>): Promise<string> => {
    const check = deps.signer.verify(objectId, query, Math.floor(deps.clock() / 1000));
    if (!check.ok) {
      throw check.reason === 'expired'
        ? new Forbidden('signature_expired', expiredMessage)
        : new Forbidden('signature_invalid', 'This download link is not valid.');
    }
    // Minted for the operator (api/links.ts): the signed key id names the account itself.
    if (check.keyId.startsWith(OPERATOR_LINK_PREFIX)) return check.keyId.slice(OPERATOR_LINK_PREFIX.length);
    const now = deps.clock();
    let accountId = signers.get(check.keyId, now);
    if (accountId === undefined) {
      const key = await deps.accounts.findKey(check.keyId);
      if (!key || key.revokedAt !== null) throw new Forbidden('signature_invalid', 'This download link is not valid.');
      accountId = key.accountId;
      signers.set(check.keyId, accountId, now);
    }
    return accountId;
  };
}
