/**
 * The relay backend: forwards a task to an upstream video service speaking family A (xAI style) or
 * family B (new-api style) and brings the finished video back for the engine to verify and store.
 *
 * Each call follows its own upstream task on its own schedule; the instance is shared by all tasks
 * of the backend and holds no per-task state. Durability lives in the checkpoint: the channel and
 * Idempotency-Key before a create is sent, the upstream id before any waiting (attach-upstream-task).
 */
import type { ModelInputs } from '../../domain/task-inputs.ts';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { TaskKind } from '../../domain/task.ts';
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';
import {
  monotonicProgress,
  type BackendCheckpoint,
  type GenerationContext,
  type GenerationOutput,
  type Generator,
} from '../generator.ts';
import type { SafeFetch } from '../../security/safe-fetch.ts';
import { attachUpstreamTask, unstoppable, type Attached } from './attach-upstream-task.ts';
import { downloadUpstreamVideo } from './download-upstream-video.ts';
import { followUpstreamTask } from './follow-upstream-task.ts';
import type { RelayBackendConfig, RelayChannelConfig } from './relay-config.ts';
import { normalizeVideo } from '../comfyui/output-video.ts';
import { sizeFor } from './openai-dialect.ts';
import { RELAY_DIALECTS, type RelayDialectSpec, type UpstreamState } from './relay-dialects.ts';
import type { ChannelHealth } from './channel-health.ts';
import { parseRelayCheckpoint, type RelayCheckpoint } from './relay-checkpoint.ts';
import { relayFailures } from './relay-failures.ts';
import { callUpstream } from './relay-http.ts';
import { channelKinds, planRelayRequest, type RelayJob } from './relay-request.ts';
import { DEFAULT_RELAY_TIMINGS, type RelayTimings } from './relay-timing.ts';
import { noTracing, type SpanAttributes, type Tracing } from '../../observability/tracing/tracing.ts';

export interface RelayGeneratorOptions {
  /** Channel breakers, limits and overrides shared through the database (sql-channel-health.ts); absent, none apply. */
  health?: ChannelHealth;
  now?: () => number;
  /** Fetches video links the upstream hands out on other origins: SSRF-safe, capped (security/create-safe-fetch.ts). */
  fetchForeign: SafeFetch;
  logger?: Logger;
  timings?: Partial<RelayTimings>;
  /** ffmpeg and ffprobe, for channels with `size_multiple`: what they render is cropped back to the asked size. */
  binaries?: { ffmpeg: string; ffprobe: string };
}

// Shares of the progress bar: the upstream's own progress, then the download.
const SUBMITTED = 0.03;
const RENDERED = 0.9;

export class RelayGenerator implements Generator {
  /**
   * Edits and extensions only where some channel offers them (an xAI channel); the catalog refuses models asking for
   * more.
   */
  readonly kinds: readonly TaskKind[];
  private readonly timings: RelayTimings;
  private readonly learnedReplays = new Set<string>();

  constructor(
    readonly config: RelayBackendConfig,
    private readonly options: RelayGeneratorOptions,
  ) {
    this.timings = { ...DEFAULT_RELAY_TIMINGS, ...options.timings };
    const health = options.health;
    const now = options.now ?? Date.now;
    // Every call to a channel is recorded for its latency and error rate (channel-health.ts); never awaited.
    if (health)
      this.config = {
        ...config,
        channels: config.channels.map((c) => ({
          ...c,
          observe: (ms: number, ok: boolean) => void health.called(c.id, ms, ok, now()).catch(() => undefined),
        })),
      };
    this.kinds = [...new Set(config.channels.flatMap(channelKinds))];
    if (!options.binaries && config.channels.some((c) => c.sizeMultiple))
      throw new Error('a relay channel with "size_multiple" needs ffmpeg to crop its videos');
  }

  /** What the channels serving `model` take, one declaration each: a task goes to one that takes all it has. */
  inputsFor(model: string): readonly ModelInputs[] {
    return this.config.channels.filter((c) => c.models[model] !== undefined).map((c) => c.inputs);
  }

  async generate(job: RelayJob, ctx: GenerationContext): Promise<GenerationOutput> {
    if (ctx.signal.aborted) throw FAILURES.canceled();
    const progress = monotonicProgress(ctx.onProgress);
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort('relay_timeout'), this.config.timeoutMs);
    const signal = AbortSignal.any([ctx.signal, timeout.signal]);
    let attached: Attached | undefined;
    const tracing = ctx.tracing ?? noTracing;
    try {
      const health = this.options.health;
      const plan = await planRelayRequest(
        job,
        this.config,
        await health?.overrides(this.config.channels.map((c) => c.id)),
      );
      // The create (or the re-attach to an earlier attempt's upstream task), with its reconciles.
      attached = await tracing.withSpan('relay.submit', undefined, async (span) => {
        const got = await attachUpstreamTask(
          {
            health,
            now: this.options.now ?? Date.now,
            job,
            plan,
            config: this.config,
            checkpoint: ctx.checkpoint,
            timings: this.timings,
            log: (e, c, x) => this.log(e, c, x),
            replays: { has: (id) => this.replays(id), learn: (id) => this.learnedReplays.add(id) },
          },
          signal,
        );
        span.setAttributes(channelAttributes(got.channel));
        return got;
      });
      progress(SUBMITTED);
      const follow = (a: Attached) =>
        this.follow(a, ctx.checkpoint, signal, (f) => progress(SUBMITTED + (RENDERED - SUBMITTED) * f), tracing);
      let path = join(ctx.workDir, 'relay-output.mp4');
      const state = await follow(attached);
      const result = attached;
      await tracing.withSpan('relay.download', { attributes: channelAttributes(result.channel) }, () =>
        this.fetchResult(result, state, path, signal, follow),
      );
      path = await this.cropToJob(attached.channel, job, path, signal);
      progress(1);
      const cost = parseRelayCheckpoint(await ctx.checkpoint.load())?.upstreamCostUsdTicks;
      return cost === undefined ? { path } : { path, upstreamCostUsdTicks: cost };
    } catch (err) {
      if (!signal.aborted) throw this.safe(err);
      if (!ctx.signal.aborted) throw relayFailures.timeout();
      // Only a handover leaves the upstream task running, for the next attempt to follow. A cancel
      // or a deadline stops paying for a render nobody will follow, where the upstream can cancel.
      const stop = ctx.stopReason();
      if (attached && stop !== 'handover' && (await this.cancelUpstream(attached)) && stop === 'deadline') {
        // The deadline is final (docs/relays.md §3.9): a retry could only follow a canceled job or
        // pay for a new one, and the upstream takes no per-round idempotency id that would let us
        // tell a resubmit from a second order.
        const saved = parseRelayCheckpoint(await ctx.checkpoint.load().catch(() => undefined));
        const state: RelayCheckpoint = {
          ...saved,
          relay: 1,
          channel: attached.channel.id,
          idempotencyKey: attached.idempotencyKey,
          upstreamId: attached.id,
          upstreamCanceled: true,
        };
        await ctx.checkpoint.save(state).catch(() => false);
        throw relayFailures.deadlineFinal();
      }
      throw FAILURES.canceled();
    } finally {
      clearTimeout(timer);
      await this.options.health?.release(job.taskId).catch(() => undefined);
    }
  }

  private replays(channelId: string): boolean {
    return (
      this.learnedReplays.has(channelId) ||
      this.config.channels.some((c) => c.id === channelId && c.replaysIdempotencyKey)
    );
  }

  private async follow(
    a: Attached,
    checkpoint: BackendCheckpoint,
    signal: AbortSignal,
    onProgress: (f: number) => void,
    tracing: Tracing,
  ): Promise<UpstreamState> {
    const dialect = RELAY_DIALECTS[a.channel.dialect];
    let state = await followUpstreamTask(
      {
        channel: a.channel,
        dialect,
        id: a.id,
        model: a.model,
        requestTimeoutMs: this.config.requestTimeoutMs,
        timings: this.timings,
        onProgress,
        tracing,
      },
      signal,
    );
    if (state.phase === 'succeeded' && dialect.result)
      state = { ...(await this.readResult(a, dialect.result, signal)), metrics: state.metrics };
    if (state.costUsdTicks !== undefined || state.metrics) await this.recordUsage(a, checkpoint, state);
    if (state.moderated) {
      this.log('the upstream withheld the video by moderation', a.channel);
      throw relayFailures.moderated();
    }
    if (state.phase === 'failed') throw relayFailures.failed(state.errorCode, state.reason);
    if (state.phase === 'expired') throw relayFailures.expired();
    return state;
  }

  /**
   * Family A's link is signed and short-lived: when it fails, the task is read again once, which
   * either hands out a fresh link or says the result expired.
   */
  private async fetchResult(
    a: Attached,
    state: UpstreamState,
    path: string,
    signal: AbortSignal,
    follow: (a: Attached) => Promise<UpstreamState>,
  ) {
    const download = (url: string, withKey: boolean) =>
      downloadUpstreamVideo(
        {
          channel: a.channel,
          url,
          withKey,
          dest: path,
          maxBytes: this.config.maxVideoBytes,
          timeoutMs: this.config.downloadTimeoutMs,
          fetchForeign: this.options.fetchForeign,
        },
        signal,
      );
    const dialect = RELAY_DIALECTS[a.channel.dialect];
    if (dialect.contentPath) {
      try {
        return await download(dialect.contentPath(a.id), true);
      } catch (err) {
        // new-api's content proxy gives up after 60 s (controller/video_proxy.go); its task also
        // names the provider's own link, fetched without the key through the SSRF-safe fetcher.
        const fallback = state.videoUrl && /^https?:\/\//i.test(state.videoUrl) ? state.videoUrl : undefined;
        if (signal.aborted || !fallback || !(err instanceof TaskFailure) || !err.retryable) throw err;
        this.log('the content endpoint failed; fetching the result link instead', a.channel, { code: err.code });
        return download(fallback, false);
      }
    }
    const withKey = dialect.keyOnLinks === true;
    try {
      await download(state.videoUrl!, withKey);
    } catch (err) {
      // A fresh link helps with an expired or flaky one, not with a file that is too large or a forbidden host.
      if (signal.aborted || !(err instanceof TaskFailure) || !(err.retryable || err.code === 'upstream_result_expired'))
        throw err;
      this.log('the video link failed; reading the task again for a fresh one', a.channel, { code: err.code });
      await download((await follow(a)).videoUrl!, withKey);
    }
  }

  /**
   * A server that renders sides in multiples of its model's patch was asked the size rounded up
   * (openai-dialect.ts sizeFor); the engine verifies the exact size, so the video is scaled to cover
   * and centre-cropped back, as ComfyUI's output is.
   */
  private async cropToJob(channel: RelayChannelConfig, job: RelayJob, path: string, signal: AbortSignal) {
    if (job.kind !== 'generate') return path;
    const [width, height] = sizeFor(job, channel);
    if (width === job.width && height === job.height) return path;
    const bins = this.options.binaries;
    if (!bins) throw relayFailures.download('no ffmpeg to crop the upstream video to the asked size');
    const frames = Math.round(job.duration * job.fps);
    return normalizeVideo(
      path,
      { width: job.width, height: job.height, fps: job.fps, frames },
      { ...bins, preset: 'veryfast', signal, onProgress: () => undefined },
    );
  }

  /** Kept in the checkpoint (the task row's backend state), where the ledger's margin report reads it. */
  private async recordUsage(a: Attached, checkpoint: BackendCheckpoint, usage: UpstreamState): Promise<void> {
    const state: RelayCheckpoint = {
      relay: 1,
      channel: a.channel.id,
      idempotencyKey: a.idempotencyKey,
      upstreamId: a.id,
      upstreamCostUsdTicks: usage.costUsdTicks,
      upstreamMetrics: usage.metrics,
      ...unstoppable(a.channel),
    };
    if (!(await checkpoint.save(state))) throw relayFailures.leaseLost();
  }

  /** fal: the output lives at its own endpoint; an answer that proves nothing leaves the task to the next attempt. */
  private async readResult(
    a: Attached,
    result: NonNullable<RelayDialectSpec['result']>,
    signal: AbortSignal,
  ): Promise<UpstreamState> {
    const answer = await callUpstream(
      a.channel,
      { method: 'GET', path: result.path(a.id, a.model), timeoutMs: this.config.requestTimeoutMs },
      signal,
    ).catch(() => undefined);
    const state = answer ? result.read(answer.status, answer.body) : { phase: 'unknown' as const };
    if (state.phase === 'unknown') throw relayFailures.download('the result could not be read');
    return state;
  }

  /**
   * Best effort and bounded: the attempt is already over, so this never holds it up for long.
   * True only when the upstream accepted the cancel of a job that had not finished. Otherwise the
   * job is still there to follow without paying again: an upstream without cancel keeps rendering,
   * one that finished already (vidgen 409, fal 400 "already completed", Replicate 200 `succeeded`)
   * holds the video, and an unanswered cancel may not have arrived.
   */
  private async cancelUpstream(a: Attached): Promise<boolean> {
    if (!a.channel.cancel) return false;
    const dialect = RELAY_DIALECTS[a.channel.dialect];
    if (!dialect.cancel) return false;
    const answer = await callUpstream(
      a.channel,
      {
        method: dialect.cancel.method,
        path: dialect.cancel.path(a.id, a.model),
        timeoutMs: this.timings.cancelGraceMs,
      },
      new AbortController().signal,
    ).catch(() => undefined);
    this.log('asked the upstream to cancel the task', a.channel, { status: answer?.status });
    return !!answer && answer.status < 300 && dialect.state(answer.status, answer.body).phase !== 'succeeded';
  }

  /** Unexpected errors may carry URLs or ids in their text: only their kind is kept. */
  private safe(err: unknown): TaskFailure {
    if (err instanceof TaskFailure) return err;
    this.options.logger?.error(
      { errorName: err instanceof Error ? err.name : typeof err },
      'relay failed unexpectedly',
    );
    return relayFailures.unexpected();
  }

  /** Logs name the channel, never its URL, key or the upstream's task id. */
  private log(event: string, channel: RelayChannelConfig, extra: Record<string, unknown> = {}): void {
    this.options.logger?.info({ channel: channel.name, dialect: channel.dialect, ...extra }, event);
  }
}

/** A channel as spans name it: its name and dialect, never its URL or key. */
export function channelAttributes(channel: RelayChannelConfig): SpanAttributes {
  return { 'vidgen.relay.channel': channel.name, 'vidgen.relay.dialect': channel.dialect };
}
