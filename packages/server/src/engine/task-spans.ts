import type { SpanAttributes } from '../observability/tracing/tracing.ts';

/**
 * What every span about one task says of it (docs/observability.md). Never the prompt, the input
 * URLs or the account: a trace is read by whoever runs the collector.
 */
export function taskAttributes(task: { id: string; model: string; backend: string; kind: string }): SpanAttributes {
  return {
    'vidgen.task.id': task.id,
    'vidgen.task.model': task.model,
    'vidgen.task.backend': task.backend,
    'vidgen.task.kind': task.kind,
  };
}
