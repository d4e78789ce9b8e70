import type { Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.ts';
import type { TransitionEffects } from '../store/sql/transition-effects.ts';
import { TooManyRequests } from '../errors.ts';

/**
 * Creates per minute per API key (`requests_per_minute`), counted in the transaction that inserts
 * the task, after every other check of the submit: a refused submit (400, 402, 409, 429 of another
 * limit) rolls its count back with the rest, so only accepted creates count. In the database, so
 * every API process shares one count. Fixed windows: one conditional upsert per create, which also
 * locks the key's window row until the insert commits (PostgreSQL; SQLite writes one at a time),
 * so concurrent creates across processes cannot both take the last place; `Retry-After` is exactly
 * the time until the window that will accept the request.
 */
export function perKeyRateLimit(windowMs = 60_000, clock: () => number = Date.now): TransitionEffects {
  return {
    async created(trx, task, request) {
      const keyId = request.keyId;
      // A batch's lines are not requests of the minute (as xAI's batches are not): the batch was.
      if (!keyId || task.batchId !== null) return;
      const plan = await trx
        .selectFrom('account_plans')
        .select('rpm_limit')
        .where('account_id', '=', task.accountId)
        .executeTakeFirst();
      const limit = plan?.rpm_limit;
      if (limit === null || limit === undefined) return;
      await takePlace(trx, keyId, limit, windowMs, clock());
    },
  };
}

async function takePlace(
  trx: Kysely<Database>,
  keyId: string,
  limit: number,
  windowMs: number,
  now: number,
): Promise<void> {
  const windowStart = now - (now % windowMs);
  const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000));
  if (limit <= 0) throw refused(limit, retryAfter);
  const taken = await trx
    .insertInto('rate_windows')
    .values({ key_id: keyId, window_start: windowStart, count: 1 })
    .onConflict((oc) =>
      oc
        .columns(['key_id', 'window_start'])
        .doUpdateSet((eb) => ({ count: eb('rate_windows.count', '+', 1) }))
        .where('rate_windows.count', '<', limit),
    )
    .returning('count')
    .executeTakeFirst();
  if (!taken) throw refused(limit, retryAfter);
  // The first create of a window clears the key's older windows.
  if (Number(taken.count) === 1)
    await trx.deleteFrom('rate_windows').where('key_id', '=', keyId).where('window_start', '<', windowStart).execute();
}

function refused(limit: number, retryAfter: number): TooManyRequests {
  return new TooManyRequests(
    'rate_limit_exceeded',
    `This API key may create ${limit} tasks per minute; try again in ${retryAfter} s.`,
    retryAfter,
  );
}
