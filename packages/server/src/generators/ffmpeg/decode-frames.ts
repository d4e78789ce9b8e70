/**
 * An input video's frames as packed yuv420p buffers, decoded by ffmpeg just ahead of whoever pulls
 * them (an encoder's stdin): memory stays at a few frames whatever the video's length. The decoder
 * is killed when the consumer stops early, is aborted, or fails.
 */
import { spawn } from 'node:child_process';
import { FAILURES } from '../../domain/task-failure.ts';

export interface DecodeRun {
  /** Everything between `ffmpeg` and the output: inputs, filters; the output is rawvideo yuv420p on stdout. */
  args: string[];
  frameBytes: number;
  signal: AbortSignal;
}

const undecodable = () => FAILURES.videoInvalid('The input video could not be decoded.');

export async function* decodeFrames(bin: string, run: DecodeRun): AsyncGenerator<Buffer> {
  if (run.signal.aborted) throw FAILURES.canceled();
  const child = spawn(
    bin,
    ['-hide_banner', '-loglevel', 'error', '-nostdin', ...run.args, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    },
  );
  const exited = new Promise<number | null>((resolve) => {
    child.on('close', (code) => resolve(code));
    child.on('error', () => resolve(-1));
  });
  child.stderr.resume();
  const kill = () => child.kill('SIGKILL');
  run.signal.addEventListener('abort', kill, { once: true });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      while (pendingBytes >= run.frameBytes) {
        const all = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
        // A copy, not a view: the consumer keeps frames (an extension keeps the last one).
        yield Buffer.from(all.subarray(0, run.frameBytes));
        const rest = all.subarray(run.frameBytes);
        pending = rest.length > 0 ? [rest] : [];
        pendingBytes = rest.length;
      }
    }
    const code = await exited;
    if (run.signal.aborted) throw FAILURES.canceled();
    if (code !== 0) throw undecodable();
  } finally {
    run.signal.removeEventListener('abort', kill);
    if (child.exitCode === null && child.signalCode === null) kill();
    await exited;
  }
}
