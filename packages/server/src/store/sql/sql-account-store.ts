import { sql, type Kysely, type Selectable } from 'kysely';
import { reusableQuery } from './reusable-query.ts';
import type { Account, AccountStore, ApiKeyRecord, NewApiKey } from '../account-store.ts';
import type { AccountsTable, ApiKeysTable, Database } from './schema.ts';
import { newId } from '../../domain/ids.ts';
import type { ServiceTier } from '../../domain/task.ts';

export class SqlAccountStore implements AccountStore {
  private readonly byKeyHash;

  constructor(private readonly db: Kysely<Database>) {
    this.byKeyHash = reusableQuery<[string]>(
      db
        .selectFrom('api_keys as k')
        .innerJoin('accounts as a', 'a.id', 'k.account_id')
        .select([
          'k.id as key_id',
          'k.prefix',
          'k.created_at as key_created_at',
          'a.id',
          'a.name',
          'a.models',
          'a.created_at',
          'a.zero_retention',
          'a.service_tiers',
        ])
        .where('k.hash', '=', '')
        .where('k.revoked_at', 'is', null),
      1,
    );
  }

  atomically<T>(work: (accounts: AccountStore) => Promise<T>): Promise<T> {
    if (this.db.isTransaction) return work(this);
    return this.db.transaction().execute((trx) => work(new SqlAccountStore(trx)));
  }

  async ensureAccount(name: string, models: string[] | null | undefined, now: number): Promise<Account> {
    const modelsText = models === undefined ? undefined : models === null ? null : JSON.stringify(models);
    await this.db
      .insertInto('accounts')
      .values({ id: newId('acct'), name, models: modelsText ?? null, created_at: now })
      .onConflict((oc) =>
        modelsText === undefined
          ? oc.column('name').doNothing()
          : oc.column('name').doUpdateSet({ models: modelsText }),
      )
      .execute();
    const row = await this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    return toAccount(row);
  }

  async createKey(key: NewApiKey): Promise<ApiKeyRecord> {
    await this.db
      .insertInto('api_keys')
      .values({
        id: key.id,
        account_id: key.accountId,
        hash: key.hash,
        prefix: key.prefix,
        created_at: key.createdAt,
        revoked_at: null,
      })
      .execute();
    return { id: key.id, accountId: key.accountId, prefix: key.prefix, createdAt: key.createdAt, revokedAt: null };
  }

  async findByKeyHash(hash: string): Promise<{ key: ApiKeyRecord; account: Account } | undefined> {
    type Row = Selectable<AccountsTable> & { key_id: string; prefix: string; key_created_at: number };
    const row = (await this.db.executeQuery<Row>(this.byKeyHash(hash))).rows[0];
    if (!row) return undefined;
    return {
      key: { id: row.key_id, accountId: row.id, prefix: row.prefix, createdAt: row.key_created_at, revokedAt: null },
      account: toAccount(row),
    };
  }

  async findKey(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toKey(row) : undefined;
  }

  async listKeys(): Promise<Array<ApiKeyRecord & { accountName: string }>> {
    const rows = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('accounts as a', 'a.id', 'k.account_id')
      .selectAll('k')
      .select('a.name as account_name')
      .orderBy('k.created_at')
      .execute();
    return rows.map((row) => ({ ...toKey(row), accountName: row.account_name }));
  }

  async revokeKey(id: string, now: number): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async findAccount(id: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? toAccount(row) : undefined;
  }

  async findAccountByName(name: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('name', '=', name).executeTakeFirst();
    return row ? toAccount(row) : undefined;
  }

  async listAccounts(page?: { limit: number; after?: string; prefix?: string }): Promise<Account[]> {
    let query = this.db.selectFrom('accounts').selectAll().orderBy('name');
    if (page?.after !== undefined) query = query.where('name', '>', page.after);
    // Compared exactly: LIKE's wildcards and case rules, and range bounds under a collation, differ by database.
    if (page?.prefix) query = query.where(sql`substr(name, 1, ${page.prefix.length})`, '=', page.prefix);
    if (page) query = query.limit(page.limit);
    return (await query.execute()).map(toAccount);
  }

  async accountNames(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db.selectFrom('accounts').select(['id', 'name']).where('id', 'in', ids).execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  async setZeroRetention(accountId: string, on: boolean): Promise<void> {
    await this.db
      .updateTable('accounts')
      .set({ zero_retention: on ? 1 : 0 })
      .where('id', '=', accountId)
      .execute();
  }

  async setServiceTiers(accountId: string, tiers: ServiceTier[] | null): Promise<void> {
    const text = tiers === null ? null : JSON.stringify(tiers);
    await this.db.updateTable('accounts').set({ service_tiers: text }).where('id', '=', accountId).execute();
  }

  async countKeys(): Promise<number> {
    const row = await this.db
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}

function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    name: row.name,
    models: row.models === null ? null : JSON.parse(row.models),
    createdAt: row.created_at,
    zeroRetention: Number(row.zero_retention) === 1,
    serviceTiers: row.service_tiers ? JSON.parse(row.service_tiers) : null,
  };
}

function toKey(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    prefix: row.prefix,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
