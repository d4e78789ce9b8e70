import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { TaskStore } from '../store/task-store.ts';
import type { EngineMetrics } from '../engine/engine-metrics.ts';

/**
 * Prometheus metrics of one process. Counters and histograms count what this process did;
 * the queue and running gauges are read from the store at scrape time, so every process
 * reports the same cluster-wide figures.
 */
export function createPrometheusMetrics(tasks: TaskStore): { registry: Registry; engine: EngineMetrics } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'vidgen_' });
  dropTotalGauges(registry);
  const claims = new Counter({ name: 'vidgen_claims_total', help: 'Tasks claimed by this process', labelNames: ['backend'], registers: [registry] });
  const reclaims = new Counter({ name: 'vidgen_lease_reclaims_total', help: 'Tasks whose expired lease this process reclaimed', registers: [registry] });
  const retries = new Counter({ name: 'vidgen_retries_total', help: 'Attempts that failed transiently and were requeued', labelNames: ['backend'], registers: [registry] });
  const queueWait = new Histogram({
    name: 'vidgen_queue_wait_seconds', help: 'Time from submit to claim', labelNames: ['backend'], registers: [registry],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
  });
  const attempts = new Histogram({
    name: 'vidgen_task_duration_seconds', help: 'Duration of task attempts by backend and outcome', labelNames: ['backend', 'outcome'],
    registers: [registry], buckets: [0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800],
  });
  const queued = new Gauge({ name: 'vidgen_queue_depth', help: 'Queued tasks per backend lane', labelNames: ['backend'], registers: [registry] });
  const running = new Gauge({ name: 'vidgen_running_tasks', help: 'Running tasks per lane and account', labelNames: ['backend', 'account'], registers: [registry] });
  let collecting: Promise<void> | undefined;
  const collect = async () => {
    const stats = await tasks.laneStats();
    queued.reset();
    running.reset();
    for (const q of stats.queued) queued.set({ backend: q.backend }, q.count);
    for (const r of stats.running) running.set({ backend: r.backend, account: r.accountId }, r.count);
  };
  // Both gauges come from one query; share it within a scrape.
  const once = () => (collecting ??= collect().finally(() => (collecting = undefined)));
  Object.assign(queued, { collect: once });
  Object.assign(running, { collect: once });
  return {
    registry,
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
  for (const what of ['handles', 'requests', 'resources']) registry.removeSingleMetric(`vidgen_nodejs_active_${what}_total`);
}
