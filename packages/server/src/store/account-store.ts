import type { ServiceTier } from '../domain/task.ts';

export interface Account {
  id: string;
  name: string;
  /** Model ids the account may use; null means every model in the catalog. */
  models: string[] | null;
  createdAt: number;
  /**
   * Zero retention: every submit must name an upload URL, and a video delivered there is not kept
   * (docs/storage.md). Absent: off.
   */
  zeroRetention?: boolean;
  /** The service tiers its submits may name; null: `default` and `flex` (domain/task.ts). */
  serviceTiers?: ServiceTier[] | null;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** First characters of the key, enough for a person to recognise it in a list. */
  prefix: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface NewApiKey {
  id: string;
  accountId: string;
  hash: string;
  prefix: string;
  createdAt: number;
}

/** Accounts and their API keys. Keys are only ever stored as hashes. */
export interface AccountStore {
  /** Runs `work` in one transaction, with this store on it: an account and its first key commit together. */
  atomically<T>(work: (accounts: AccountStore) => Promise<T>): Promise<T>;
  /** Returns the account with this name, creating it when missing; `models` replaces its entitlement when given. */
  ensureAccount(name: string, models: string[] | null | undefined, now: number): Promise<Account>;
  createKey(key: NewApiKey): Promise<ApiKeyRecord>;
  /** The live (not revoked) key with this hash and its account. */
  findByKeyHash(hash: string): Promise<{ key: ApiKeyRecord; account: Account } | undefined>;
  findKey(id: string): Promise<ApiKeyRecord | undefined>;
  listKeys(): Promise<Array<ApiKeyRecord & { accountName: string }>>;
  revokeKey(id: string, now: number): Promise<boolean>;
  countKeys(): Promise<number>;
  findAccountByName(name: string): Promise<Account | undefined>;
  findAccount(id: string): Promise<Account | undefined>;
  /** By name; with a page, `limit` of them after the name `after`. */
  listAccounts(page?: { limit: number; after?: string; prefix?: string }): Promise<Account[]>;
  /** Names of these accounts by id (unknown ids are left out). */
  accountNames(ids: readonly string[]): Promise<Map<string, string>>;
  /** Turns zero retention on or off for the account with this id. */
  setZeroRetention(accountId: string, on: boolean): Promise<void>;
  /** Sets the service tiers the account's submits may name (null: the default ones). */
  setServiceTiers(accountId: string, tiers: ServiceTier[] | null): Promise<void>;
}
