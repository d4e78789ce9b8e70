/**
 * One ffmpeg process: feed it stdin, read its machine-readable progress, and make sure it is gone
 * when the caller stops caring. A canceled task must not leave an encoder burning a core.
 */
import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { FAILURES, TaskFailure } from '../../domain/task-failure.ts';

export interface FfmpegRun {
  args: string[];
  /**
   * Written to ffmpeg's stdin, then closed. An iterable is pulled one item at a time as ffmpeg
   * reads, so frames are made just ahead of the encoder and never pile up in memory. When it is
   * asked for an item, every item but the last one it gave is fully written: a source may reuse a
   * buffer for the item after next (the renderer cycles a few frame buffers, see feed()).
   */
  stdin?: Buffer | Iterable<Buffer> | AsyncIterable<Buffer>;
  signal: AbortSignal;
  /** Frames encoded so far, from `-progress pipe:1`. */
  onFrame?: (frame: number) => void;
  /** How long ffmpeg may take to stop after SIGTERM before it gets SIGKILL. */
  killGraceMs?: number;
}

const STDERR_TAIL = 4096;

export const renderFailed = () => FAILURES.renderFailed('The renderer failed to produce a video.');

export function runFfmpeg(bin: string, run: FfmpegRun): Promise<void> {
  if (run.signal.aborted) return Promise.reject(FAILURES.canceled());
  return new Promise((resolve, reject) => {
    const child = spawn(bin, run.args, { stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    // EPIPE when ffmpeg exits before reading all input; its exit code tells what happened.
    child.stdin.on('error', () => {});
    const input = run.stdin ?? Buffer.alloc(0);
    let stderr = '';
    let aborted = false;
    // A failing frame source must fail the render: ffmpeg alone would see a short input and succeed.
    // A source that knows why it failed (an undecodable input video) says so; anything else is ours.
    let inputFailed: unknown;
    if (Buffer.isBuffer(input)) child.stdin.end(input);
    else {
      feed(input, child.stdin, () => aborted).catch((err) => {
        inputFailed = err ?? true;
        child.kill('SIGKILL');
      });
    }
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      aborted = true;
      child.kill('SIGTERM');
      // ffmpeg finalises the file on SIGTERM; we do not want the file, so do not wait long for it.
      killTimer = setTimeout(() => child.kill('SIGKILL'), run.killGraceMs ?? 500);
    };
    run.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.setEncoding('utf8');
    child.stdout.on(
      'data',
      progressReader((frame) => run.onFrame?.(frame)),
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    let settled = false;
    const finish = (err?: TaskFailure) => {
      if (settled) return;
      settled = true;
      run.signal.removeEventListener('abort', onAbort);
      if (killTimer) clearTimeout(killTimer);
      if (err) reject(err);
      else resolve();
    };
    child.on('error', () => finish(aborted ? FAILURES.canceled() : renderFailed()));
    // 'close' comes after the process has exited and its pipes are drained: nothing is left running.
    child.on('close', (code) => {
      if (aborted) return finish(FAILURES.canceled());
      if (code === 0 && !inputFailed) return finish();
      if (inputFailed instanceof TaskFailure) return finish(inputFailed);
      const err = renderFailed();
      // For an operator's debugger only; ffmpeg's own words may contain paths, so never the message.
      Object.defineProperty(err, 'detail', { value: stderr, enumerable: false });
      finish(err);
    });
  });
}

/**
 * Writes `source` to `stdin` one chunk at a time, pulling the next chunk while the last one is
 * still being written (the source works while ffmpeg reads) but writing it only once the one
 * before has reached the pipe: so a chunk's buffer is free again two pulls later. Stops at the next
 * chunk once ffmpeg stops reading (a failed write: its exit code says why) or the run is aborted;
 * leaving the loop early closes the source (a decoder's finally kills it).
 */
async function feed(
  source: Iterable<Buffer> | AsyncIterable<Buffer>,
  stdin: Writable,
  stopped: () => boolean,
): Promise<void> {
  let previous: Promise<boolean> = Promise.resolve(true);
  for await (const chunk of source) {
    if (!(await previous) || stopped()) return;
    previous = new Promise((resolve) => stdin.write(chunk, (err) => resolve(!err)));
  }
  if (await previous) stdin.end();
}

/** Parses `-progress` output (key=value lines, possibly split across chunks) into frame counts. */
function progressReader(onFrame: (frame: number) => void): (chunk: string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const m = /^frame=(\d+)/.exec(line.trim());
      if (m) onFrame(Number(m[1]));
    }
  };
}
