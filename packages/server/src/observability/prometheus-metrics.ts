import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TaskStore } from '../store/task-store.ts';
import type { EngineMetrics } from '../engine/engine-metrics.ts';
import type { WebhookMetrics } from '../webhooks/webhook-dispatcher.ts';

/**
 * Prometheus metrics of one process. Counters and histograms count what this process did;
 * the queue and running gauges are read from the store at scrape time, so every process
 * reports the same cluster-wide figures.
 */
export function createPrometheusMetrics(
  tasks: TaskStore,
  options: {
    perAccount?: boolean;
    deliveries?: { countByStatus(): Promise<Record<string, number>> };
    /** The backend lanes this service has: an idle one reports 0, not "no data". */
    lanes?: readonly string[];
  } = {},
): { registry: Registry; engine: EngineMetrics; webhooks: WebhookMetrics } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'vidgen_' });
  dropTotalGauges(registry);
  const claims = new Counter({
    name: 'vidgen_claims_total',
    help: 'Tasks claimed by this process',
    labelNames: ['backend'],
    registers: [registry],
  });
  const reclaims = new Counter({
    name: 'vidgen_lease_reclaims_total',
    help: 'Tasks whose expired lease this process reclaimed',
    registers: [registry],
  });
  const retries = new Counter({
    name: 'vidgen_retries_total',
    help: 'Attempts that failed transiently and were requeued',
    labelNames: ['backend'],
    registers: [registry],
  });
  const queueWait = new Histogram({
    name: 'vidgen_queue_wait_seconds',
    help: 'Time from submit to claim',
    labelNames: ['backend'],
    registers: [registry],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
  });
  const attempts = new Histogram({
    name: 'vidgen_task_duration_seconds',
    help: 'Duration of task attempts by backend and outcome',
    labelNames: ['backend', 'outcome'],
    registers: [registry],
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
  });
  const queued = new Gauge({
    name: 'vidgen_queue_depth',
    help: 'Queued tasks per backend lane',
    labelNames: ['backend'],
    registers: [registry],
  });
  // Account ids only when the operator asks for them (VIDGEN_METRICS_PER_ACCOUNT, which needs a metrics token):
  // by default /metrics is open and must not list who the customers are.
  const running = options.perAccount
    ? new Gauge({
        name: 'vidgen_running_tasks',
        help: 'Running tasks per lane and account',
        labelNames: ['backend', 'account'],
        registers: [registry],
      })
    : new Gauge({
        name: 'vidgen_running_tasks',
        help: 'Running tasks per lane',
        labelNames: ['backend'],
        registers: [registry],
      });
  let collecting: Promise<void> | undefined;
  const collect = async () => {
    const stats = await tasks.laneStats();
    queued.reset();
    running.reset();
    // Zeros first: a gauge with no sample reads "no data" on a dashboard, not an idle lane. Per
    // account, an idle account has no series (its id is not known here), as Prometheus expects.
    for (const backend of options.lanes ?? []) {
      queued.set({ backend }, 0);
      if (!options.perAccount) running.set({ backend }, 0);
    }
    for (const q of stats.queued) queued.set({ backend: q.backend }, q.count);
    if (options.perAccount)
      for (const r of stats.running) running.set({ backend: r.backend, account: r.accountId }, r.count);
    else for (const r of stats.running) running.inc({ backend: r.backend }, r.count);
  };
  // Both gauges come from one query; share it within a scrape.
  const once = () => (collecting ??= collect().finally(() => (collecting = undefined)));
  Object.assign(queued, { collect: once });
  Object.assign(running, { collect: once });
  const webhookAttempts = new Counter({
    name: 'vidgen_webhook_attempts_total',
    help: 'Webhook delivery attempts this process ended, by outcome (delivered, retried, failed, canceled)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const webhookDeliveries = new Gauge({
    name: 'vidgen_webhook_deliveries',
    help: 'Webhook deliveries by status (pending, delivered, failed, canceled)',
    labelNames: ['status'],
    registers: [registry],
  });
  Object.assign(webhookDeliveries, {
    collect: async () => {
      const counts = (await options.deliveries?.countByStatus()) ?? {};
      webhookDeliveries.reset();
      for (const status of ['pending', 'delivered', 'failed', 'canceled'])
        webhookDeliveries.set({ status }, counts[status] ?? 0);
    },
  });
  return {
    registry,
    webhooks: { attemptEnded: (outcome) => webhookAttempts.inc({ outcome }) },
    engine: {
      claimed: (backend, queuedMs) => {
        claims.inc({ backend });
        queueWait.observe({ backend }, queuedMs / 1000);
      },
      reclaimed: (count) => reclaims.inc(count),
      retried: (backend) => retries.inc({ backend }),
      attemptEnded: (backend, outcome, ms) => attempts.observe({ backend, outcome }, ms / 1000),
    },
  };
}

/**
 * prom-client's default metrics include three gauges named `…_total` (`nodejs_active_handles_total`…),
 * a suffix Prometheus reserves for counters (`promtool check metrics` refuses them). Their figures
 * stay available as the sums of the per-type gauges of the same names without the suffix.
 */
function dropTotalGauges(registry: Registry): void {
  for (const what of ['handles', 'requests', 'resources'])
    registry.removeSingleMetric(`vidgen_nodejs_active_${what}_total`);
}
