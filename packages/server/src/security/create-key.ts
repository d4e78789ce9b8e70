import type { AccountStore } from '../store/account-store.ts';
import { generateApiKey } from './api-keys.ts';

/** Creates the account when needed (with `models` as its entitlement) and a new key for it. */
export async function createKeyFor(
  accounts: AccountStore,
  accountName: string,
  models: string[] | undefined,
  now: number,
) {
  const account = await accounts.ensureAccount(accountName, models, now);
  const key = generateApiKey();
  await accounts.createKey({ id: key.id, accountId: account.id, hash: key.hash, prefix: key.prefix, createdAt: now });
  return { id: key.id, secret: key.secret, account };
}
