/**
 * An input's first audio stream as 48 kHz stereo float samples: an input video's sound, for an
 * extension that continues it, or a reference audio, for the bed of a soundtrack. Whole, in memory:
 * the renderer takes input videos of at most 30 s (11.5 MB of samples), reference audio of 15 s.
 */
import { spawn } from 'node:child_process';
import { FAILURES, type TaskFailure } from '../../../domain/task-failure.ts';
import { SAMPLE_RATE, type Stereo } from './dsp.ts';

/** Exactly `samples` long: the picture's length decides; a short track is padded with silence. */
export async function decodeAudio(bin: string, file: string, samples: number, signal: AbortSignal): Promise<Stereo> {
  const whole = await decodeWholeAudio(bin, file, signal, () =>
    FAILURES.videoInvalid("The input video's sound could not be decoded."),
  );
  const mix: Stereo = { left: new Float32Array(samples), right: new Float32Array(samples) };
  mix.left.set(whole.left.subarray(0, samples));
  mix.right.set(whole.right.subarray(0, samples));
  return mix;
}

/** Every sample of the file's first audio stream; `failure` when it has none or cannot be decoded. */
export async function decodeWholeAudio(
  bin: string,
  file: string,
  signal: AbortSignal,
  failure: () => TaskFailure,
): Promise<Stereo> {
  if (signal.aborted) throw FAILURES.canceled();
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-map', '0:a:0', '-vn'];
  const out = [...args, '-ac', '2', '-ar', String(SAMPLE_RATE), '-f', 'f32le', 'pipe:1'];
  const child = spawn(bin, out, { stdio: ['ignore', 'pipe', 'ignore'], windowsHide: true });
  const kill = () => child.kill('SIGKILL');
  signal.addEventListener('abort', kill, { once: true });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise<number | null>((resolve) => {
    child.on('close', resolve);
    child.on('error', () => resolve(-1));
  });
  signal.removeEventListener('abort', kill);
  if (signal.aborted) throw FAILURES.canceled();
  if (code !== 0) throw failure();
  const bytes = Buffer.concat(chunks);
  const frames = Math.floor(bytes.length / 8);
  const mix: Stereo = { left: new Float32Array(frames), right: new Float32Array(frames) };
  for (let i = 0; i < frames; i++) {
    mix.left[i] = bytes.readFloatLE(8 * i);
    mix.right[i] = bytes.readFloatLE(8 * i + 4);
  }
  return mix;
}
