import type { AccountStore } from '../store/account-store.ts';
import { generateApiKey } from './api-keys.ts';

/** Creates the account when needed (with `models` as its entitlement) and a new key for it. */
export async function createKeyFor(
  accounts: AccountStore,
  accountName: string,
  models: string[] | undefined,
  now: number,
) {
  const key = generateApiKey();
  // One transaction: a key that cannot be stored leaves no new account behind (invariant 4, docs/architecture.md).
  return accounts.atomically(async (tx) => {
    const account = await tx.ensureAccount(accountName, models, now);
    await tx.createKey({ id: key.id, accountId: account.id, hash: key.hash, prefix: key.prefix, createdAt: now });
    return { id: key.id, secret: key.secret, account };
  });
}
