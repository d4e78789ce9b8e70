import type { Kysely } from 'kysely';
import type { Database } from '../../store/sql/schema.ts';
import { CALL_WINDOW_MS, type CallStats } from './channel-health.ts';

/**
 * Every call made to a relay channel, for five minutes (migration 0190): what the operator reads as
 * its median latency and error rate, the same for every process. A call's row is written when it
 * ends; the rows of the window before it are deleted by the same process, so the table holds five
 * minutes of calls however long the service runs.
 */
export async function recordCall(
  db: Kysely<Database>,
  channelId: string,
  latencyMs: number,
  ok: boolean,
  now: number,
): Promise<void> {
  await db
    .insertInto('relay_channel_calls')
    .values({ channel_id: channelId, at: now, latency_ms: Math.max(0, Math.round(latencyMs)), ok: ok ? 1 : 0 })
    .execute();
  await db
    .deleteFrom('relay_channel_calls')
    .where('channel_id', '=', channelId)
    .where('at', '<=', now - CALL_WINDOW_MS)
    .execute();
}

/** Each channel's calls of the last five minutes: count, median latency, share that failed. */
export async function callStats(
  db: Kysely<Database>,
  channelIds: string[],
  now: number,
): Promise<Map<string, CallStats>> {
  const rows = await db
    .selectFrom('relay_channel_calls')
    .select(['channel_id', 'latency_ms', 'ok'])
    .where('channel_id', 'in', channelIds)
    .where('at', '>', now - CALL_WINDOW_MS)
    .execute();
  const byChannel = new Map<string, { latencies: number[]; errors: number }>();
  for (const r of rows) {
    const entry = byChannel.get(r.channel_id) ?? { latencies: [], errors: 0 };
    entry.latencies.push(Number(r.latency_ms));
    if (!Number(r.ok)) entry.errors++;
    byChannel.set(r.channel_id, entry);
  }
  const stats = new Map<string, CallStats>();
  for (const [id, { latencies, errors }] of byChannel) {
    latencies.sort((a, b) => a - b);
    // The lower median of an even count: a latency some call really took.
    const p50 = latencies[Math.floor((latencies.length - 1) / 2)];
    stats.set(id, { count: latencies.length, p50LatencyMs: p50, errorRate: errors / latencies.length });
  }
  return stats;
}
