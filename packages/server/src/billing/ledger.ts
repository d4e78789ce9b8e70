/**
 * The ledger's domain (DESIGN invariant 7). Amounts are integer USD ticks (10⁻¹⁰ USD).
 *
 * Entries are append-only, at most one of each kind per task:
 * - `grant` (+) and `adjust` (±): an operator's credit or deduction; balance += amount.
 * - `hold` H: a metered submit reserves its price; held += H. Written with the task row.
 * - `settle` C (C ≤ H): the task succeeded; balance −= C, held −= C.
 * - `release` R: what a hold no longer needs; held −= R. On failure, cancel or a lost worker
 *   R = H; after a settle R = H − C when the verified output cost less than was held.
 * So balance = Σgrant + Σadjust − Σsettle and held = Σhold − Σsettle − Σrelease, which
 * `verify` recomputes for every account.
 */
export type LedgerKind = 'grant' | 'hold' | 'settle' | 'release' | 'adjust';

export interface LedgerEntry {
  id: string;
  accountId: string;
  taskId: string | null;
  kind: LedgerKind;
  amountUsdTicks: number;
  reason: string;
  idempotencyKey: string | null;
  createdAt: number;
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
}

export interface PlanChange {
  metered?: boolean;
  rpmLimit?: number | null;
  maxActiveTasks?: number | null;
}

export interface CreditRequest {
  accountId: string;
  /** Positive: a grant; negative: a deduction (an `adjust` entry). */
  amountUsdTicks: number;
  reason: string;
  idempotencyKey?: string;
}

export interface UsageRow {
  accountId: string;
  accountName: string;
  model: string;
  /** UTC day, YYYY-MM-DD, of the task's end. */
  day: string;
  tasks: number;
  seconds: number;
  /** Of those, the tasks and seconds whose verified output has sound (priced with its surcharge). */
  soundTasks: number;
  soundSeconds: number;
  costUsdTicks: number;
  upstreamCostUsdTicks: number;
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

/** The ledger's store: plans, credits, entries and the checks over them. Holds, settles and releases are written by its transition effects. */
export interface Ledger {
  plan(accountId: string): Promise<AccountPlan | undefined>;
  setPlan(accountId: string, change: PlanChange, now: number): Promise<AccountPlan>;
  /**
   * Grants or deducts credits (making the account metered). With an idempotency key a repeat
   * returns the first entry (`replayed`); the key with another amount is refused.
   */
  credit(request: CreditRequest, now: number): Promise<{ entry: LedgerEntry; plan: AccountPlan; replayed: boolean }>;
  /** Entries, oldest first, after the given entry id. */
  entries(query: { accountId?: string; taskId?: string; after?: string; limit: number }): Promise<LedgerEntry[]>;
  usage(query: UsageQuery): Promise<UsageRow[]>;
  /** Recomputes every balance and hold from the entries and checks each task's holds are closed once. */
  verify(): Promise<VerifyReport>;
}
