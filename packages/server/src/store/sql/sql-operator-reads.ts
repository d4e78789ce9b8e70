import { sql, type Kysely } from 'kysely';
import { uuidv7Floor } from '../../domain/ids.ts';
import type { Task } from '../../domain/task.ts';
import {
  ACTIVE_COUNT_CAP,
  type DeliveryRef,
  type OperatorReads,
  type OperatorTaskQuery,
  type OverviewNumbers,
  type UsageSeriesQuery,
  type UsageSeriesRow,
} from '../operator-reads.ts';
import type { Database } from './schema.ts';
import { toTask } from './task-row.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** The operator's reads over SQL (store/operator-reads.ts); the indexes they walk are migration 0190's. */
export class SqlOperatorReads implements OperatorReads {
  constructor(private readonly db: Kysely<Database>) {}

  async tasks(q: OperatorTaskQuery): Promise<Task[]> {
    // Ids are time-ordered (uuidv7): the time range is a range of ids, so the page walks one index
    // (by status, by account, by both, or the primary key) from its start and stops after `limit` rows.
    let query = this.db.selectFrom('tasks').selectAll().orderBy('id', 'desc').limit(q.limit);
    if (q.accountId !== undefined) query = query.where('account_id', '=', q.accountId);
    if (q.status !== undefined) query = query.where('status', '=', q.status);
    if (q.model !== undefined) query = query.where('model', '=', q.model);
    if (q.family !== undefined) query = query.where('family', '=', q.family);
    if (q.tier !== undefined) query = query.where('service_tier', '=', q.tier);
    if (q.batchId !== undefined) query = query.where('batch_id', '=', q.batchId);
    if (q.since !== undefined) query = query.where('id', '>=', uuidv7Floor(q.since));
    if (q.until !== undefined) query = query.where('id', '<', uuidv7Floor(q.until));
    if (q.after !== undefined) query = query.where('id', '<', q.after);
    return (await query.execute()).map(toTask);
  }

  async task(id: string) {
    const row = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return undefined;
    const attempts = await this.db
      .selectFrom('task_attempts')
      .selectAll()
      .where('task_id', '=', id)
      .orderBy('attempt')
      .execute();
    return {
      task: toTask(row),
      attempts: attempts.map((a) => ({
        attempt: Number(a.attempt),
        worker: a.worker,
        startedAt: Number(a.started_at),
        endedAt: a.ended_at === null ? null : Number(a.ended_at),
        outcome: a.outcome,
        errorCode: a.error_code,
      })),
    };
  }

  async overview(now: number): Promise<OverviewNumbers> {
    const firstHour = Math.floor(now / HOUR_MS) * HOUR_MS - 23 * HOUR_MS;
    const today = Math.floor(now / DAY_MS) * DAY_MS;
    const [queued, running, oldest, hours, codes, spendToday, spendYesterday] = await Promise.all([
      this.activeByModel('queued'),
      this.activeByModel('running'),
      this.db
        .selectFrom('tasks')
        .select('created_at')
        .where('status', '=', 'queued')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst(),
      this.db
        .selectFrom('usage_hourly')
        .select(['hour', 'outcome', (eb) => eb.fn.sum<number>('tasks').as('n')])
        .where('hour', '>=', firstHour)
        .groupBy(['hour', 'outcome'])
        .execute(),
      this.db
        .selectFrom('usage_hourly')
        .select(['error_code', (eb) => eb.fn.sum<number>('tasks').as('n')])
        .where('hour', '>=', firstHour)
        .where('outcome', '=', 'failed')
        .groupBy('error_code')
        .execute(),
      this.spend(today, today + DAY_MS),
      this.spend(today - DAY_MS, today),
    ]);
    return {
      active: activeByModel([...queued, ...running]),
      oldestQueuedAt: oldest ? Number(oldest.created_at) : null,
      hours: Array.from({ length: 24 }, (_, i) => {
        const hour = firstHour + i * HOUR_MS;
        const count = (outcome: string) =>
          Number(hours.find((h) => Number(h.hour) === hour && h.outcome === outcome)?.n ?? 0);
        return { hour, succeeded: count('succeeded'), failed: count('failed'), canceled: count('canceled') };
      }),
      failureCodes: codes
        .map((c) => ({ code: c.error_code || 'unknown', count: Number(c.n) }))
        .sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
      spendTodayUsdTicks: spendToday,
      spendYesterdayUsdTicks: spendYesterday,
    };
  }

  /**
   * The models with tasks in `status` and how many each has, by probes of `tasks_status_model` (migration
   * 0280): a skip-scan finds each next model, and each count stops at the cap. However long the backlog,
   * this reads at most the cap's worth of index entries per model, never a task row.
   */
  private async activeByModel(status: 'queued' | 'running') {
    const { rows } = await sql<{ model: string; n: number }>`
      WITH RECURSIVE models(model) AS (
        SELECT (SELECT MIN(model) FROM tasks WHERE status = ${status})
        UNION ALL
        SELECT (SELECT MIN(t.model) FROM tasks t WHERE t.status = ${status} AND t.model > models.model)
        FROM models WHERE models.model IS NOT NULL
      )
      SELECT model, (
        SELECT COUNT(*) FROM (
          SELECT 1 AS one FROM tasks c WHERE c.status = ${status} AND c.model = models.model
          LIMIT ${sql.lit(ACTIVE_COUNT_CAP)}
        ) capped
      ) AS n
      FROM models WHERE model IS NOT NULL`.execute(this.db);
    return rows.map((r) => ({ model: r.model, status, n: Number(r.n) }));
  }

  private async spend(from: number, to: number): Promise<number> {
    const row = await this.db
      .selectFrom('usage_hourly')
      .select((eb) => eb.fn.sum<number>('spend_usd_ticks').as('spend'))
      .where('hour', '>=', from)
      .where('hour', '<', to)
      .executeTakeFirst();
    return Number(row?.spend ?? 0);
  }

  async usageSeries(q: UsageSeriesQuery): Promise<UsageSeriesRow[]> {
    const size = q.bucket === 'day' ? DAY_MS : HOUR_MS;
    const start = sql<number>`(hour / ${sql.lit(size)}) * ${sql.lit(size)}`;
    const group = q.groupBy === 'account' ? sql.ref('account_id') : sql.ref(q.groupBy);
    const rows = await this.db
      .selectFrom('usage_hourly')
      .select([
        start.as('start'),
        group.as('grp'),
        (eb) => eb.fn.sum<number>('tasks').as('tasks'),
        (eb) => eb.fn.sum<number>('spend_usd_ticks').as('spend'),
        (eb) => eb.fn.sum<number>('rendered_ms').as('rendered'),
      ])
      .where('hour', '>=', q.since)
      .where('hour', '<', q.until)
      .groupBy([start, group])
      .orderBy('start')
      .orderBy('grp')
      .execute();
    return rows.map((r) => ({
      start: Number(r.start),
      group: String(r.grp),
      tasks: Number(r.tasks),
      spendUsdTicks: Number(r.spend),
      renderedMs: Number(r.rendered),
    }));
  }

  async deliveryIds(q: { status: string; after?: string; limit: number }): Promise<DeliveryRef[]> {
    let query = this.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('status', '=', q.status)
      .orderBy('id', 'desc')
      .limit(q.limit);
    if (q.after !== undefined) query = query.where('id', '<', q.after);
    return (await query.execute()).map((r) => ({ id: r.id, endpointId: r.endpoint_id }));
  }

  async deliveryRef(id: string): Promise<DeliveryRef | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('id', '=', id)
      .executeTakeFirst();
    return row && { id: row.id, endpointId: row.endpoint_id };
  }

  async taskDeliveryIds(taskId: string): Promise<DeliveryRef[]> {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'endpoint_id'])
      .where('task_id', '=', taskId)
      .orderBy('id')
      .limit(100)
      .execute();
    return rows.map((r) => ({ id: r.id, endpointId: r.endpoint_id }));
  }

  async failingEndpoints(limit: number) {
    const rows = await this.db
      .selectFrom('webhook_deliveries')
      .select(['endpoint_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where('status', '=', 'failed')
      .groupBy('endpoint_id')
      .orderBy(sql`COUNT(*)`, 'desc')
      .orderBy('endpoint_id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ endpointId: r.endpoint_id, failed: Number(r.n) }));
  }
}

function activeByModel(rows: Array<{ model: string; status: string; n: number }>): OverviewNumbers['active'] {
  const byModel = new Map<string, { model: string; queued: number; running: number }>();
  for (const r of rows) {
    const entry = byModel.get(r.model) ?? { model: r.model, queued: 0, running: 0 };
    if (r.status === 'queued') entry.queued = Number(r.n);
    else entry.running = Number(r.n);
    byModel.set(r.model, entry);
  }
  return [...byModel.values()].sort((a, b) => a.model.localeCompare(b.model));
}
