import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Idempotency, ListQuery, Submitted } from '../engine/task-service.ts';
import type { TaskStatus } from '../domain/task.ts';
import { requestFingerprint } from '../engine/request-fingerprint.ts';
import { pageLimitOf } from './pages.ts';
import { InvalidRequest } from '../errors.ts';

export const MAX_WAIT_SECONDS = 60;
/** Year 5138: far past any task, well inside a 64-bit column and Number's safe integers once in milliseconds. */
const MAX_UNIX_SECONDS = 1e11;

/** The `Idempotency-Key` header with the fingerprint of this route and body, if the caller sent one. */
export function idempotencyOf(request: FastifyRequest): Idempotency | undefined {
  const raw = request.headers['idempotency-key'];
  if (raw === undefined) return undefined;
  return idempotencyFor(Array.isArray(raw) ? raw[0] : raw, request.routeOptions.url ?? request.url, request.body);
}

/** A key with the fingerprint of what it was sent with (a route and its body, or a tool and its arguments). */
export function idempotencyFor(key: string, route: string, body: unknown, field = 'Idempotency-Key'): Idempotency {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw new InvalidRequest('invalid_idempotency_key', `\`${field}\` must be 1–255 visible ASCII characters.`, field);
  }
  return { key, requestHash: requestFingerprint(route, body) };
}

/** Marks an answer that repeats what an earlier request with the same key got. */
export function markReplay(reply: FastifyReply, submitted: Submitted): void {
  if (submitted.replayed) reply.header('idempotent-replayed', 'true');
}

/** `?wait=<seconds>` of a long-poll, 0 when absent. */
export function waitMsOf(query: Record<string, string | undefined>): number {
  if (query.wait === undefined || query.wait === '') return 0;
  const seconds = Number(query.wait);
  if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_WAIT_SECONDS) {
    throw new InvalidRequest(
      'invalid_wait',
      `\`wait\` must be a number of seconds from 0 to ${MAX_WAIT_SECONDS}.`,
      'wait',
    );
  }
  return seconds * 1000;
}

/** An AbortSignal that fires when the client goes away, so a long-poll stops waiting for nobody. */
export function clientGone(request: FastifyRequest): AbortSignal {
  const controller = new AbortController();
  request.raw.once('close', () => controller.abort());
  return controller.signal;
}

/** Listing filters shared by both families; `statuses` maps the family's own state words. */
export function listQueryOf(
  query: Record<string, string | undefined>,
  statuses: Record<string, readonly TaskStatus[]>,
): ListQuery {
  const result: ListQuery = {
    limit: pageLimitOf(query.limit),
    after: query.after || undefined,
    model: query.model || undefined,
    idempotencyKey: query.idempotency_key || undefined,
  };
  if (query.status !== undefined) {
    // Own keys only: `?status=constructor` must be a 400, not a lookup on Object.prototype.
    const mapped = Object.hasOwn(statuses, query.status) ? statuses[query.status] : undefined;
    if (!mapped)
      throw new InvalidRequest(
        'invalid_status',
        `\`status\` '${query.status}' is not a status of this listing; it offers ${Object.keys(statuses).join(', ')}.`,
        'status',
      );
    result.statuses = [...mapped];
  }
  if (query.created_after !== undefined) {
    // Decimal digits only: `Number()` would also take `0x10`, `1e-400` and ` 1`.
    const seconds = /^\d{1,15}(\.\d{1,9})?$/.test(query.created_after) ? Number(query.created_after) : Number.NaN;
    // Bounded, and whole milliseconds: the column is a 64-bit integer on every store.
    if (!Number.isFinite(seconds) || seconds < 0 || seconds > MAX_UNIX_SECONDS) {
      throw new InvalidRequest(
        'invalid_created_after',
        `\`created_after\` must be a Unix time in seconds from 0 to ${MAX_UNIX_SECONDS}.`,
        'created_after',
      );
    }
    result.createdAfter = Math.floor(seconds * 1000);
  }
  return result;
}
