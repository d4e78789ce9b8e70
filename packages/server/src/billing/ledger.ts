import type { AccountStore } from '../store/account-store.ts';
import type { KeyQuota, QuotaLimits } from './key-quotas.ts';
import type { PriceGroup } from './price-groups.ts';

/**
 * The ledger's domain (invariant 7, docs/architecture.md). Amounts are integer USD ticks (10⁻¹⁰ USD).
 *
 * Entries are append-only, at most one of each kind per task:
 * - `grant` (+) and `adjust` (±): an operator's credit or deduction; balance += amount.
 * - `hold` H: a metered submit reserves its price; held += H. Written with the task row.
 * - `settle` C (C ≤ H): the task succeeded; balance −= C, held −= C.
 * - `release` R: what a hold no longer needs; held −= R. On failure, cancel or a lost worker
 *   R = H; after a settle R = H − C when the verified output cost less than was held.
 * - `refund` F (0 < F ≤ C, at most one per task): the operator gives back part or all of a settle,
 *   which it names (`refersTo`); balance += F.
 * So balance = Σgrant + Σadjust − Σsettle + Σrefund and held = Σhold − Σsettle − Σrelease, which
 * `verify` recomputes for every account.
 */
export type LedgerKind = 'grant' | 'hold' | 'settle' | 'release' | 'adjust' | 'refund';

export interface LedgerEntry {
  id: string;
  accountId: string;
  taskId: string | null;
  kind: LedgerKind;
  amountUsdTicks: number;
  reason: string;
  idempotencyKey: string | null;
  createdAt: number;
  /** A refund: the id of the settle entry it refunds. */
  refersTo: string | null;
}

/** An account's metering and limits; an account without a plan is unmetered and unlimited. */
export interface AccountPlan {
  accountId: string;
  metered: boolean;
  balanceUsdTicks: number;
  heldUsdTicks: number;
  /** Creates per minute per API key; null for no limit. */
  rpmLimit: number | null;
  /** Queued + running tasks of the account; null for no cap. */
  maxActiveTasks: number | null;
  /** The account's price group; null: the catalog's prices. */
  priceGroup: string | null;
  /** Sanity caps: the most one task may cost, and a UTC day's holds; null for none. */
  maxTaskUsdTicks: number | null;
  maxDailyUsdTicks: number | null;
  /** The balance alert's threshold of `balance − held` (docs/economics.md, "Balance alerts"); null for none. */
  balanceAlertUsdTicks: number | null;
  /** Since when (epoch ms) the available balance has been under it; null while it is armed. */
  balanceLowSince: number | null;
}

export interface PlanChange {
  metered?: boolean;
  rpmLimit?: number | null;
  maxActiveTasks?: number | null;
  priceGroup?: string | null;
  maxTaskUsdTicks?: number | null;
  maxDailyUsdTicks?: number | null;
  balanceAlertUsdTicks?: number | null;
}

export interface CreditRequest {
  accountId: string;
  /** Positive: a grant; negative: a deduction (an `adjust` entry). */
  amountUsdTicks: number;
  reason: string;
  idempotencyKey?: string;
  /**
   * Also make the account metered; without it a credit to an unmetered account is refused (409 `account_unmetered`).
   */
  meter?: boolean;
}

export interface UsageRow {
  accountId: string;
  accountName: string;
  /** The API key the tasks were submitted with; null for tasks from before keys were recorded. */
  keyId: string | null;
  model: string;
  /** The service tier the tasks ran in (domain/task.ts ServiceTier). */
  serviceTier: string;
  /** UTC day, YYYY-MM-DD, of the task's end. */
  day: string;
  tasks: number;
  seconds: number;
  /** Of those, the tasks and seconds whose verified output has sound (priced with its surcharge). */
  soundTasks: number;
  soundSeconds: number;
  costUsdTicks: number;
  upstreamCostUsdTicks: number;
  /** Refunded by the operator (refund entries of these tasks). */
  refundedUsdTicks: number;
}

export interface UsageQuery {
  accountId?: string;
  /** Epoch ms bounds on the task's end. */
  since?: number;
  until?: number;
}

export interface LedgerProblem {
  accountId: string;
  taskId?: string;
  problem: string;
}

export interface VerifyReport {
  accounts: number;
  entries: number;
  problems: LedgerProblem[];
}

/**
 * The ledger's store: plans, credits, entries and the checks over them. Holds, settles and releases are written by its
 * transition effects.
 */
export interface Ledger {
  /**
   * Runs `work` in one transaction of the ledger's database, with the ledger and the account store on it:
   * an account made with its plan and first grant commits whole or not at all (invariant 4,
   * docs/architecture.md).
   */
  atomically<T>(work: (tx: { ledger: Ledger; accounts: AccountStore }) => Promise<T>): Promise<T>;
  plan(accountId: string): Promise<AccountPlan | undefined>;
  setPlan(accountId: string, change: PlanChange, now: number): Promise<AccountPlan>;
  /**
   * Grants or deducts credits of a metered account (or one `meter` makes metered). With an idempotency key a repeat
   * returns the first entry (`replayed`); the key with another amount is refused.
   */
  credit(request: CreditRequest, now: number): Promise<{ entry: LedgerEntry; plan: AccountPlan; replayed: boolean }>;
  /**
   * Refunds part (`amountUsdTicks`) or all (absent) of what a task was charged: one refund per task,
   * so a repeat with the same amount and reason returns the first (`replayed`) and another is refused.
   */
  refund(
    request: { taskId: string; amountUsdTicks?: number; reason: string },
    now: number,
  ): Promise<{ entry: LedgerEntry; plan: AccountPlan; replayed: boolean }>;
  priceGroups(): Promise<PriceGroup[]>;
  /** Creates or replaces a price group. */
  setPriceGroup(group: PriceGroup, now: number): Promise<PriceGroup>;
  priceGroupOf(accountId: string): Promise<PriceGroup | undefined>;
  /** The quotas of these keys (keys without one are left out), as they stand at `now` (a month's may have reset). */
  keyQuotas(keyIds: string[], now: number): Promise<KeyQuota[]>;
  /** Sets a key's quota (both limits null: removes it), keeping what it used. */
  setKeyQuota(keyId: string, limits: QuotaLimits, now: number): Promise<KeyQuota | undefined>;
  /** Entries, oldest first, after the given entry id. */
  entries(query: {
    accountId?: string;
    taskId?: string;
    after?: string;
    limit: number;
    /** By time; default `asc`. */
    order?: 'asc' | 'desc';
  }): Promise<LedgerEntry[]>;
  usage(query: UsageQuery): Promise<UsageRow[]>;
  /** Recomputes every balance and hold from the entries and checks each task's holds are closed once. */
  verify(): Promise<VerifyReport>;
}
