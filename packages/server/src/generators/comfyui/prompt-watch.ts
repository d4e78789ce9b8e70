/**
 * Following one queued prompt to its end, and taking it back off the host. The websocket gives
 * progress and wakes the loop early; the status endpoint, polled throughout, is what decides.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';
import type { ComfyUiClient } from './comfyui-client.ts';
import type { ComfyUiSocket } from './comfyui-socket.ts';
import { lostOnHost } from './comfyui-failures.ts';
import type { PromptProgress } from './prompt-progress.ts';
import { TERMINAL, type PromptStatus } from './prompt-status.ts';

export interface WatchTimings {
  /** Status poll interval while the websocket is down. */
  pollMs: number;
  /** Status poll interval while the websocket is up (it wakes the loop on the end anyway). */
  socketPollMs: number;
  /** How long the host may be unreachable mid-run before the attempt gives up. */
  unreachableGraceMs: number;
  /** Connect timeout of a websocket (re)connect. */
  socketTimeoutMs: number;
}

export interface Watch {
  client: ComfyUiClient;
  promptId: string;
  progress: PromptProgress;
  onProgress(fraction: number): void;
  signal: AbortSignal;
  timings: WatchTimings;
  /** Opens a new websocket for the prompt's client id; undefined when that fails. */
  connect(): Promise<ComfyUiSocket | undefined>;
  socket: ComfyUiSocket | undefined;
  clock: () => number;
}

/** Resolves with the prompt's final status (succeeded, failed or canceled on the host). */
export async function watchPrompt(w: Watch): Promise<PromptStatus> {
  let wake: () => void = () => {};
  const listen = (socket: ComfyUiSocket | undefined) => {
    socket?.onMessage((m) => {
      const event = w.progress.apply(m);
      if (event === 'progress') w.onProgress(w.progress.fraction);
      if (event === 'ended') wake();
    });
    socket?.onClosed(() => wake());
  };
  listen(w.socket);
  let unknownInARow = 0;
  let failingSince: number | undefined;
  let lastConnect = w.clock();
  for (;;) {
    if (w.signal.aborted) throw FAILURES.canceled();
    const status = await w.client.status(w.promptId, w.signal).then(
      (s) => ((failingSince = undefined), s),
      (err: unknown) => {
        if (w.signal.aborted) throw FAILURES.canceled();
        if (!(err instanceof TaskFailure) || !err.retryable) throw err;
        failingSince ??= w.clock();
        if (w.clock() - failingSince > w.timings.unreachableGraceMs) throw err;
        return undefined;
      },
    );
    if (status && TERMINAL.includes(status.state)) return status;
    // Unknown twice in a row, not once: a status read can straddle the move from queue to history.
    if (status?.state === 'unknown' && ++unknownInARow >= 2) throw lostOnHost();
    if (status && status.state !== 'unknown') unknownInARow = 0;

    if (!w.socket?.alive && w.clock() - lastConnect >= w.timings.socketPollMs) {
      lastConnect = w.clock();
      w.socket?.close();
      w.socket = await w.connect();
      listen(w.socket);
    }
    const woken = new Promise<void>((resolve) => (wake = resolve));
    const pause = w.socket?.alive ? w.timings.socketPollMs : w.timings.pollMs;
    const nap = new AbortController();
    await Promise.race([
      woken,
      sleep(pause, undefined, { signal: AbortSignal.any([w.signal, nap.signal]) }).catch(() => undefined),
    ]);
    nap.abort(); // no timer outlives the wait
  }
}

/**
 * Takes the prompt off the host and resolves true once the host reports that it ended (or no longer
 * knows it), false when `signal` runs out first or the host cannot be asked. Where the host has the
 * jobs API, `POST /api/jobs/{id}/cancel` does it in one atomic step; otherwise a queued prompt is
 * deleted and a running one interrupted.
 *
 * An interrupt takes effect only when the running node (or, on newer builds, the sampler step)
 * ends, so "asked" is not "done": until the host says the prompt ended its GPU is still busy.
 * Builds without targeted interrupts ignore the prompt id and stop whatever runs, which is why
 * this interrupts only after seeing that our prompt is the one running.
 */
export async function takeOff(
  client: ComfyUiClient,
  promptId: string,
  signal: AbortSignal,
  pauseMs: number,
  stop: StopRequest = { asked: false },
): Promise<boolean> {
  try {
    if (!stop.asked && (await client.cancelJob(promptId, signal))) stop.asked = true;
    let s = await client.status(promptId, signal);
    if (!stop.asked && s.state === 'pending') {
      await client.deleteQueued(promptId, signal);
      s = await client.status(promptId, signal);
    }
    while (s.state === 'running' || s.state === 'pending') {
      if (s.state === 'running' && !stop.asked) {
        // Marked before sending: an interrupt whose answer was lost may have arrived, and on builds
        // without targeted interrupts a second one could stop whatever runs next.
        stop.asked = true;
        await client.interrupt(promptId, signal);
      }
      await sleep(pauseMs, undefined, { signal, ref: false });
      s = await client.status(promptId, signal);
    }
    return true;
  } catch {
    // Out of time or unreachable: nothing more we can do from here.
    return false;
  }
}

/** Whether the host has been asked to stop the prompt (a cancel or an interrupt), so it is asked once. */
export interface StopRequest {
  asked: boolean;
}

/** A cancel within the attempt: bounded by `graceMs`, so the attempt ends promptly. */
export function cancelRemote(
  client: ComfyUiClient,
  promptId: string,
  graceMs: number,
  stop?: StopRequest,
): Promise<boolean> {
  return takeOff(client, promptId, AbortSignal.timeout(graceMs), 50, stop);
}
