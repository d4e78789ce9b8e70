import type { BalanceLowSink } from '../billing/balance-alerts.ts';
import { BALANCE_LOW_EVENT_TYPE } from './webhook-events.ts';
import { enabledEndpoints, operatorEndpoint } from './sql-webhook-store.ts';
import { recordEvent } from './record-event.ts';
import { eventId } from './webhook-ids.ts';

export interface BalanceLowOutboxOptions {
  maxAttempts: number;
  /** VIDGEN_OPERATOR_WEBHOOK_URL: the operator's receiver of every account's balance alerts. */
  operatorUrl?: string;
}

/**
 * The outbox of a balance alert (billing/balance-alerts.ts), written in the transaction of the
 * ledger entry that crossed: the `account.balance_low` event with its body frozen, one delivery
 * per enabled endpoint of the account subscribed to it, and one to the operator's webhook when
 * one is configured. The dispatcher sends them like every other delivery (retries, restarts).
 * The event is recorded whoever listens: an alert is rare, and `GET /v1/events` shows it.
 */
export function balanceLowOutbox(options: BalanceLowOutboxOptions): BalanceLowSink {
  return async (trx, alert) => {
    const account = await trx
      .selectFrom('accounts')
      .select('name')
      .where('id', '=', alert.accountId)
      .executeTakeFirstOrThrow();
    const now = alert.at;
    const id = eventId(now);
    const type = BALANCE_LOW_EVENT_TYPE;
    const body = JSON.stringify({
      id,
      type,
      created_at: Math.floor(now / 1000),
      data: {
        // The account as the admin API names it.
        id: account.name,
        object: 'account_balance',
        balance_usd_ticks: alert.balanceUsdTicks,
        held_usd_ticks: alert.heldUsdTicks,
        available_usd_ticks: alert.balanceUsdTicks - alert.heldUsdTicks,
        threshold_usd_ticks: alert.thresholdUsdTicks,
      },
    });
    const endpoints = (await enabledEndpoints(trx, alert.accountId)).filter((e) => e.events.includes(type));
    const targets = endpoints.map((e) => e.id);
    if (options.operatorUrl) targets.push(await operatorEndpoint(trx, alert.accountId, options.operatorUrl, now));
    const event = { id, accountId: alert.accountId, type, taskId: null, createdAt: now, body };
    await recordEvent(trx, event, targets, options.maxAttempts);
  };
}
