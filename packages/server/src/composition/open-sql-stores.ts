import type { Logger } from 'pino';
import type { TaskEvents } from '../domain/task-events.ts';
import { openSqlDatabase } from '../store/sql/database.ts';
import { SqlTaskStore } from '../store/sql/sql-task-store.ts';
import { SqlAccountStore } from '../store/sql/sql-account-store.ts';
import { SqlFileStore } from '../store/sql/sql-file-store.ts';
import { SqlBatchStore, type BatchEndEffect } from '../store/sql/sql-batch-store.ts';
import { SqlCharacterStore } from '../store/sql/sql-character-store.ts';
import { SqlOperatorReads } from '../store/sql/sql-operator-reads.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import { SqlLedger } from '../billing/sql-ledger.ts';
import type { BalanceLowSink } from '../billing/balance-alerts.ts';
import { SqlWebhookStore } from '../webhooks/sql-webhook-store.ts';
import { SqlEventLog } from '../webhooks/sql-event-log.ts';
import { SqlChannelHealth } from '../generators/relay/sql-channel-health.ts';
import type { Tracing } from '../observability/tracing/tracing.ts';

export interface SqlStores {
  tasks: SqlTaskStore;
  accounts: SqlAccountStore;
  files: SqlFileStore;
  /** Batches and their line records (migration 0260). */
  batches: SqlBatchStore;
  /** OpenAI's characters (migration 0270). */
  characters: SqlCharacterStore;
  ledger: SqlLedger;
  webhooks: SqlWebhookStore;
  /** Every account's events with their frozen webhook bodies (migration 0130). */
  eventLog: SqlEventLog;
  /** Relay channels' breakers, limits and overrides, shared by every process (migration 0030). */
  channelHealth: SqlChannelHealth;
  /** The operator console's reads across accounts (migration 0190). */
  operator: SqlOperatorReads;
  /**
   * Wake-up hints reach the other processes on this database (PostgreSQL); without them a process
   * learns of another's changes only by reading the tasks table again.
   */
  wakeupsCrossProcesses: boolean;
  /** One round trip, for readiness checks. */
  ping(): Promise<void>;
  /** Stops the wake-up bridge, then closes the database. */
  close(): Promise<void>;
}

/**
 * Everything the service keeps in its database, built as production runs it: the contract
 * suites open their stores here too, so the read path a poll takes is the one under test.
 * `location` is a `postgres://` URL or an SQLite path; `events` are bridged to the other
 * processes on the same database where the dialect can.
 */
export async function openSqlStores(
  location: string,
  options: {
    events: TaskEvents;
    logger: Logger;
    effects?: readonly TransitionEffects[];
    /** Writes the balance alert of a credit, deduction or refund that crosses an account's threshold. */
    balanceLow?: BalanceLowSink;
    /** Writes a batch's end event with its final change. */
    batchEnd?: BatchEndEffect;
    tracing?: Tracing;
  },
): Promise<SqlStores> {
  const database = await openSqlDatabase(location, options.tracing);
  let bridge;
  try {
    bridge = await database.dialect.bridgeWakeups(options.events, options.logger);
  } catch (err) {
    await database.close();
    throw err;
  }
  return {
    tasks: new SqlTaskStore(database.db, database.dialect, options.effects),
    accounts: new SqlAccountStore(database.db),
    files: new SqlFileStore(database.db),
    batches: new SqlBatchStore(database.db, database.dialect, options.batchEnd),
    characters: new SqlCharacterStore(database.db),
    ledger: new SqlLedger(database.db, options.balanceLow),
    webhooks: new SqlWebhookStore(database.db, database.dialect),
    eventLog: new SqlEventLog(database.db),
    channelHealth: new SqlChannelHealth(database.db),
    operator: new SqlOperatorReads(database.db),
    wakeupsCrossProcesses: bridge.crossesProcesses,
    ping: database.ping,
    async close() {
      await bridge.close();
      await database.close();
    },
  };
}
