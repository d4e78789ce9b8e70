import type { Account, AccountStore, ApiKeyRecord } from '../store/account-store.ts';
import { Conflict, InvalidRequest, NotFound } from '../errors.ts';
import { createKeyFor } from '../security/create-key.ts';
import type { AccountPlan, Ledger, LedgerEntry, UsageRow, VerifyReport } from './ledger.ts';
import { QUOTA_PERIODS, type KeyQuota, type QuotaLimits } from './key-quotas.ts';
import { PPM, type PriceGroup } from './price-groups.ts';
import { type ModelNames, resolveModelNames } from '../catalog/model-catalog.ts';
import { DEFAULT_ALLOWED_TIERS, type ServiceTier } from '../domain/task.ts';
import { MAX_LIMIT_COUNT, MAX_USD_TICKS } from '@vidgen/protocol';

/** An account as operators and its own callers see it; `id` is the operator's name for it. */
export interface AccountView {
  id: string;
  models: string[] | null;
  metered: boolean;
  balanceUsdTicks: number;
  heldUsdTicks: number;
  limits: {
    requestsPerMinute: number | null;
    maxActiveTasks: number | null;
    maxTaskUsdTicks: number | null;
    maxDailyUsdTicks: number | null;
  };
  priceGroup: string | null;
  /** The service tiers its submits may name. */
  serviceTiers: ServiceTier[];
  /** The balance alert's threshold of the available balance; null for none. */
  balanceAlertUsdTicks: number | null;
  /** Since when (epoch ms) the available balance has been under it; null while it is not. */
  balanceLowSince: number | null;
  zeroRetention: boolean;
  createdAt: number;
}

export interface AccountChange {
  models?: string[] | null;
  metered?: boolean;
  requestsPerMinute?: number | null;
  maxActiveTasks?: number | null;
  /** A price group's id; null: the catalog's prices. */
  priceGroup?: string | null;
  maxTaskUsdTicks?: number | null;
  maxDailyUsdTicks?: number | null;
  /** The available balance under which the account's `account.balance_low` event fires; null: none. */
  balanceAlertUsdTicks?: number | null;
  /** Zero retention (docs/storage.md): submits must name an upload URL; delivered videos are not kept. */
  zeroRetention?: boolean;
  /** The service tiers its submits may name; null: the default ones. */
  serviceTiers?: ServiceTier[] | null;
}

/**
 * Operator economics on one service layer: the admin API, `GET /v1/account` and the
 * `vidgen-server accounts|credits|ledger` commands all call this.
 */
export class BillingService {
  /** With `models`, the catalog served, a change naming a model it lacks is refused (it would grant nothing). */
  constructor(
    private readonly deps: {
      accounts: AccountStore;
      ledger: Ledger;
      clock: () => number;
      models?: Pick<ModelNames, 'ids' | 'idOf'>;
    },
  ) {}

  async createAccount(name: string, change: AccountChange & { creditsUsdTicks?: number }): Promise<AccountView> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,199}$/.test(name))
      throw new InvalidRequest('invalid_value', '`id` must be 1–200 letters, digits, `.`, `_`, `@` or `-`.', 'id');
    const models = this.modelIds(change.models);
    const credits = change.creditsUsdTicks;
    if (credits !== undefined && !(Number.isSafeInteger(credits) && credits >= 0 && credits <= MAX_USD_TICKS))
      throw new InvalidRequest(
        'out_of_range',
        `\`credits_usd_ticks\` must be an integer from 0 to ${MAX_USD_TICKS}.`,
        'credits_usd_ticks',
      );
    await this.checkChange(change);
    if (await this.deps.accounts.findAccountByName(name))
      throw new Conflict('account_exists', `An account '${name}' already exists; PATCH it to change it.`);
    // The account, its plan and its first grant commit together, or nothing is left (invariant 4,
    // docs/architecture.md); the key makes a repeated create grant once.
    const account = await this.deps.ledger.atomically(async ({ ledger, accounts }) => {
      const created = await accounts.ensureAccount(name, models ?? null, this.deps.clock());
      await this.writePlan(ledger, created, change);
      await writeZeroRetention(accounts, created, change);
      if (change.serviceTiers !== undefined) await accounts.setServiceTiers(created.id, tiersOf(change.serviceTiers));
      // A given credit makes the account metered.
      if (credits !== undefined) await ledger.setPlan(created.id, { metered: true }, this.deps.clock());
      if (credits !== undefined && credits > 0) {
        const grant = { reason: 'initial credits', idempotencyKey: 'account-created', meter: true };
        await ledger.credit({ accountId: created.id, amountUsdTicks: credits, ...grant }, this.deps.clock());
      }
      return created;
    });
    return this.view(account);
  }

  async account(name: string): Promise<AccountView> {
    return this.view(await this.find(name));
  }

  /** A page of accounts by name (`limit` of them after `after`), those starting with `prefix` if given. */
  async accounts(page: { limit: number; after?: string; prefix?: string }): Promise<AccountView[]> {
    return Promise.all((await this.deps.accounts.listAccounts(page)).map((a) => this.view(a)));
  }

  async updateAccount(name: string, change: AccountChange): Promise<AccountView> {
    const models = this.modelIds(change.models);
    await this.checkChange(change);
    let account = await this.find(name);
    account = await this.deps.ledger.atomically(async ({ ledger, accounts }) => {
      const changed = models === undefined ? account : await accounts.ensureAccount(name, models, this.deps.clock());
      await this.writePlan(ledger, changed, change);
      await writeZeroRetention(accounts, changed, change);
      if (change.serviceTiers === undefined) return changed;
      await accounts.setServiceTiers(changed.id, tiersOf(change.serviceTiers));
      return { ...changed, serviceTiers: tiersOf(change.serviceTiers) };
    });
    return this.view(account);
  }

  async createKey(name: string): Promise<{ id: string; key: string; prefix: string }> {
    await this.find(name);
    const created = await createKeyFor(this.deps.accounts, name, undefined, this.deps.clock());
    return { id: created.id, key: created.secret, prefix: created.secret.slice(0, 10) };
  }

  /** The account's keys, each with its quota (null: none). */
  async keys(name: string): Promise<Array<ApiKeyRecord & { quota: KeyQuota | null }>> {
    const account = await this.find(name);
    const keys = (await this.deps.accounts.listKeys()).filter((k) => k.accountId === account.id);
    const quotas = new Map(
      (
        await this.deps.ledger.keyQuotas(
          keys.map((k) => k.id),
          this.deps.clock(),
        )
      ).map((q) => [q.keyId, q]),
    );
    return keys.map((k) => ({ ...k, quota: quotas.get(k.id) ?? null }));
  }

  priceGroups(): Promise<PriceGroup[]> {
    return this.deps.ledger.priceGroups();
  }

  /** The caller's price group, for `/v1/models`. */
  priceGroupOf(account: Account): Promise<PriceGroup | undefined> {
    return this.deps.ledger.priceGroupOf(account.id);
  }

  /** Creates or replaces a price group: a ratio of the catalog's prices, and/or prices per model (ticks per second). */
  async setPriceGroup(id: string, ratio: number, modelPrices: Record<string, number>): Promise<PriceGroup> {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(id))
      throw new InvalidRequest('invalid_value', '`id` must be 1–64 letters, digits, `.`, `_` or `-`.', 'id');
    const ratioPpm = Math.round(ratio * PPM);
    if (!Number.isFinite(ratio) || ratioPpm < 0 || ratioPpm > 1000 * PPM || Math.abs(ratioPpm / PPM - ratio) > 1e-12)
      throw new InvalidRequest('out_of_range', '`ratio` must be from 0 to 1000, in steps of 0.000001.', 'ratio');
    const ids = this.modelIds(Object.keys(modelPrices)) ?? [];
    const prices: Record<string, number> = {};
    for (const [i, [name, ticks]] of Object.entries(modelPrices).entries()) {
      if (!Number.isSafeInteger(ticks) || ticks < 0)
        throw new InvalidRequest(
          'out_of_range',
          `\`models.${name}\` must be whole USD ticks per second.`,
          `models.${name}`,
        );
      prices[ids[i] ?? name] = ticks;
    }
    return this.deps.ledger.setPriceGroup({ id, ratioPpm, modelPrices: prices }, this.deps.clock());
  }

  /**
   * Sets a key's quota of tasks and of USD ticks (null: no limit; both null removes the quota), over
   * the key's life or per UTC month.
   */
  async setKeyQuota(name: string, keyId: string, limits: QuotaLimits): Promise<KeyQuota | null> {
    const account = await this.find(name);
    const key = await this.deps.accounts.findKey(keyId);
    if (!key || key.accountId !== account.id) throw new NotFound('key', keyId);
    for (const [field, value] of [
      ['quota.max_tasks', limits.maxTasks],
      ['quota.max_usd_ticks', limits.maxUsdTicks],
    ] as const) {
      if (value !== null && (!Number.isSafeInteger(value) || value < 1))
        throw new InvalidRequest('out_of_range', `\`${field}\` must be a positive safe integer or null.`, field);
    }
    if (!QUOTA_PERIODS.includes(limits.period))
      throw new InvalidRequest('invalid_value', '`quota.period` must be "total" or "month".', 'quota.period');
    return (await this.deps.ledger.setKeyQuota(keyId, limits, this.deps.clock())) ?? null;
  }

  async revokeKey(name: string, keyId: string): Promise<void> {
    const account = await this.find(name);
    const key = await this.deps.accounts.findKey(keyId);
    if (!key || key.accountId !== account.id) throw new NotFound('key', keyId);
    await this.deps.accounts.revokeKey(keyId, this.deps.clock());
  }

  /** Grants (positive) or deducts (negative) credits; idempotent with a key. `meter` also makes the account metered. */
  async credit(name: string, amountUsdTicks: number, reason: string, idempotencyKey?: string, meter?: boolean) {
    if (!Number.isSafeInteger(amountUsdTicks) || amountUsdTicks === 0) {
      throw new InvalidRequest(
        'invalid_amount',
        '`amount_usd_ticks` must be a non-zero integer (negative deducts).',
        'amount_usd_ticks',
      );
    }
    const account = await this.find(name);
    const result = await this.deps.ledger.credit(
      { accountId: account.id, amountUsdTicks, reason, idempotencyKey, meter },
      this.deps.clock(),
    );
    return { entry: result.entry, replayed: result.replayed, account: toView(account, result.plan) };
  }

  /** Refunds all or part of what a task was charged (one refund per task; a same repeat is a replay). */
  async refundTask(taskId: string, amountUsdTicks: number | undefined, reason: string) {
    const result = await this.deps.ledger.refund({ taskId, amountUsdTicks, reason }, this.deps.clock());
    const name = (await this.deps.accounts.accountNames([result.entry.accountId])).get(result.entry.accountId);
    const account = name === undefined ? undefined : await this.deps.accounts.findAccountByName(name);
    if (!account) throw new NotFound('account', result.entry.accountId);
    return {
      entry: { ...result.entry, account: account.name },
      replayed: result.replayed,
      account: toView(account, result.plan),
    };
  }

  async entries(query: {
    account?: string;
    taskId?: string;
    after?: string;
    limit: number;
    order?: 'asc' | 'desc';
  }): Promise<Array<LedgerEntry & { account: string }>> {
    const names = await this.names();
    const accountId = query.account === undefined ? undefined : (await this.find(query.account)).id;
    const entries = await this.deps.ledger.entries({
      accountId,
      taskId: query.taskId,
      after: query.after,
      limit: query.limit,
      order: query.order,
    });
    return entries.map((e) => ({ ...e, account: names.get(e.accountId) ?? e.accountId }));
  }

  async usage(query: { account?: string; since?: number; until?: number }): Promise<UsageRow[]> {
    const accountId = query.account === undefined ? undefined : (await this.find(query.account)).id;
    return this.deps.ledger.usage({ accountId, since: query.since, until: query.until });
  }

  /** The caller's own view (`GET /v1/account`). */
  async view(account: Account): Promise<AccountView> {
    return toView(account, await this.deps.ledger.plan(account.id));
  }

  usageOf(account: Account, query: { since?: number; until?: number }): Promise<UsageRow[]> {
    return this.deps.ledger.usage({ accountId: account.id, ...query });
  }

  verify(): Promise<VerifyReport> {
    return this.deps.ledger.verify();
  }

  /**
   * Every amount and limit of a change is a safe integer within its column (invariant 4,
   * docs/architecture.md): checked before anything is written, so a refusal leaves nothing behind.
   */
  private async checkChange(change: AccountChange): Promise<void> {
    if (change.priceGroup === '')
      throw new InvalidRequest('invalid_value', '`price_group` must not be empty; null clears it.', 'price_group');
    if (change.priceGroup && !(await this.deps.ledger.priceGroups()).some((g) => g.id === change.priceGroup))
      throw new InvalidRequest('invalid_value', `No price group '${change.priceGroup}'; PUT it first.`, 'price_group');
    for (const [field, value, max] of [
      ['limits.requests_per_minute', change.requestsPerMinute, MAX_LIMIT_COUNT],
      ['limits.max_active_tasks', change.maxActiveTasks, MAX_LIMIT_COUNT],
      ['limits.max_task_usd_ticks', change.maxTaskUsdTicks, MAX_USD_TICKS],
      ['limits.max_daily_usd_ticks', change.maxDailyUsdTicks, MAX_USD_TICKS],
      ['balance_alert_usd_ticks', change.balanceAlertUsdTicks, MAX_USD_TICKS],
    ] as const) {
      if (value !== undefined && value !== null && !(Number.isSafeInteger(value) && value >= 1 && value <= max))
        throw new InvalidRequest('out_of_range', `\`${field}\` must be an integer from 1 to ${max}, or null.`, field);
    }
  }

  private async writePlan(ledger: Ledger, account: Account, change: AccountChange): Promise<void> {
    if (
      change.metered === undefined &&
      change.requestsPerMinute === undefined &&
      change.maxActiveTasks === undefined &&
      change.maxTaskUsdTicks === undefined &&
      change.maxDailyUsdTicks === undefined &&
      change.priceGroup === undefined &&
      change.balanceAlertUsdTicks === undefined
    )
      return;
    await ledger.setPlan(
      account.id,
      {
        balanceAlertUsdTicks: change.balanceAlertUsdTicks,
        metered: change.metered,
        rpmLimit: change.requestsPerMinute,
        maxActiveTasks: change.maxActiveTasks,
        maxTaskUsdTicks: change.maxTaskUsdTicks,
        maxDailyUsdTicks: change.maxDailyUsdTicks,
        priceGroup: change.priceGroup,
      },
      this.deps.clock(),
    );
  }

  private modelIds(models: string[] | null | undefined): string[] | null | undefined {
    if (!models || !this.deps.models) return models;
    const { ids, unknown } = resolveModelNames(models, this.deps.models);
    if (unknown.length > 0) {
      const offered = this.deps.models.ids.join(', ');
      throw new InvalidRequest(
        'invalid_value',
        `\`models\` names ${unknown.map((m) => `'${m}'`).join(', ')}, not in the catalog (${offered}).`,
        'models',
      );
    }
    return ids;
  }

  private async find(name: string): Promise<Account> {
    const account = await this.deps.accounts.findAccountByName(name);
    if (!account) throw new NotFound('account', name);
    return account;
  }

  private async names(): Promise<Map<string, string>> {
    return new Map((await this.deps.accounts.listAccounts()).map((a) => [a.id, a.name]));
  }
}

async function writeZeroRetention(accounts: AccountStore, account: Account, change: AccountChange): Promise<void> {
  if (change.zeroRetention === undefined) return;
  await accounts.setZeroRetention(account.id, change.zeroRetention);
  account.zeroRetention = change.zeroRetention;
}

function toView(account: Account, plan: AccountPlan | undefined): AccountView {
  return {
    id: account.name,
    models: account.models,
    metered: plan?.metered ?? false,
    balanceUsdTicks: plan?.balanceUsdTicks ?? 0,
    heldUsdTicks: plan?.heldUsdTicks ?? 0,
    limits: {
      requestsPerMinute: plan?.rpmLimit ?? null,
      maxActiveTasks: plan?.maxActiveTasks ?? null,
      maxTaskUsdTicks: plan?.maxTaskUsdTicks ?? null,
      maxDailyUsdTicks: plan?.maxDailyUsdTicks ?? null,
    },
    priceGroup: plan?.priceGroup ?? null,
    serviceTiers: account.serviceTiers ?? [...DEFAULT_ALLOWED_TIERS],
    balanceAlertUsdTicks: plan?.balanceAlertUsdTicks ?? null,
    balanceLowSince: plan?.balanceLowSince ?? null,
    zeroRetention: account.zeroRetention ?? false,
    createdAt: account.createdAt,
  };
}

/** The tiers an operator set, each once; null restores the default ones. */
function tiersOf(tiers: ServiceTier[] | null): ServiceTier[] | null {
  return tiers === null ? null : [...new Set(tiers)];
}
