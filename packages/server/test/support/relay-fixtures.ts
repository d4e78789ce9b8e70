/**
 * Shared pieces of the relay tests: short timings, channel configs pointing at a loopback
 * upstream, and a job/context factory. Production timings are seconds; these are tens of ms.
 */
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { pino, type Logger } from 'pino';
import { TaskFailure } from '../../src/domain/task-failure.ts';
import {
  memoryCheckpoint,
  stopReasonOf,
  type BackendCheckpoint,
  type GenerationContext,
} from '../../src/generators/generator.ts';
import { createSafeFetch } from '../../src/security/create-safe-fetch.ts';
import { parseRelayBackend } from '../../src/generators/relay/relay-config.ts';
import { RelayGenerator } from '../../src/generators/relay/relay-generator.ts';
import type { RelayJob } from '../../src/generators/relay/relay-request.ts';
import type { RelayTimings } from '../../src/generators/relay/relay-timing.ts';

export const FAST_TIMINGS: Partial<RelayTimings> = {
  longPollGapMs: 50,
  backoffBaseMs: 50,
  backoffMaxMs: 400,
  reconcileSettleMs: 100,
  inFlightRetryMs: 100,
  cancelGraceMs: 1000,
  maxUnknownPolls: 4,
  maxPollErrors: 4,
};

/** Loopback links are allowed here only because the test upstream lives on loopback. */
export const testFetchForeign = createSafeFetch({
  allowPrivate: true,
  timeoutMs: 15_000,
  maxBytes: 64 * 1024 * 1024,
  maxRedirects: 3,
  what: 'video',
});

export type RawChannel = Record<string, unknown>;

/** A channel of dialect A or B at `baseUrl` (a vidgen upstream unless `extra.upstream` says otherwise), its key read from `keyEnv`. */
export function channel(dialect: 'A' | 'B', baseUrl: string, keyEnv: string, extra: RawChannel = {}): RawChannel {
  const models =
    dialect === 'A'
      ? { 'ours-a': 'tiny-a' }
      : { 'ours-b-1s': 'tiny-b-1s', 'ours-b-2s': 'tiny-b-2s', 'ours-b-15s': 'tiny-b-15s' };
  return {
    dialect,
    upstream: 'vidgen',
    base_url: baseUrl,
    api_key_env: keyEnv,
    models,
    poll_interval_seconds: 0.2,
    ...extra,
  };
}

export interface RelayOptions {
  timings?: Partial<RelayTimings>;
  backend?: Record<string, unknown>;
  fetchForeign?: typeof testFetchForeign;
  logger?: Logger;
}

export function relayOf(channels: RawChannel[], env: Record<string, string>, options: RelayOptions = {}) {
  const config = parseRelayBackend({ type: 'relay', channels, request_timeout_seconds: 5, ...options.backend }, env);
  return new RelayGenerator(config, {
    fetchForeign: options.fetchForeign ?? testFetchForeign,
    timings: { ...FAST_TIMINGS, ...options.timings },
    logger: options.logger,
  });
}

/** A real pino logger whose JSON lines are kept, to check what the relay logs (and what it never does). */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, any>>; text: () => string } {
  const lines: Array<Record<string, any>> = [];
  const raw: string[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => void (raw.push(line), lines.push(JSON.parse(line))) },
  );
  return { logger, lines, text: () => raw.join('') };
}

export function job(dialect: 'A' | 'B', overrides: Partial<RelayJob> = {}): RelayJob {
  const duration = overrides.duration ?? 1;
  return {
    taskId: randomUUID(),
    attempt: 1,
    kind: 'generate',
    prompt: 'a lighthouse at dusk, slow push in',
    width: 320,
    height: 180,
    duration,
    fps: 24,
    seed: 3,
    images: [],
    model: dialect === 'A' ? 'ours-a' : `ours-b-${duration}s`,
    ...overrides,
  };
}

export interface RecordingContext {
  ctx: GenerationContext;
  progress: number[];
  saves: unknown[];
}

/** A context whose checkpoint records every save; pass one to share state between attempts. */
export async function context(
  root: string,
  options: { signal?: AbortSignal; checkpoint?: BackendCheckpoint } = {},
): Promise<RecordingContext> {
  const inner = options.checkpoint ?? memoryCheckpoint();
  const saves: unknown[] = [];
  const progress: number[] = [];
  const checkpoint: BackendCheckpoint = {
    load: () => inner.load(),
    save: async (s) => (saves.push(structuredClone(s)), inner.save(s)),
  };
  const signal = options.signal ?? new AbortController().signal;
  const ctx: GenerationContext = {
    signal,
    stopReason: stopReasonOf(signal),
    workDir: await mkdtemp(join(root, 'work-')),
    onProgress: (p) => progress.push(p),
    checkpoint,
  };
  return { ctx, progress, saves };
}

export async function failure(p: Promise<unknown>): Promise<TaskFailure> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof TaskFailure, `expected a TaskFailure, got ${String(err)}`);
  return err;
}

/** Nothing the caller sees may name the upstream: its address, its task ids or the key. */
export function assertNoLeak(text: string, secrets: string[]): void {
  for (const s of secrets) assert.ok(!text.includes(s), `"${text}" reveals an upstream detail`);
}
