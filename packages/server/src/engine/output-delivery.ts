import type { Logger } from 'pino';
import type { BlobStore } from '../blobs/blob-store.ts';
import type { FileStore } from '../store/file-store.ts';
import type { DeliveryOutcome, DeliveryRequest } from '../domain/delivery.ts';
import { newId } from '../domain/ids.ts';
import { FetchRefused, type SafePut } from '../security/safe-fetch.ts';

export interface OutputDeliveryDeps {
  /** PUTs through the SSRF-safe guards (security/create-safe-put.ts). */
  put: SafePut;
  files: FileStore;
  blobs: BlobStore;
  /** How long a failing upload is retried (VIDGEN_UPLOAD_RETRY_SECONDS). */
  retryMs: number;
  clock: () => number;
  /** Waits between attempts; aborted by the task's signal. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  logger: Logger;
}

/** The verified video, as the runner stored it. */
export interface DeliveredVideo {
  path: string;
  bytes: number;
}

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** What a file made for `storage_options` is listed as in `/v1/files`. */
export const VIDEO_OUTPUT_PURPOSE = 'video_output';

/**
 * Sends a verified video where the task asked (docs/storage.md), before the task is reported done:
 * the caller's upload URL and/or a file among the account's files. A failure never fails the task:
 * the video stays here and the outcome carries `storageError`. A stop (cancel, shutdown) is thrown
 * as it came, so the runner ends the attempt as it would mid-render.
 */
export async function deliverOutput(
  deps: OutputDeliveryDeps,
  task: { id: string; accountId: string; delivery: DeliveryRequest },
  video: DeliveredVideo,
  signal: AbortSignal,
): Promise<DeliveryOutcome> {
  const outcome: DeliveryOutcome = {};
  const errors: string[] = [];
  const { uploadUrl, file } = task.delivery;
  if (uploadUrl !== undefined) {
    const failure = await upload(deps, uploadUrl, video, signal);
    if (failure === undefined) outcome.uploaded = true;
    else errors.push(failure);
  }
  if (file !== undefined) {
    try {
      outcome.file = await keepAsFile(deps, task.accountId, file, video);
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      deps.logger.warn({ err, taskId: task.id }, 'the video could not be kept as a file');
      errors.push('The video could not be kept among your files; it is still available from this task.');
    }
  }
  if (errors.length > 0) outcome.storageError = errors.join(' ');
  // Zero retention: a video that reached the caller's storage is not kept here (invariant 3 held:
  // it was verified before it was sent).
  if (task.delivery.zeroRetention && outcome.uploaded) outcome.removed = true;
  return outcome;
}

/** Undefined when the upload URL answered 2xx; otherwise why not, in words safe to show the caller. */
async function upload(
  deps: OutputDeliveryDeps,
  url: string,
  video: DeliveredVideo,
  signal: AbortSignal,
): Promise<string | undefined> {
  const sleep = deps.sleep ?? abortableSleep;
  const giveUpAt = deps.clock() + deps.retryMs;
  let wait = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    let why: string;
    let retryable: boolean;
    try {
      const { status } = await deps.put(url, { ...video, contentType: 'video/mp4' }, signal);
      if (status >= 200 && status < 300) return undefined;
      why = `The upload URL answered with HTTP status ${status}.`;
      retryable = status >= 500 || status === 408 || status === 429;
    } catch (err) {
      if (signal.aborted) throw signal.reason;
      if (!(err instanceof FetchRefused)) throw err;
      why = err.message;
      // An address the policy refuses or a malformed URL will not change; a time-out or a lost connection may.
      retryable = err.code === 'url_timeout' || err.code === 'url_unreachable';
    }
    if (!retryable || deps.clock() + wait > giveUpAt) {
      const tries = attempt === 1 ? '' : ` (${attempt} attempts)`;
      return `${why.replace(/\.$/, '')}${tries}; the video was not delivered there and stays available here.`;
    }
    await sleep(wait, signal);
    wait = Math.min(wait * 2, MAX_RETRY_MS);
  }
}

async function keepAsFile(
  deps: OutputDeliveryDeps,
  accountId: string,
  file: NonNullable<DeliveryRequest['file']>,
  video: DeliveredVideo,
): Promise<NonNullable<DeliveryOutcome['file']>> {
  const id = newId('file');
  const now = deps.clock();
  const expiresAt = file.expiresAfterSeconds === undefined ? null : now + file.expiresAfterSeconds * 1000;
  const blobKey = `files/${id}`;
  await deps.blobs.putFile(blobKey, video.path, 'video/mp4');
  try {
    await deps.files.insert({
      id,
      accountId,
      filename: file.filename,
      bytes: video.bytes,
      mimeType: 'video/mp4',
      purpose: VIDEO_OUTPUT_PURPOSE,
      blobKey,
      createdAt: now,
      expiresAt,
    });
  } catch (err) {
    // No row, no bytes: a blob nothing refers to would never be deleted.
    await deps.blobs.delete(blobKey).catch(() => undefined);
    throw err;
  }
  return { fileId: id, filename: file.filename, expiresAt };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
}
