/**
 * Integrated loudness (EBU R128 / ITU-R BS.1770) of a file's first audio stream, measured by
 * ffmpeg's own `ebur128` filter: the scale every soundtrack here is normalised to and checked on.
 */
import { execFile } from 'node:child_process';

/** Below this a track is silent for the output check: a gated-out track reads -70 LUFS. */
export const SILENCE_LUFS = -60;

const TIMEOUT_MS = 60_000;

/** LUFS; -70 for digital silence (every block gated out). Rejects when the stream cannot be decoded. */
export async function measureLoudness(ffmpegPath: string, file: string, signal?: AbortSignal): Promise<number> {
  // The summary is written at the info level, after every 100 ms line: only the end is read.
  const args = ['-hide_banner', '-nostats', '-i', file, '-map', '0:a:0', '-af', 'ebur128', '-f', 'null', '-'];
  const stderr = await new Promise<string>((resolve, reject) => {
    execFile(
      ffmpegPath,
      args,
      { signal, timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, windowsHide: true },
      (err, _out, errOut) => (err ? reject(err) : resolve(errOut)),
    );
  });
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const match = /I:\s+(-?[\d.]+|-inf) LUFS/.exec(summary);
  if (!match) throw new Error('no loudness summary');
  return match[1] === '-inf' ? -Infinity : Number(match[1]);
}
