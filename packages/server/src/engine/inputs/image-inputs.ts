import type { Account } from '../../store/account-store.ts';
import type { FileStore } from '../../store/file-store.ts';
import type { BlobStore } from '../../blobs/blob-store.ts';
import type { SafeFetch } from '../../security/safe-fetch.ts';
import { FetchRefused } from '../../security/safe-fetch.ts';
import { InvalidField, isApiErrorCode } from '../../errors.ts';
import { inputUrlProblem, MAX_INPUT_URL_LENGTH } from './input-url.ts';
import { decodeDataUri, ImageRejected, type DecodedImage } from '../../media/image-input.ts';
import type { ImageRef } from '../../domain/task.ts';
import { FAILURES } from '../../domain/task-failure.ts';

/**
 * One image as a dialect received it: a URL (http/https or data URI) or a stored file id.
 * Errors name it by its place in the list (`images[1].url`); the dialect renames it.
 */
export interface ImageInput {
  url?: string;
  fileId?: string;
}

const PREFIX_HINT =
  'an http(s) URL or a Base64 data URI with its MIME prefix (data:image/jpeg;base64, or data:image/png;base64,)';

/**
 * Input images from submit to render: checked and stored at submit (so bad input is a 4xx
 * and inline data never bloats the task row), loaded by the worker when the task runs.
 * Its sibling `video-inputs.ts` does the same for the input videos of edits and extensions.
 */
export class ImageInputs {
  constructor(private readonly deps: { files: FileStore; blobs: BlobStore; fetch: SafeFetch }) {}

  async accept(account: Account, taskId: string, inputs: ImageInput[]): Promise<ImageRef[]> {
    const refs: ImageRef[] = [];
    try {
      for (const [index, input] of inputs.entries()) refs.push(await this.acceptOne(account, taskId, index, input));
    } catch (err) {
      await this.discard(refs);
      throw err;
    }
    return refs;
  }

  /** Removes what `accept` stored inline; called when the task is finished or was never written. */
  async discard(refs: ImageRef[]): Promise<void> {
    for (const ref of refs) if (ref.kind === 'blob') await this.deps.blobs.delete(ref.key);
  }

  /** The bytes of one input image, for the worker. Failures are permanent task failures. */
  async load(accountId: string, ref: ImageRef, signal: AbortSignal): Promise<Buffer> {
    if (ref.kind === 'blob') return this.deps.blobs.readBuffer(ref.key);
    if (ref.kind === 'file') {
      const file = await this.deps.files.get(ref.fileId);
      if (!file || file.accountId !== accountId) {
        throw FAILURES.inputUnavailable('image', `The file '${ref.fileId}' was deleted before the task ran.`);
      }
      return this.deps.blobs.readBuffer(file.blobKey);
    }
    try {
      return (await this.deps.fetch(ref.url, signal)).bytes;
    } catch (err) {
      if (err instanceof FetchRefused && err.code === 'url_too_large')
        throw FAILURES.inputTooLarge('image', err.limitBytes);
      if (err instanceof FetchRefused) throw FAILURES.inputUnreachable('image', err.message);
      throw err;
    }
  }

  private async acceptOne(account: Account, taskId: string, index: number, input: ImageInput): Promise<ImageRef> {
    if (input.fileId !== undefined) {
      const field = `images[${index}].fileId`;
      const file = await this.deps.files.get(input.fileId);
      if (!file || file.accountId !== account.id) {
        throw new InvalidField(
          field,
          'file_not_found',
          (name) => `\`${name}\` '${input.fileId}' is not a file of this account.`,
        );
      }
      if (!file.mimeType.startsWith('image/')) {
        throw new InvalidField(
          field,
          'invalid_image',
          (name) => `\`${name}\` '${input.fileId}' is a video, not an image.`,
        );
      }
      return { kind: 'file', fileId: file.id };
    }
    const field = `images[${index}].url`;
    const value = (input.url ?? '').trim();
    const inline = decodeInline(value, field);
    if (inline) {
      const key = `inputs/${taskId}/${index}`;
      await this.deps.blobs.putBuffer(key, inline.bytes, inline.mimeType);
      return { kind: 'blob', key };
    }
    const problem = inputUrlProblem(value);
    if (problem === 'too_long') {
      throw new InvalidField(
        field,
        'invalid_image',
        (name) => `\`${name}\` is longer than ${MAX_INPUT_URL_LENGTH} characters.`,
      );
    }
    if (problem === 'not_http')
      throw new InvalidField(field, 'invalid_image', (name) => `\`${name}\` must be ${PREFIX_HINT}.`);
    return { kind: 'url', url: value };
  }
}

/** The bytes of a data URI, undefined for a URL, or a 4xx naming the field and what is wrong. */
function decodeInline(value: string, field: string): DecodedImage | undefined {
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
