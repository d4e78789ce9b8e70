import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '../../domain/task.ts';
import { taskInputs } from '../../domain/task.ts';
import { INPUT_MEDIUM, type TaskInput } from '../../domain/task-inputs.ts';
import { FAILURES } from '../../domain/task-failure.ts';
import type { JobInput } from '../../generators/generator.ts';
import {
  AUDIO_EXTENSIONS,
  AudioRejected,
  checkAudioFile,
  checkSize,
  sniffAudioType,
  type AudioProber,
} from '../../media/audio-input.ts';
import type { MediaInputs } from './media-inputs.ts';
import type { VideoInputs } from './video-inputs.ts';

export interface InputLoaderDeps {
  inputs: MediaInputs;
  videos: VideoInputs;
  /** Decodes an input image under the pixel cap, re-encoded as PNG; throws media's ImageRejected when it can't. */
  normalizeImage(bytes: Buffer): Promise<Buffer>;
  /** Probes an audio file (media/audio-input.ts); absent, reference audio fails the task. */
  probeAudio?: AudioProber;
}

/**
 * A task's inputs as local files in the attempt's work directory, each checked again now that
 * its bytes are here (a URL's bytes are first seen now): every failure is permanent, since a
 * retry cannot mend an input.
 */
export async function loadJobInputs(
  deps: InputLoaderDeps,
  task: Task,
  workDir: string,
  signal: AbortSignal,
): Promise<JobInput[]> {
  const loaded: JobInput[] = [];
  for (const [index, input] of taskInputs(task.params).entries()) {
    const path = await loadOne(deps, task.accountId, input, join(workDir, `input-${index}`), signal);
    loaded.push({ role: input.role, path, ...(input.atSeconds === undefined ? {} : { atSeconds: input.atSeconds }) });
  }
  return loaded;
}

async function loadOne(
  deps: InputLoaderDeps,
  accountId: string,
  input: TaskInput,
  base: string,
  signal: AbortSignal,
): Promise<string> {
  const medium = INPUT_MEDIUM[input.role];
  if (medium === 'video') {
    const { ref } = input;
    if (ref.kind === 'blob') throw FAILURES.invalidInput('A reference video must be a URL or an uploaded MP4.');
    await deps.videos.loadInto(`${base}.mp4`, accountId, ref, signal);
    return `${base}.mp4`;
  }
  const bytes = await deps.inputs.load(accountId, input, signal);
  if (medium === 'image') {
    await writeFile(`${base}.png`, await deps.normalizeImage(bytes));
    return `${base}.png`;
  }
  try {
    const type = sniffAudioType(bytes);
    if (!type) throw new AudioRejected('The reference audio is not a WAV, MP3 or AAC/M4A file.');
    checkSize(bytes.length);
    const path = `${base}.${AUDIO_EXTENSIONS[type]}`;
    await writeFile(path, bytes);
    if (!deps.probeAudio) throw new AudioRejected('This server cannot read reference audio.');
    await checkAudioFile(deps.probeAudio, path, signal);
    return path;
  } catch (err) {
    if (err instanceof AudioRejected) throw FAILURES.audioInvalid(err.message);
    throw err;
  }
}
