/**
 * Following one queued prompt to its end, and taking it back off the host. The websocket gives
 * progress and wakes the loop early; the status endpoint, polled throughout, is what decides.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { FAILURES, TaskFailure } from '../../engine/task-failure.ts';
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
    await Promise.race([woken, sleep(pause, undefined, { signal: AbortSignal.any([w.signal, nap.signal]) }).catch(() => undefined)]);
    nap.abort(); // no timer outlives the wait
  }
}

/**
 * Takes the prompt off the host: deleted while queued, interrupted while running, and then waits
 * (briefly) until the host has let go of it, so its GPU is free when the task reports canceled.
 * Best effort: an unreachable host has lost the prompt anyway.
 *
 * Builds without targeted interrupts ignore the prompt id and stop whatever runs, which is why
 * this interrupts only after seeing that our prompt is the one running.
 */
export async function cancelRemote(client: ComfyUiClient, promptId: string, graceMs: number): Promise<void> {
  const signal = AbortSignal.timeout(graceMs);
  try {
    let s = await client.status(promptId, signal);
    if (s.state === 'pending') {
      await client.deleteQueued(promptId, signal);
      s = await client.status(promptId, signal);
    }
    let interrupted = false;
    while (s.state === 'running' || s.state === 'pending') {
      if (s.state === 'running' && !interrupted) {
        await client.interrupt(promptId, signal);
        interrupted = true;
      }
      await sleep(50, undefined, { signal });
      s = await client.status(promptId, signal);
    }
  } catch {
    // Out of time or unreachable: nothing more we can do from here.
  }
}
