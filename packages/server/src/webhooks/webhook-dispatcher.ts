import type { Logger } from 'pino';
import type { Lease } from '../domain/lease.ts';
import { announceWorker, stopLeaseHolder } from '../domain/worker-lifecycle.ts';
import { FetchRefused, type SafePost } from '../security/safe-fetch.ts';
import { TEST_EVENT_TYPE, type AttemptEnd, type WebhookDelivery, type WebhookEndpoint } from './webhook-events.ts';
import type { WebhookStore } from './webhook-store.ts';
import type { SecretBox } from './secret-box.ts';
import { retryDelayMs, type RetrySchedule } from './retry-schedule.ts';
import { webhookHeaders } from './webhook-signing.ts';
import {
  errorTypeOf,
  noTracing,
  parseTraceContext,
  type SpanAttributes,
  type Tracing,
} from '../observability/tracing/tracing.ts';

/** Counts what this process's dispatcher did (Prometheus in production). */
export interface WebhookMetrics {
  attemptEnded(outcome: 'delivered' | 'retried' | 'failed' | 'canceled'): void;
}

/**
 * The `data` of a task event rendered at delivery time, for deliveries whose event has no frozen
 * body (queued before bodies were frozen); undefined when the task is gone.
 */
export type EventData = (taskId: string) => Promise<Record<string, unknown> | undefined>;

export interface DispatcherDeps {
  store: WebhookStore;
  box: SecretBox;
  post: SafePost;
  eventData: EventData;
  /** The body frozen when the event happened (event-log.ts): what every attempt sends, byte for byte. */
  eventBody?: (eventId: string) => Promise<string | undefined>;
  /** The trace the event happened in (event-log.ts), which each delivery attempt continues. */
  eventTrace?: (eventId: string) => Promise<string | undefined>;
  /** A span per delivery attempt, whose `traceparent` the receiver gets (docs/observability.md); absent, none. */
  tracing?: Tracing;
  schedule: RetrySchedule;
  owner: string;
  /** How long a claim holds: longer than one POST may take. */
  leaseMs: number;
  pollMs: number;
  /** Deliveries in flight at once in this process. */
  concurrency: number;
  /** An endpoint whose deliveries have all failed for this long is disabled when one more fails for good (0: never). */
  disableAfterMs?: number;
  /**
   * How the operator's endpoints are sent to (operator-webhook.ts): their own secret, and a POST
   * with the operator's address rules (VIDGEN_OPERATOR_WEBHOOK_ALLOW_PRIVATE). Without it their
   * deliveries are canceled.
   */
  operator?: { secret: string; post: SafePost };
  clock: () => number;
  logger: Logger;
  metrics?: WebhookMetrics;
}

/**
 * Sends the outbox (runs in the worker role). Deliveries are claimed like tasks (a lease and a
 * fencing token), so any number of processes share the work; a process killed mid-delivery
 * leaves the row to be claimed again when its lease runs out, and the receiver gets the same
 * `webhook-id` again: at-least-once.
 */
export function createWebhookDispatcher(deps: DispatcherDeps) {
  const tracing = deps.tracing ?? noTracing;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  // Aborts the POSTs still in flight once stop()'s grace is over: their claims are handed back.
  const shutdown = new AbortController();
  let wake: (() => void) | undefined;
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => ((wake = undefined), resolve()), ms);
      wake = () => (clearTimeout(timer), (wake = undefined), resolve());
    });

  async function loop(): Promise<void> {
    while (!stopped) {
      const free = deps.concurrency - inFlight.size;
      let claimed: Awaited<ReturnType<WebhookStore['claimDue']>> = [];
      if (free > 0) {
        try {
          claimed = await deps.store.claimDue({
            owner: deps.owner,
            now: deps.clock(),
            leaseMs: deps.leaseMs,
            limit: free,
          });
        } catch (err) {
          // The database is away (invariant 9): the outbox keeps everything, try again later.
          deps.logger.warn({ err }, 'webhook dispatcher could not claim deliveries');
        }
      }
      for (const { delivery, lease } of claimed) {
        const tracked = deliver(delivery, lease).finally(() => (inFlight.delete(tracked), wake?.()));
        inFlight.add(tracked);
      }
      if (!stopped && (claimed.length === 0 || inFlight.size >= deps.concurrency)) await nap(deps.pollMs);
    }
  }

  async function deliver(delivery: WebhookDelivery, lease: Lease): Promise<void> {
    try {
      await traced(delivery, () => attempt(delivery, lease));
    } catch (err) {
      // Our own fault (the database, a secret that no longer opens): logged, and retried on the
      // schedule rather than re-claimed at every lease lapse.
      deps.logger.error({ err, delivery: delivery.id }, 'webhook delivery attempt failed');
      const error = 'The server could not send this delivery.';
      const end: AttemptEnd =
        delivery.attempts >= delivery.maxAttempts
          ? { status: 'failed', statusCode: null, error }
          : {
              status: 'pending',
              statusCode: null,
              error,
              nextAttemptAt: deps.clock() + retryDelayMs(delivery.attempts, deps.schedule),
            };
      await deps.store.endAttempt(lease, end).catch(() => undefined);
    }
  }

  async function attempt(delivery: WebhookDelivery, lease: Lease): Promise<void> {
    const endpoint = await deps.store.endpointById(delivery.endpointId);
    if (!endpoint || endpoint.status !== 'enabled') {
      return end(
        lease,
        { status: 'canceled', statusCode: null, error: 'The endpoint was disabled or deleted.' },
        'canceled',
      );
    }
    // undefined: an account's endpoint; null: the operator's, which this dispatcher cannot send.
    const operatorSend = endpoint.audience === 'operator' ? (deps.operator ?? null) : undefined;
    const operator = operatorSend !== undefined;
    if (operatorSend === null)
      return end(
        lease,
        { status: 'canceled', statusCode: null, error: 'The operator webhook is not configured.' },
        'canceled',
      );
    const body = await bodyOf(delivery);
    if (body === undefined) {
      const gone = delivery.taskId === null ? 'The event is no longer kept.' : 'The task no longer exists.';
      return end(lease, { status: 'failed', statusCode: null, error: gone }, 'failed');
    }
    const now = deps.clock();
    const secrets = operatorSend ? [operatorSend.secret] : secretsOf(endpoint, now);
    const headers = webhookHeaders(delivery.eventId, Math.floor(now / 1000), body, secrets);
    const send = operatorSend ? operatorSend.post : deps.post;
    let status: number | null = null;
    let error: string | null = null;
    try {
      status = await post(send, endpoint.url, body, headers);
    } catch (err) {
      // Stopped mid-POST: due again at once for another process, not after a retry delay. The
      // receiver may have had it already; the same webhook-id lets it tell (at-least-once).
      if (shutdown.signal.aborted)
        return end(
          lease,
          {
            status: 'pending',
            statusCode: null,
            error: 'The server shut down during this attempt; it is sent again.',
            nextAttemptAt: deps.clock(),
          },
          'retried',
        );
      // FetchRefused messages are written to be shown (no addresses, no socket details).
      error = err instanceof FetchRefused ? err.message : 'The webhook URL could not be reached from the server.';
    }
    if (status !== null && status >= 200 && status <= 299)
      return end(lease, { status: 'delivered', statusCode: status, now: deps.clock() }, 'delivered');
    if (status === 410 && operator) {
      // The operator's receiver is configuration, never switched off by its answers: only this delivery ends.
      await end(
        lease,
        { status: 'failed', statusCode: 410, error: 'The operator webhook answered 410 Gone.' },
        'failed',
      );
      return;
    }
    if (status === 410) {
      // The receiver says the endpoint is gone for good: stop sending to it.
      await end(
        lease,
        { status: 'failed', statusCode: 410, error: 'The endpoint answered 410 Gone and was disabled.' },
        'failed',
      );
      return deps.store.disableEndpoint(endpoint.id, 'The endpoint answered 410 Gone.');
    }
    error ??= `The endpoint answered HTTP ${status}.`;
    if (delivery.attempts >= delivery.maxAttempts) {
      await end(lease, { status: 'failed', statusCode: status, error }, 'failed');
      return operator ? undefined : disableIfDead(endpoint);
    }
    const nextAttemptAt = deps.clock() + retryDelayMs(delivery.attempts, deps.schedule);
    return end(lease, { status: 'pending', statusCode: status, error, nextAttemptAt }, 'retried');
  }

  /**
   * One delivery attempt as a span continuing the event's trace (a root span for an event that has
   * none), so a receiver's own tracing joins the task's trace through the POST's `traceparent`.
   */
  async function traced(delivery: WebhookDelivery, work: () => Promise<void>): Promise<void> {
    if (!tracing.enabled) return work();
    const parent = parseTraceContext(await deps.eventTrace?.(delivery.eventId));
    const attributes = {
      'vidgen.webhook.delivery_id': delivery.id,
      'vidgen.webhook.event_id': delivery.eventId,
      'vidgen.webhook.event_type': delivery.eventType,
      'vidgen.webhook.endpoint_id': delivery.endpointId,
      'vidgen.webhook.attempt': delivery.attempts,
      'vidgen.task.id': delivery.taskId ?? undefined,
    };
    return tracing.withSpan('webhook.deliver', { kind: 'producer', parent, attributes }, work);
  }

  /** The POST, a client span inside a trace whose `traceparent` it carries; its answer's status. */
  async function post(send: SafePost, url: string, body: string, signed: Record<string, string>): Promise<number> {
    if (!tracing.enabled) return (await send(url, { body, headers: signed }, shutdown.signal)).status;
    const span = tracing.startSpan('POST', { kind: 'client', childOnly: true, attributes: webhookUrlAttributes(url) });
    try {
      const headers = { ...signed, ...span.headers() };
      const { status } = await send(url, { body, headers }, shutdown.signal);
      span.setAttributes({ 'http.response.status_code': status });
      if (status >= 400) span.fail(String(status));
      return status;
    } catch (err) {
      span.fail(errorTypeOf(err));
      throw err;
    } finally {
      span.end();
    }
  }

  /** Stops a receiver that has been failing every delivery for `disableAfterMs` (its account can enable it again). */
  async function disableIfDead(endpoint: WebhookEndpoint): Promise<void> {
    if (!deps.disableAfterMs) return;
    const since = await deps.store.failingSince(endpoint.id, endpoint.enabledAt);
    if (since === undefined || deps.clock() - since < deps.disableAfterMs) return;
    deps.logger.warn({ endpoint: endpoint.id }, 'webhook endpoint disabled: every delivery failed');
    await deps.store.disableEndpoint(
      endpoint.id,
      `Every delivery failed for ${describeSpan(deps.disableAfterMs)} or more.`,
    );
  }

  async function end(
    lease: Lease,
    outcome: AttemptEnd,
    metric: Parameters<WebhookMetrics['attemptEnded']>[0],
  ): Promise<void> {
    // A lost lease (another dispatcher retook the row, or a manual retry) means the row is no longer ours to write.
    if (await deps.store.endAttempt(lease, outcome)) deps.metrics?.attemptEnded(metric);
  }

  async function bodyOf(delivery: WebhookDelivery): Promise<string | undefined> {
    const frozen = await deps.eventBody?.(delivery.eventId);
    if (frozen !== undefined) return frozen;
    const head = { id: delivery.eventId, type: delivery.eventType, created_at: Math.floor(delivery.createdAt / 1000) };
    if (delivery.eventType === TEST_EVENT_TYPE) return JSON.stringify({ ...head, data: { id: delivery.endpointId } });
    // An account event is only ever sent with its frozen body.
    if (delivery.taskId === null) return undefined;
    const data = await deps.eventData(delivery.taskId);
    return data && JSON.stringify({ ...head, data });
  }

  function secretsOf(endpoint: WebhookEndpoint, now: number): string[] {
    const secrets = [deps.box.open(endpoint.secret)];
    if (endpoint.previousSecret && (endpoint.previousSecretUntil ?? 0) > now)
      secrets.push(deps.box.open(endpoint.previousSecret));
    return secrets;
  }

  let running: Promise<void> | undefined;
  return {
    start() {
      announceWorker({ event: 'started', kind: 'webhook dispatcher', owner: deps.owner });
      running ??= loop();
    },
    /** Stops claiming, lets the attempts in flight finish for `graceMs`, then hands the rest back. */
    async stop(graceMs = 0) {
      stopped = true;
      wake?.();
      await running;
      await stopLeaseHolder({
        kind: 'webhook dispatcher',
        owner: deps.owner,
        graceMs,
        finished: Promise.all(inFlight),
        abortRunning: () => shutdown.abort(),
        leasedBy: (owner) => deps.store.leasedBy(owner),
        warnHeld: (deliveries) =>
          deps.logger.warn(
            { deliveries },
            'stopped while still holding delivery claims; they will lapse and be retaken',
          ),
      });
    },
  };
}

/** "5 days", "36 hours", "90 seconds": the span in the largest whole unit. */
function describeSpan(ms: number): string {
  const seconds = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${unit}${seconds === size ? '' : 's'}`;
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/**
 * The receiver's address without what may be its secret: webhook URLs carry tokens in their path
 * (Slack's, Discord's) or query, so `url.full` is the origin alone; the delivery's endpoint id says
 * which URL it was.
 */
function webhookUrlAttributes(url: string): SpanAttributes {
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === 'https:' ? 443 : 80;
  return {
    'http.request.method': 'POST',
    'url.full': parsed.origin,
    'server.address': parsed.hostname,
    'server.port': port,
  };
}
