import type { Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.ts';
import { ApiError } from '../errors.ts';

const DAY_MS = 86_400_000;

/**
 * The operator's sanity caps (a bug upstream once billed an 80 s render as 10,272 s): a task whose
 * price is over the account's `max_task_usd_ticks`, or whose hold would take the holds the account
 * made this UTC day (less what was released of them) over `max_daily_usd_ticks`, is refused before
 * it is held. Called in the insert's transaction; the daily sum after the plan row is locked.
 */
export function checkTaskCap(maxTask: number | null, price: number): void {
  if (maxTask !== null && price > Number(maxTask))
    throw capExceeded(`This task's price of ${price} USD ticks is over the account's cap of ${maxTask} per task.`);
}

export async function checkDailyCap(
  trx: Kysely<Database>,
  accountId: string,
  maxDaily: number | null,
  price: number,
  now: number,
): Promise<void> {
  if (maxDaily === null) return;
  const dayStart = now - (now % DAY_MS);
  const today = trx
    .selectFrom('ledger_entries')
    .select('task_id')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'hold')
    .where('created_at', '>=', dayStart);
  const row = await trx
    .selectFrom('ledger_entries')
    .select((eb) => [
      eb.fn.sum<number>(eb.case().when('kind', '=', 'hold').then(eb.ref('amount_usd_ticks')).else(0).end()).as('held'),
      eb.fn
        .sum<number>(eb.case().when('kind', '=', 'release').then(eb.ref('amount_usd_ticks')).else(0).end())
        .as('back'),
    ])
    .where('account_id', '=', accountId)
    .where('kind', 'in', ['hold', 'release'])
    .where('task_id', 'in', today)
    .executeTakeFirst();
  const spent = Number(row?.held ?? 0) - Number(row?.back ?? 0);
  if (spent + price > Number(maxDaily))
    throw capExceeded(
      `This task's price of ${price} USD ticks would take the account's spend today (${spent}) over its daily ` +
        `cap of ${maxDaily}.`,
    );
}

function capExceeded(message: string): ApiError {
  return new ApiError(402, 'billing_error', 'spend_cap_exceeded', message);
}
