import type { Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.ts';
import type { Account } from '../store/account-store.ts';
import type { SubmitAdmission } from '../engine/task-service.ts';
import { TooManyRequests } from '../errors.ts';

/**
 * Creates per minute per API key, counted in the database so every API process shares one
 * count (no per-process counters). Fixed one-minute windows: one conditional upsert per create,
 * and `Retry-After` is exactly the time until the window that will accept the request.
 */
export class SqlRateLimits implements SubmitAdmission {
  /** `windowMs`: one minute in production (the limit is per minute); shorter only where a test waits it out. */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly windowMs = 60_000,
  ) {}

  async admit(account: Account, keyId: string | undefined, now: number): Promise<void> {
    if (!keyId) return;
    const plan = await this.db
      .selectFrom('account_plans')
      .select('rpm_limit')
      .where('account_id', '=', account.id)
      .executeTakeFirst();
    const limit = plan?.rpm_limit;
    if (limit === null || limit === undefined) return;
    const windowStart = now - (now % this.windowMs);
    const retryAfter = Math.max(1, Math.ceil((windowStart + this.windowMs - now) / 1000));
    if (limit <= 0) throw refused(limit, retryAfter);
    const taken = await this.db
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
      await this.db
        .deleteFrom('rate_windows')
        .where('key_id', '=', keyId)
        .where('window_start', '<', windowStart)
        .execute();
  }
}

function refused(limit: number, retryAfter: number): TooManyRequests {
  return new TooManyRequests(
    'rate_limit_exceeded',
    `This API key may create ${limit} tasks per minute; try again in ${retryAfter} s.`,
    retryAfter,
  );
}
