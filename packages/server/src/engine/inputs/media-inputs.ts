import type { Account } from '../../store/account-store.ts';
import type { FileStore } from '../../store/file-store.ts';
import type { BlobStore } from '../../blobs/blob-store.ts';
import type { SafeFetch } from '../../security/safe-fetch.ts';
import { FetchRefused } from '../../security/safe-fetch.ts';
import { InvalidField, isApiErrorCode, type ApiErrorCode } from '../../errors.ts';
import { inputUrlProblem, MAX_INPUT_URL_LENGTH } from './input-url.ts';
import { decodeDataUri, ImageRejected } from '../../media/image-input.ts';
import { AudioRejected, decodeAudioDataUri } from '../../media/audio-input.ts';
import {
  INPUT_MEDIUM,
  type InputMedium,
  type InputRole,
  type MediaRef,
  type TaskInput,
} from '../../domain/task-inputs.ts';
import { FAILURES } from '../../domain/task-failure.ts';
import type { VideoInputs } from './video-inputs.ts';

/**
 * One input as a dialect received it, in domain words: its role and exactly one source, a URL
 * (http(s) or data URI) or a stored file id. Errors name it by its place in the list
 * (`inputs[2].url`, `inputs[2].atSeconds`); the dialect renames it to its own field.
 */
export interface InputRequest {
  role: InputRole;
  url?: string;
  fileId?: string;
  /** Keyframes: the time in seconds the frame is shown at. */
  atSeconds?: number;
  /** A voice by name instead of a recording (xAI's `{voice_id}`); refused unless a model declares voices. */
  voiceId?: string;
}

const INVALID: Record<InputMedium, ApiErrorCode> = {
  image: 'invalid_image',
  audio: 'invalid_audio',
  video: 'invalid_video',
};
const WHAT: Record<InputMedium, string> = { image: 'an image', audio: 'audio', video: 'a video' };
const IMAGE_HINT =
  'an http(s) URL or a Base64 data URI with its MIME prefix (data:image/jpeg;base64, or data:image/png;base64,)';
const AUDIO_HINT = 'an http(s) URL or a Base64 data URI (data:audio/wav;base64, data:audio/mpeg;base64, …)';

/**
 * The inputs of a task from submit to render, for every role: checked and stored at submit (so
 * bad input is a 4xx and inline data never bloats the task row), loaded by the worker when the
 * task runs. Images and audio come here; videos are checked and copied by `video-inputs.ts`,
 * as the input videos of edits are.
 */
export class MediaInputs {
  constructor(
    private readonly deps: {
      files: FileStore;
      blobs: BlobStore;
      /** The SSRF-safe fetchers, each with its medium's byte cap. */
      fetch: { image: SafeFetch; audio: SafeFetch };
      /** Sniffs and probes audio bytes sent inline (media/audio-input.ts); throws AudioRejected. */
      checkAudio: (bytes: Buffer) => Promise<{ mimeType: string }>;
      videos?: Pick<VideoInputs, 'accept'>;
    },
  ) {}

  /** Checks and stores each input; on a refusal, what was already stored is removed. */
  async accept(account: Account, taskId: string, requests: readonly InputRequest[]): Promise<TaskInput[]> {
    const inputs: TaskInput[] = [];
    try {
      for (const [index, request] of requests.entries()) {
        const ref = await this.acceptOne(account, taskId, index, request);
        inputs.push({
          role: request.role,
          ref,
          ...(request.atSeconds === undefined ? {} : { atSeconds: request.atSeconds }),
        });
      }
    } catch (err) {
      await this.discard(inputs);
      throw err;
    }
    return inputs;
  }

  /** Removes what `accept` stored inline; called when the task is finished or was never written. */
  async discard(inputs: readonly TaskInput[]): Promise<void> {
    for (const { ref } of inputs) if (ref.kind === 'blob') await this.deps.blobs.delete(ref.key);
  }

  /** The bytes of one input image or audio, for the worker. Failures are permanent task failures. */
  async load(accountId: string, input: TaskInput, signal: AbortSignal): Promise<Buffer> {
    const medium = INPUT_MEDIUM[input.role];
    const { ref } = input;
    if (ref.kind === 'blob') return this.deps.blobs.readBuffer(ref.key);
    if (ref.kind === 'file') {
      const file = await this.deps.files.get(ref.fileId);
      if (!file || file.accountId !== accountId) {
        throw FAILURES.inputUnavailable(medium, `The file '${ref.fileId}' was deleted before the task ran.`);
      }
      return this.deps.blobs.readBuffer(file.blobKey);
    }
    try {
      return (await this.deps.fetch[medium === 'audio' ? 'audio' : 'image'](ref.url, signal)).bytes;
    } catch (err) {
      if (err instanceof FetchRefused && err.code === 'url_too_large')
        throw FAILURES.inputTooLarge(medium, err.limitBytes);
      if (err instanceof FetchRefused) throw FAILURES.inputUnreachable(medium, err.message);
      throw err;
    }
  }

  private async acceptOne(account: Account, taskId: string, index: number, input: InputRequest): Promise<MediaRef> {
    const medium = INPUT_MEDIUM[input.role];
    const field = `inputs[${index}]`;
    if (medium === 'video') {
      if (!this.deps.videos) throw new InvalidField(field, 'invalid_video', (name) => `\`${name}\` is not taken here.`);
      return (await this.deps.videos.accept(account, input, field)) as MediaRef;
    }
    if (input.fileId !== undefined) return this.acceptFile(account, input.fileId, medium, `${field}.fileId`);
    const urlField = `${field}.url`;
    const value = (input.url ?? '').trim();
    const inline = medium === 'image' ? decodeImage(value, urlField) : await this.decodeAudio(value, urlField);
    if (inline) {
      const key = `inputs/${taskId}/${index}`;
      await this.deps.blobs.putBuffer(key, inline.bytes, inline.mimeType);
      return { kind: 'blob', key };
    }
    const problem = inputUrlProblem(value);
    if (problem === 'too_long') {
      throw new InvalidField(
        urlField,
        INVALID[medium],
        (name) => `\`${name}\` is longer than ${MAX_INPUT_URL_LENGTH} characters.`,
      );
    }
    if (problem === 'not_http') {
      const hint = medium === 'image' ? IMAGE_HINT : AUDIO_HINT;
      throw new InvalidField(urlField, INVALID[medium], (name) => `\`${name}\` must be ${hint}.`);
    }
    return { kind: 'url', url: value };
  }

  private async acceptFile(account: Account, fileId: string, medium: InputMedium, field: string): Promise<MediaRef> {
    const file = await this.deps.files.get(fileId);
    if (!file || file.accountId !== account.id) {
      throw new InvalidField(
        field,
        'file_not_found',
        (name) => `\`${name}\` '${fileId}' is not a file of this account.`,
      );
    }
    if (!file.mimeType.startsWith(`${medium}/`)) {
      const kind = file.mimeType.split('/')[0];
      const found = kind in WHAT ? WHAT[kind as InputMedium] : 'another kind of file';
      throw new InvalidField(
        field,
        INVALID[medium],
        (name) => `\`${name}\` '${fileId}' is ${found}, not ${WHAT[medium]}.`,
      );
    }
    return { kind: 'file', fileId: file.id };
  }

  /** An audio data URI's bytes, sniffed and probed now (a refusal is a 4xx); undefined for a URL. */
  private async decodeAudio(value: string, field: string): Promise<{ bytes: Buffer; mimeType: string } | undefined> {
    try {
      const bytes = decodeAudioDataUri(value);
      if (!bytes) return undefined;
      const { mimeType } = await this.deps.checkAudio(bytes);
      return { bytes, mimeType };
    } catch (err) {
      if (err instanceof AudioRejected)
        throw new InvalidField(field, 'invalid_audio', (name) => `\`${name}\`: ${err.message}`);
      throw err;
    }
  }
}

/** The bytes of an image data URI, undefined for a URL, or a 4xx naming the field and what is wrong. */
function decodeImage(value: string, field: string): { bytes: Buffer; mimeType: string } | undefined {
  try {
    return decodeDataUri(value);
  } catch (err) {
    if (err instanceof ImageRejected) {
      const code = isApiErrorCode(err.code) ? err.code : 'invalid_image';
      throw new InvalidField(field, code, (name) => `\`${name}\`: ${err.message}`);
    }
    throw err;
  }
}
