/**
 * An input video's first audio stream as 48 kHz stereo float samples, for an extension that
 * continues it. Whole, in memory: the renderer takes inputs of at most 30 s (11.5 MB of samples).
 */
import { spawn } from 'node:child_process';
import { FAILURES } from '../../../domain/task-failure.ts';
import { SAMPLE_RATE, type Stereo } from './dsp.ts';

export async function decodeAudio(bin: string, file: string, samples: number, signal: AbortSignal): Promise<Stereo> {
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
  if (code !== 0) throw FAILURES.videoInvalid("The input video's sound could not be decoded.");
  const bytes = Buffer.concat(chunks);
  const frames = Math.floor(bytes.length / 8);
  // Exactly `samples` long: the picture's length decides; a short track is padded with silence.
  const mix: Stereo = { left: new Float32Array(samples), right: new Float32Array(samples) };
  for (let i = 0; i < Math.min(frames, samples); i++) {
    mix.left[i] = bytes.readFloatLE(8 * i);
    mix.right[i] = bytes.readFloatLE(8 * i + 4);
  }
  return mix;
}
