/**
 * The worker's side of a task's inputs: each one fetched (URLs through the SSRF-safe fetcher,
 * invariant 5, docs/architecture.md) or read from storage into the attempt's workDir, where the
 * backend reads it. Images are decoded and re-encoded as PNG, as the first frame always was; sound
 * and video go as they were stored.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '../../domain/task.ts';
import { taskInputs } from '../../domain/task.ts';
import type { InputRole } from '../../domain/task-inputs.ts';
import type { JobInput } from '../../generators/generator.ts';
import type { ImageInputs } from './image-inputs.ts';

/** The roles whose bytes are an image. */
const IMAGE_ROLES: ReadonlySet<InputRole> = new Set(['first_frame', 'last_frame', 'keyframe', 'reference_image']);
const EXTENSION: Record<'reference_audio' | 'reference_video', string> = {
  reference_audio: 'audio',
  reference_video: 'video',
};

export interface JobInputDeps {
  images: ImageInputs;
  normalizeImage(bytes: Buffer): Promise<Buffer>;
}

export interface LoadedInputs {
  /** The first frame (the field every backend reads). */
  images: string[];
  /** Every input with its role; absent for a task written before inputs had roles. */
  inputs?: JobInput[];
}

export async function loadJobInputs(
  deps: JobInputDeps,
  task: Pick<Task, 'accountId' | 'params'>,
  signal: AbortSignal,
  dir: string,
): Promise<LoadedInputs> {
  const inputs: JobInput[] = [];
  for (const [index, input] of taskInputs(task.params).entries()) {
    const bytes = await deps.images.load(task.accountId, input.ref, signal);
    const image = IMAGE_ROLES.has(input.role);
    const path = join(
      dir,
      image ? `input-${index}.png` : `input-${index}.${EXTENSION[input.role as keyof typeof EXTENSION]}`,
    );
    await writeFile(path, image ? await deps.normalizeImage(bytes) : bytes);
    inputs.push({ role: input.role, path, ...(input.atSeconds !== undefined ? { atSeconds: input.atSeconds } : {}) });
  }
  const images = inputs.filter((input) => input.role === 'first_frame').map((input) => input.path);
  return task.params.inputs ? { images, inputs } : { images };
}
