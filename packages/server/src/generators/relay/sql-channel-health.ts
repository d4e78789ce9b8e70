/**
 * ChannelHealth in the service's database (migration 0030_relay_channels), so every worker process
 * sees one breaker and one set of limits per channel. Every change is one conditional statement
 * (SQLite and PostgreSQL alike), so concurrent processes cannot lose an increment or both take the
 * single probe; a limit check locks the channel's row first (an UPDATE), so two processes cannot
 * both take the last slot.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/sql/schema.ts';
import type {
  Admission,
  BreakerSettings,
  ChannelHealth,
  ChannelLimits,
  ChannelOverride,
  ChannelSnapshot,
  ChannelState,
} from './channel-health.ts';
import { callStats, recordCall } from './sql-channel-calls.ts';

const MINUTE_MS = 60_000;

export class SqlChannelHealth implements ChannelHealth {
  constructor(private readonly db: Kysely<Database>) {}

  async admit(channelId: string, s: BreakerSettings, now: number): Promise<Admission> {
    const row = await this.db
      .selectFrom('relay_channels')
      .select(['state', 'opened_at', 'probe_until'])
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    if (!row || row.state === 'closed') return 'yes';
    // The cool-down is over (or the last probe went silent): the first to claim the probe tries it.
    const claimed = await this.db
      .updateTable('relay_channels')
      .set({ state: 'half_open', probe_until: now + s.probeMs, updated_at: now })
      .where('channel_id', '=', channelId)
      .where((eb) =>
        eb.or([
          eb.and([eb('state', '=', 'open'), eb('opened_at', '<=', now - s.cooldownMs)]),
          eb.and([eb('state', '=', 'half_open'), eb('probe_until', '<=', now)]),
        ]),
      )
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1 ? 'probe' : 'no';
  }

  async succeeded(channelId: string, now: number): Promise<void> {
    await this.db
      .updateTable('relay_channels')
      .set({ state: 'closed', failures: 0, opened_at: null, probe_until: null, updated_at: now })
      .where('channel_id', '=', channelId)
      .where((eb) => eb.or([eb('state', '!=', 'closed'), eb('failures', '>', 0)]))
      .execute();
  }

  async failed(channelId: string, s: BreakerSettings, now: number): Promise<ChannelState> {
    await this.ensure(channelId, now);
    // A failed probe opens the breaker again for a whole cool-down.
    await this.db
      .updateTable('relay_channels')
      .set({ state: 'open', opened_at: now, probe_until: null, failures: 0, updated_at: now })
      .where('channel_id', '=', channelId)
      .where('state', '=', 'half_open')
      .execute();
    await this.db
      .updateTable('relay_channels')
      .set({
        failures: sql<number>`case when window_started_at <= ${now - s.windowMs} then 1 else failures + 1 end`,
        window_started_at: sql<number>`case when window_started_at <= ${now - s.windowMs}
          then ${now} else window_started_at end`,
        updated_at: now,
      })
      .where('channel_id', '=', channelId)
      .where('state', '=', 'closed')
      .execute();
    await this.db
      .updateTable('relay_channels')
      .set({ state: 'open', opened_at: now, updated_at: now })
      .where('channel_id', '=', channelId)
      .where('state', '=', 'closed')
      .where('failures', '>=', s.failures)
      .execute();
    const row = await this.db
      .selectFrom('relay_channels')
      .select('state')
      .where('channel_id', '=', channelId)
      .executeTakeFirst();
    return row?.state ?? 'closed';
  }

  async acquire(
    channelId: string,
    taskId: string,
    limits: ChannelLimits,
    holdUntil: number,
    now: number,
    force = false,
  ): Promise<boolean> {
    await this.ensure(channelId, now);
    return this.db.transaction().execute(async (trx) => {
      // Locks the channel's row (PostgreSQL; SQLite has one writer): limit checks of other processes wait here.
      await trx.updateTable('relay_channels').set({ updated_at: now }).where('channel_id', '=', channelId).execute();
      await trx
        .deleteFrom('relay_channel_slots')
        .where('channel_id', '=', channelId)
        .where('expires_at', '<=', now)
        .execute();
      await trx
        .deleteFrom('relay_channel_submits')
        .where('channel_id', '=', channelId)
        .where('at', '<=', now - MINUTE_MS)
        .execute();
      if (!force && limits.maxConcurrent !== undefined) {
        const held = await trx
          .selectFrom('relay_channel_slots')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('channel_id', '=', channelId)
          .where('task_id', '!=', taskId)
          .executeTakeFirstOrThrow();
        if (Number(held.n) >= limits.maxConcurrent) return false;
      }
      if (!force && limits.maxRpm !== undefined) {
        const sent = await trx
          .selectFrom('relay_channel_submits')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('channel_id', '=', channelId)
          .executeTakeFirstOrThrow();
        if (Number(sent.n) >= limits.maxRpm) return false;
      }
      await trx
        .insertInto('relay_channel_slots')
        .values({ channel_id: channelId, task_id: taskId, expires_at: holdUntil })
        .onConflict((oc) => oc.columns(['channel_id', 'task_id']).doUpdateSet({ expires_at: holdUntil }))
        .execute();
      if (!force) await trx.insertInto('relay_channel_submits').values({ channel_id: channelId, at: now }).execute();
      return true;
    });
  }

  async release(taskId: string): Promise<void> {
    await this.db.deleteFrom('relay_channel_slots').where('task_id', '=', taskId).execute();
  }

  async overrides(channelIds: string[]): Promise<Map<string, ChannelOverride>> {
    const result = new Map<string, ChannelOverride>();
    if (channelIds.length === 0) return result;
    const rows = await this.db
      .selectFrom('relay_channels')
      .select(['channel_id', 'enabled', 'weight'])
      .where('channel_id', 'in', channelIds)
      .execute();
    for (const r of rows) result.set(r.channel_id, overrideOf(r));
    return result;
  }

  async setOverride(
    channelId: string,
    change: { enabled?: boolean | null; weight?: number | null },
    now: number,
  ): Promise<void> {
    await this.ensure(channelId, now);
    const set: { enabled?: number | null; weight?: number | null; updated_at: number } = { updated_at: now };
    if (change.enabled !== undefined) set.enabled = change.enabled === null ? null : change.enabled ? 1 : 0;
    if (change.weight !== undefined) set.weight = change.weight;
    await this.db.updateTable('relay_channels').set(set).where('channel_id', '=', channelId).execute();
  }

  async snapshot(channelIds: string[], now: number): Promise<ChannelSnapshot[]> {
    if (channelIds.length === 0) return [];
    const [rows, slots, submits, calls] = await Promise.all([
      this.db.selectFrom('relay_channels').selectAll().where('channel_id', 'in', channelIds).execute(),
      this.db
        .selectFrom('relay_channel_slots')
        .select(['channel_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('channel_id', 'in', channelIds)
        .where('expires_at', '>', now)
        .groupBy('channel_id')
        .execute(),
      this.db
        .selectFrom('relay_channel_submits')
        .select(['channel_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('channel_id', 'in', channelIds)
        .where('at', '>', now - MINUTE_MS)
        .groupBy('channel_id')
        .execute(),
      callStats(this.db, channelIds, now),
    ]);
    return channelIds.map((channelId) => {
      const row = rows.find((r) => r.channel_id === channelId);
      return {
        channelId,
        state: row?.state ?? 'closed',
        failures: Number(row?.failures ?? 0),
        openedAt: row?.opened_at ?? undefined,
        override: row ? overrideOf(row) : {},
        running: Number(slots.find((x) => x.channel_id === channelId)?.n ?? 0),
        requestsLastMinute: Number(submits.find((x) => x.channel_id === channelId)?.n ?? 0),
        calls: calls.get(channelId) ?? { count: 0, p50LatencyMs: null, errorRate: null },
      };
    });
  }

  async called(channelId: string, latencyMs: number, ok: boolean, now: number): Promise<void> {
    await recordCall(this.db, channelId, latencyMs, ok, now);
  }

  private async ensure(channelId: string, now: number): Promise<void> {
    await this.db
      .insertInto('relay_channels')
      .values({
        channel_id: channelId,
        state: 'closed',
        failures: 0,
        window_started_at: now,
        opened_at: null,
        probe_until: null,
        enabled: null,
        weight: null,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('channel_id').doNothing())
      .execute();
  }
}

function overrideOf(r: { enabled: number | null; weight: number | null }): ChannelOverride {
  return {
    ...(r.enabled !== null ? { enabled: Number(r.enabled) === 1 } : {}),
    ...(r.weight !== null ? { weight: Number(r.weight) } : {}),
  };
}
