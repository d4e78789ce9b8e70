import { createWriteStream } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Account } from '../../store/account-store.ts';
import type { FileStore } from '../../store/file-store.ts';
import type { TaskStore } from '../../store/task-store.ts';
import type { BlobStore } from '../../blobs/blob-store.ts';
import type { SafeFetch } from '../../security/safe-fetch.ts';
import { FetchRefused } from '../../security/safe-fetch.ts';
import { InvalidField } from '../../errors.ts';
import type { InputVideo } from '../../generators/generator.ts';
import { checkVideoFile, isMp4, type VideoProber } from '../../media/video-input.ts';
import { outputDimensions, outputSeconds, type Task, type TaskStatus, type VideoRef } from '../../domain/task.ts';
import { inputUrlProblem, MAX_INPUT_URL_LENGTH } from './input-url.ts';
import { FAILURES } from '../../domain/task-failure.ts';

/**
 * The input video as a dialect received it: exactly one of the three sources. Errors name them
 * `video.url`, `video.fileId` and `video.taskId`; the dialect renames them.
 */
export interface VideoInput {
  url?: string;
  fileId?: string;
  taskId?: string;
}

/** What an input video may come from besides files: another task's result. */
type TaskReader = Pick<TaskStore, 'get'>;

const NOT_DONE: Partial<Record<TaskStatus, string>> = {
  queued: 'still pending',
  running: 'still pending',
  failed: 'failed',
  canceled: 'canceled',
  expired: 'expired: its video is no longer kept',
};

/**
 * Input videos of edits and extensions, from submit to render: checked at submit (so a wrong id
 * is a 4xx naming the field), fetched and probed by the worker when the task runs (so bad bytes
 * are a permanent task failure with a clear message, never a retry).
 */
export class VideoInputs {
  constructor(
    private readonly deps: {
      files: FileStore;
      blobs: BlobStore;
      /** The source of `{taskId}` inputs: a done task of the same account. */
      tasks: TaskReader;
      /** The SSRF-safe fetcher, with the video byte cap. */
      fetch: SafeFetch;
      probe: VideoProber;
    },
  ) {}

  /** `name`: what errors call the input (`video`, or a reference video's place `inputs[3]`). */
  async accept(account: Account, input: VideoInput, name = 'video'): Promise<VideoRef> {
    if (input.fileId !== undefined) return this.acceptFile(account, input.fileId, `${name}.fileId`);
    if (input.taskId !== undefined) return this.acceptTask(account, input.taskId, `${name}.taskId`);
    const field = `${name}.url`;
    const url = (input.url ?? '').trim();
    const problem = inputUrlProblem(url);
    if (problem === 'too_long')
      throw new InvalidField(
        field,
        'invalid_video',
        (name) => `\`${name}\` is longer than ${MAX_INPUT_URL_LENGTH} characters.`,
      );
    if (problem === 'not_http') {
      throw new InvalidField(
        field,
        'invalid_video',
        (name) =>
          `\`${name}\` must be an http(s) URL of an MP4; upload a local video to POST /v1/files and send its ` +
          `file id instead.`,
      );
    }
    return { kind: 'url', url };
  }

  /**
   * Fetches the input into `workDir` and probes it. Every failure is permanent: retrying cannot mend
   * the input. A refused video is media's VideoRejected, which the engine maps with the rest.
   */
  async load(task: Task, workDir: string, signal: AbortSignal): Promise<InputVideo> {
    const ref = task.params.video;
    if (!ref) throw FAILURES.invalidInput('The task has no input video.');
    return this.loadInto(join(workDir, 'input-video.mp4'), task.accountId, ref, signal);
  }

  /** Fetches one input video (an edit's source, a reference video) into `path` and probes it. */
  async loadInto(path: string, accountId: string, ref: VideoRef, signal: AbortSignal): Promise<InputVideo> {
    await this.copyTo(path, accountId, ref, signal);
    if (!isMp4(await head(path))) throw FAILURES.videoInvalid('The input video is not an MP4 file.');
    const facts = await checkVideoFile(this.deps.probe, path, signal);
    return {
      path,
      width: facts.width,
      height: facts.height,
      durationSeconds: facts.durationSeconds,
      frames: facts.frames,
      frameRate: facts.frameRate,
      hasAudio: facts.audioStreams > 0,
    };
  }

  private async acceptTask(account: Account, id: string, field: string): Promise<VideoRef> {
    const source = await this.deps.tasks.get(id);
    if (!source || source.accountId !== account.id) {
      throw new InvalidField(field, 'task_not_found', (name) => `\`${name}\` '${id}' is not a task of this account.`);
    }
    if (source.status !== 'succeeded') {
      throw new InvalidField(
        field,
        'task_not_done',
        (name) => `\`${name}\` '${id}' is ${NOT_DONE[source.status]}; only a done task's video can be used.`,
      );
    }
    return { kind: 'task', taskId: source.id, seconds: outputSeconds(source), ...outputDimensions(source) };
  }

  private async acceptFile(account: Account, fileId: string, field: string): Promise<VideoRef> {
    const file = await this.deps.files.get(fileId);
    if (!file || file.accountId !== account.id) {
      throw new InvalidField(
        field,
        'file_not_found',
        (name) => `\`${name}\` '${fileId}' is not a file of this account.`,
      );
    }
    if (file.mimeType !== 'video/mp4') {
      const what = file.mimeType === 'image/png' || file.mimeType === 'image/jpeg' ? 'an image' : 'not a video';
      throw new InvalidField(field, 'invalid_video', (name) => `\`${name}\` '${fileId}' is ${what}; upload an MP4.`);
    }
    return { kind: 'file', fileId: file.id };
  }

  /** The input's bytes into `path`: stored ones streamed (a finished video can be large), fetched ones as fetched. */
  private async copyTo(path: string, accountId: string, ref: VideoRef, signal: AbortSignal): Promise<void> {
    if (ref.kind === 'file') {
      const file = await this.deps.files.get(ref.fileId);
      if (!file || file.accountId !== accountId)
        throw unavailable(`The file '${ref.fileId}' was deleted before the task ran.`);
      return this.streamBlob(file.blobKey, path, signal, `The file '${ref.fileId}' was deleted before the task ran.`);
    }
    if (ref.kind === 'task') {
      const gone = `The video of request '${ref.taskId}' is no longer available.`;
      const source = await this.deps.tasks.get(ref.taskId);
      if (!source || source.accountId !== accountId || source.status !== 'succeeded' || !source.result)
        throw unavailable(gone);
      return this.streamBlob(source.result.blobKey, path, signal, gone);
    }
    try {
      await writeFile(path, (await this.deps.fetch(ref.url, signal)).bytes);
    } catch (err) {
      if (err instanceof FetchRefused && err.code === 'url_too_large')
        throw FAILURES.inputTooLarge('video', err.limitBytes);
      if (err instanceof FetchRefused) throw FAILURES.inputUnreachable('video', err.message);
      throw err;
    }
  }

  private async streamBlob(key: string, path: string, signal: AbortSignal, gone: string): Promise<void> {
    try {
      await pipeline(await this.deps.blobs.read(key), createWriteStream(path), { signal });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw unavailable(gone);
      throw err;
    }
  }
}

/** The first bytes of a file, enough to sniff its type. */
async function head(path: string): Promise<Buffer> {
  const file = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(12), 0, 12, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

const unavailable = (message: string) => FAILURES.inputUnavailable('video', message);
