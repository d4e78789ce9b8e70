import type { AccountStore } from '../../../packages/server/src/store/account-store.ts';
import { hashApiKey } from '../../../packages/server/src/security/api-keys.ts';

export async function revokeKey(accounts: AccountStore, secret: string): Promise<void> {
  const found = await accounts.findByKeyHash(hashApiKey(secret));
  if (!found) throw new Error('no such key');
  await accounts.revokeKey(found.key.id, Date.now());
}
