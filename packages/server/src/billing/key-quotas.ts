import type { Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import type { ModelCatalog } from '../catalog/model-catalog.ts';
import { ApiError } from '../errors.ts';
import { holdTicks } from './prices.ts';

/** A key's quota and what it used: tasks created, and USD ticks (held while a task runs, then what it cost). */
export interface KeyQuota {
  keyId: string;
  maxTasks: number | null;
  maxUsdTicks: number | null;
  tasksUsed: number;
  usdTicksUsed: number;
}

/**
 * Per API key quotas (new-api's token quota): a number of tasks and a spend in USD ticks, over the
 * key's life. Checked in the transaction that inserts the task and holds its price: one conditional
 * UPDATE of the key's quota row, which also locks it (PostgreSQL) until the insert commits, so
 * concurrent submits with one key cannot both take its last place. The ledger stays the account's;
 * the quota only refuses. At the task's end the spend is corrected from the price counted at submit
 * to what the task cost (nothing for a failure). Keys without a quota row have no quota.
 */
export function keyQuotaEffects(catalog: Pick<ModelCatalog, 'find'>, clock: () => number): TransitionEffects {
  return {
    async created(trx, task, request) {
      if (!request.keyId) return;
      const price = holdTicks(catalog.find(task.model), task);
      const taken = await trx
        .updateTable('key_quotas')
        .set((eb) => ({
          tasks_used: eb('tasks_used', '+', 1),
          usd_ticks_used: eb('usd_ticks_used', '+', price),
          updated_at: clock(),
        }))
        .where('key_id', '=', request.keyId)
        .where((eb) => eb.or([eb('max_tasks', 'is', null), eb('tasks_used', '<', eb.ref('max_tasks'))]))
        .where((eb) =>
          eb.or([eb('max_usd_ticks', 'is', null), eb(eb('usd_ticks_used', '+', price), '<=', eb.ref('max_usd_ticks'))]),
        )
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) === 1) return;
      const quota = await readQuota(trx, request.keyId);
      if (quota) throw quotaExceeded(quota, price);
    },

    // Only a task submitted with a key that has a quota has anything to correct.
    idleOnCompletion: (eb) =>
      eb.not(
        eb.exists(eb.selectFrom('key_quotas').select('key_id').whereRef('key_quotas.key_id', '=', 'tasks.api_key_id')),
      ),
    finishedLookups: (eb) => ({
      quota: eb.exists(
        eb.selectFrom('key_quotas').select('key_quotas.key_id').whereRef('key_quotas.key_id', '=', 'tasks.api_key_id'),
      ),
    }),

    async finished(trx, task, looked) {
      if (task.status === 'expired' || !Number(looked.quota)) return;
      // The ledger's effect, before this one in the same transaction, has written the task's cost.
      const row = await trx
        .selectFrom('tasks')
        .select(['api_key_id', 'cost_usd_ticks'])
        .where('id', '=', task.id)
        .executeTakeFirstOrThrow();
      const counted = holdTicks(catalog.find(task.model), task);
      const unused = counted - Number(row.cost_usd_ticks ?? 0);
      if (!row.api_key_id || unused === 0) return;
      await trx
        .updateTable('key_quotas')
        .set((eb) => ({ usd_ticks_used: eb('usd_ticks_used', '-', unused), updated_at: clock() }))
        .where('key_id', '=', row.api_key_id)
        .execute();
    },
  };
}

export async function readQuota(db: Kysely<Database>, keyId: string): Promise<KeyQuota | undefined> {
  const row = await db.selectFrom('key_quotas').selectAll().where('key_id', '=', keyId).executeTakeFirst();
  return row && toQuota(row);
}

export async function readQuotas(db: Kysely<Database>, keyIds: string[]): Promise<KeyQuota[]> {
  if (keyIds.length === 0) return [];
  return (await db.selectFrom('key_quotas').selectAll().where('key_id', 'in', keyIds).execute()).map(toQuota);
}

/** Sets (or with both limits null, removes) a key's quota; what it used so far is kept. */
export async function writeQuota(
  db: Kysely<Database>,
  keyId: string,
  limits: { maxTasks: number | null; maxUsdTicks: number | null },
  now: number,
): Promise<KeyQuota | undefined> {
  if (limits.maxTasks === null && limits.maxUsdTicks === null) {
    await db.deleteFrom('key_quotas').where('key_id', '=', keyId).execute();
    return undefined;
  }
  const set = { max_tasks: limits.maxTasks, max_usd_ticks: limits.maxUsdTicks, updated_at: now };
  await db
    .insertInto('key_quotas')
    .values({ key_id: keyId, ...set, tasks_used: 0, usd_ticks_used: 0 })
    .onConflict((oc) => oc.column('key_id').doUpdateSet(set))
    .execute();
  return readQuota(db, keyId);
}

function toQuota(row: {
  key_id: string;
  max_tasks: number | null;
  max_usd_ticks: number | null;
  tasks_used: number;
  usd_ticks_used: number;
}): KeyQuota {
  return {
    keyId: row.key_id,
    maxTasks: row.max_tasks === null ? null : Number(row.max_tasks),
    maxUsdTicks: row.max_usd_ticks === null ? null : Number(row.max_usd_ticks),
    tasksUsed: Number(row.tasks_used),
    usdTicksUsed: Number(row.usd_ticks_used),
  };
}

function quotaExceeded(quota: KeyQuota, price: number): ApiError {
  const message =
    quota.maxTasks !== null && quota.tasksUsed >= quota.maxTasks
      ? `This API key's quota of ${quota.maxTasks} tasks is used up (${quota.tasksUsed} created).`
      : `This API key's quota of ${quota.maxUsdTicks} USD ticks does not cover this request's price of ${price} ` +
        `(${quota.usdTicksUsed} used).`;
  return new ApiError(402, 'billing_error', 'key_quota_exceeded', message);
}
