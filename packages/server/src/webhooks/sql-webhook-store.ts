import type { Kysely, Selectable } from 'kysely';
import type { Lease } from '../domain/lease.ts';
import { heldBy, leasedBy } from '../store/sql/lease-fence.ts';
import type { Database, WebhookDeliveriesTable, WebhookEndpointsTable } from '../store/sql/schema.ts';
import type { SqlDialect } from '../store/sql/sql-dialect.ts';
import { operatorEndpointId } from './webhook-ids.ts';
import {
  BALANCE_LOW_EVENT_TYPE,
  DELIVERY_STATUSES,
  type AttemptEnd,
  type DeliveryStatus,
  type DisabledBy,
  type EndpointStatus,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEventType,
} from './webhook-events.ts';
import type { ClaimRequest, EndpointSwitch, NewDelivery, NewEndpoint, WebhookStore } from './webhook-store.ts';

/** What the operator's endpoints get: the account events, never a task's. */
const ACCOUNT_EVENT_TYPES = [BALANCE_LOW_EVENT_TYPE];

export class SqlWebhookStore implements WebhookStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
  ) {}

  async insertEndpoint(e: NewEndpoint): Promise<WebhookEndpoint> {
    const row = await this.db
      .insertInto('webhook_endpoints')
      .values({
        id: e.id,
        account_id: e.accountId,
        url: e.url,
        events: JSON.stringify(e.events),
        secret: e.secret,
        previous_secret: null,
        previous_secret_until: null,
        status: 'enabled',
        disabled_reason: null,
        disabled_by: null,
        enabled_at: e.createdAt,
        created_at: e.createdAt,
        deleted_at: null,
        task_id: null,
        audience: 'account',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toEndpoint(row);
  }

  async getEndpoint(accountId: string, id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.live().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
    return row && toEndpoint(row);
  }

  async endpointById(id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst();
    return (
      row && {
        ...toEndpoint(row),
        ...(row.deleted_at !== null ? { status: 'disabled' as const, disabledReason: 'deleted' } : {}),
      }
    );
  }

  async listEndpoints(accountId?: string, page?: { limit: number; after?: string }): Promise<WebhookEndpoint[]> {
    let query = this.live().orderBy('created_at').orderBy('id');
    if (accountId !== undefined) query = query.where('account_id', '=', accountId);
    if (page?.after !== undefined) {
      const after = page.after;
      // Deleted endpoints still mark their place, so a page boundary survives a deletion.
      const cursor = await this.db
        .selectFrom('webhook_endpoints')
        .select('created_at')
        .where('id', '=', after)
        .executeTakeFirst();
      if (!cursor) return [];
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '>', cursor.created_at),
          eb.and([eb('created_at', '=', cursor.created_at), eb('id', '>', after)]),
        ]),
      );
    }
    if (page) query = query.limit(page.limit);
    return (await query.execute()).map(toEndpoint);
  }

  async deleteEndpoint(accountId: string, id: string, now: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('webhook_endpoints')
        .set({ deleted_at: now, status: 'disabled', disabled_reason: 'deleted', disabled_by: 'account' })
        .where('account_id', '=', accountId)
        .where('audience', '=', 'account')
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await cancelPending(trx, id, 'The endpoint was deleted.');
      return true;
    });
  }

  async rotateSecret(
    accountId: string,
    id: string,
    sealedSecret: string,
    previousUntil: number,
  ): Promise<WebhookEndpoint | undefined> {
    const row = await this.db
      .updateTable('webhook_endpoints')
      .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_until: previousUntil, secret: sealedSecret }))
      .where('account_id', '=', accountId)
      .where('audience', '=', 'account')
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row && toEndpoint(row);
  }

  async disableEndpoint(id: string, reason: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: reason, disabled_by: 'server' })
        .where('id', '=', id)
        .execute();
      await cancelPending(trx, id, reason);
    });
  }

  async switchEndpoint(accountId: string, id: string, change: EndpointSwitch): Promise<WebhookEndpoint | undefined> {
    return this.db.transaction().execute(async (trx) => {
      let update = trx
        .updateTable('webhook_endpoints')
        .set(
          change.enabled
            ? { status: 'enabled', disabled_reason: null, disabled_by: null, enabled_at: change.now }
            : { status: 'disabled', disabled_reason: change.reason, disabled_by: change.by },
        )
        .where('account_id', '=', accountId)
        .where('audience', '=', 'account')
        .where('id', '=', id)
        .where('deleted_at', 'is', null);
      if (change.enabled && change.by === 'account')
        update = update.where((eb) => eb.or([eb('disabled_by', 'is', null), eb('disabled_by', '!=', 'operator')]));
      const row = await update.returningAll().executeTakeFirst();
      if (row && !change.enabled) await cancelPending(trx, id, change.reason);
      return row && toEndpoint(row);
    });
  }

  async failingSince(endpointId: string, notBefore: number): Promise<number | undefined> {
    const ofEndpoint = (status: string) =>
      this.db.selectFrom('webhook_deliveries').where('endpoint_id', '=', endpointId).where('status', '=', status);
    const lastSuccess = await ofEndpoint('delivered')
      .select((eb) => eb.fn.max('delivered_at').as('at'))
      .executeTakeFirst();
    const after = Math.max(
      notBefore,
      lastSuccess?.at === null || lastSuccess?.at === undefined ? -1 : Number(lastSuccess.at),
    );
    const row = await ofEndpoint('failed')
      .where('created_at', '>=', after)
      .select((eb) => eb.fn.min('created_at').as('at'))
      .executeTakeFirst();
    return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
  }

  async deliveryCounts(endpointIds: readonly string[]): Promise<Map<string, Record<DeliveryStatus, number>>> {
    const counts = new Map(
      endpointIds.map((id) => [
        id,
        Object.fromEntries(DELIVERY_STATUSES.map((s) => [s, 0])) as Record<DeliveryStatus, number>,
      ]),
    );
    if (endpointIds.length === 0) return counts;
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['endpoint_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
      .where('endpoint_id', 'in', endpointIds)
      .groupBy(['endpoint_id', 'status'])
      .execute();
    for (const row of rows) {
      const of = counts.get(row.endpoint_id);
      if (of && row.status in of) of[row.status as DeliveryStatus] = Number(row.n);
    }
    return counts;
  }

  async enqueue(deliveries: readonly NewDelivery[], now: number): Promise<void> {
    await insertDeliveries(this.db, deliveries, now);
  }

  async claimDue({
    owner,
    now,
    leaseMs,
    limit,
  }: ClaimRequest): Promise<Array<{ delivery: WebhookDelivery; lease: Lease }>> {
    const due = this.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .orderBy('next_attempt_at')
      .limit(limit);
    // A read first: an idle dispatcher polling with an UPDATE would take SQLite's write lock on
    // every poll, competing with the workers' heartbeats for nothing.
    if (!(await due.executeTakeFirst())) return [];
    // While claimed, a row is due again only when its lease runs out: a killed dispatcher's
    // deliveries are taken by another one then, with the same event id (at-least-once).
    const rows = await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        lease_owner: owner,
        lease_token: eb('lease_token', '+', 1),
        attempts: eb('attempts', '+', 1),
        next_attempt_at: now + leaseMs,
      }))
      .where('id', 'in', this.dialect.lockForTaking(due))
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', now)
      .returningAll()
      .execute();
    return rows.map((row) => ({
      delivery: toDelivery(row),
      lease: { id: row.id, owner, token: Number(row.lease_token), expiresAt: now + leaseMs },
    }));
  }

  async endAttempt(lease: Lease, end: AttemptEnd): Promise<boolean> {
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({
        status: end.status,
        lease_owner: null,
        last_status_code: end.statusCode,
        last_error: end.status === 'delivered' ? null : end.error,
        ...(end.status === 'delivered' ? { delivered_at: end.now } : {}),
        ...(end.status === 'pending' ? { next_attempt_at: end.nextAttemptAt } : {}),
      })
      .where(heldBy(lease, 'webhook_deliveries'))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async leasedBy(owner: string): Promise<string[]> {
    return leasedBy(this.db, 'webhook_deliveries', owner);
  }

  async listDeliveries(
    endpointId: string,
    { limit, after }: { limit: number; after?: string },
  ): Promise<WebhookDelivery[]> {
    let query = this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .orderBy('id', 'desc')
      .limit(limit);
    if (after) query = query.where('id', '<', after);
    return (await query.execute()).map(toDelivery);
  }

  async getDelivery(endpointId: string, id: string): Promise<WebhookDelivery | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toDelivery(row);
  }

  async retryDelivery(endpointId: string, id: string, now: number): Promise<WebhookDelivery | undefined> {
    // A new lease token too: a dispatcher still holding the old claim cannot end this attempt.
    const row = await this.db
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status: 'pending',
        next_attempt_at: now,
        lease_owner: null,
        lease_token: eb('lease_token', '+', 1),
        max_attempts: eb('attempts', '+', 1),
      }))
      .where('endpoint_id', '=', endpointId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toDelivery(row);
  }

  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  }

  async linkKeyOf(accountId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row?.id;
  }

  /**
   * The account's own endpoints: per-request callbacks (a task's, `task_id` set) and the operator's
   * endpoint for the account are not among them.
   */
  private live() {
    return this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('deleted_at', 'is', null)
      .where('task_id', 'is', null)
      .where('audience', '=', 'account');
  }
}

/** Also used inside a task's transition transaction (webhook-outbox.ts). */
export async function insertDeliveries(
  db: Kysely<Database>,
  deliveries: readonly NewDelivery[],
  now: number,
): Promise<void> {
  if (deliveries.length === 0) return;
  await db
    .insertInto('webhook_deliveries')
    .values(
      deliveries.map((d) => ({
        id: d.id,
        event_id: d.eventId,
        endpoint_id: d.endpointId,
        account_id: d.accountId,
        event_type: d.eventType,
        task_id: d.taskId,
        created_at: d.createdAt,
        status: 'pending',
        attempts: 0,
        max_attempts: d.maxAttempts,
        next_attempt_at: now,
        lease_owner: null,
        lease_token: 0,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
      })),
    )
    .execute();
}

/** The account's enabled endpoints, as the outbox reads them inside a transition. */
export async function enabledEndpoints(db: Kysely<Database>, accountId: string): Promise<WebhookEndpoint[]> {
  const rows = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('task_id', 'is', null)
    .where('audience', '=', 'account')
    .where('status', '=', 'enabled')
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map(toEndpoint);
}

/**
 * The operator's endpoint for the account's events (VIDGEN_OPERATOR_WEBHOOK_URL), made or pointed at
 * `url` inside the transaction of the event it is about to get. A row per account, so that its
 * deliveries are outbox rows like any other (claimed, retried, listed); it holds no secret, since
 * the dispatcher signs the operator's deliveries with the operator's own (operator-webhook.ts).
 */
export async function operatorEndpoint(db: Kysely<Database>, accountId: string, url: string, now: number) {
  const id = operatorEndpointId(accountId);
  await db
    .insertInto('webhook_endpoints')
    .values({
      id,
      account_id: accountId,
      audience: 'operator',
      url,
      events: JSON.stringify(ACCOUNT_EVENT_TYPES),
      secret: '',
      previous_secret: null,
      previous_secret_until: null,
      status: 'enabled',
      disabled_reason: null,
      disabled_by: null,
      enabled_at: now,
      created_at: now,
      deleted_at: null,
      task_id: null,
    })
    .onConflict((oc) => oc.column('id').doUpdateSet({ url }))
    .execute();
  return id;
}

async function cancelPending(db: Kysely<Database>, endpointId: string, reason: string): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set((eb) => ({
      status: 'canceled',
      last_error: reason,
      lease_owner: null,
      lease_token: eb('lease_token', '+', 1),
    }))
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .execute();
}

function toEndpoint(row: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: row.id,
    accountId: row.account_id,
    audience: row.audience === 'operator' ? 'operator' : 'account',
    url: row.url,
    events: JSON.parse(row.events) as WebhookEventType[],
    status: row.status as EndpointStatus,
    disabledReason: row.disabled_reason,
    disabledBy: row.disabled_by as DisabledBy | null,
    createdAt: Number(row.created_at),
    enabledAt: Number(row.enabled_at ?? row.created_at),
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretUntil: row.previous_secret_until === null ? null : Number(row.previous_secret_until),
  };
}

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    accountId: row.account_id,
    eventType: row.event_type,
    taskId: row.task_id,
    createdAt: Number(row.created_at),
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    maxAttempts: Number(row.max_attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    deliveredAt: row.delivered_at === null ? null : Number(row.delivered_at),
  };
}
