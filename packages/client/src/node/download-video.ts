import { mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  ConflictError,
  GoneError,
  NotFoundError,
  PermissionDeniedError,
} from '../errors.ts';
import { DownloadCheckError, ResultExpiredError, TaskNotReadyError } from '../task-errors.ts';
import { backoffDelay, sleep } from '../core/backoff.ts';
import type { VidgenClient } from '../vidgen-client.ts';
import type { Family, FamilyATask, FamilyBTaskObject } from '../types.ts';
import { receiveBody } from './receive-body.ts';
import { PartialDownload } from './partial-download.ts';

export type DownloadTarget =
  | { family: 'A'; task: FamilyATask }
  | { family: 'B'; task: FamilyBTaskObject }
  | { family: Family; id: string };

export interface DownloadOptions {
  /** Where the MP4 goes. Nothing appears there unless every check passed. */
  path: string;
  /** The whole download's own time-out (docs/service-spec.md §4.4). Default 10 minutes. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Resumptions after an interrupted transfer. Default: the client's maxRetries. */
  maxRetries?: number;
  onProgress?: (received: number, total: number | undefined) => void;
}

export interface DownloadResult {
  path: string;
  bytes: number;
  taskId: string;
  /** Some bytes came from an earlier, interrupted attempt. */
  resumed: boolean;
}

/** Where the bytes come from; family A links expire, so they can be fetched again. */
interface Source {
  taskId: string;
  /** Absolute (family A `video.url`) or relative (family B `result_url`); undefined = the content path. */
  url?: string;
  refresh?: () => Promise<Source>;
}

/**
 * Downloads a finished video to a file with every check of docs/service-spec.md §1 obligation 4: HTTP status,
 * `video/mp4`, Content-Length against the bytes received, and the MP4 `ftyp` signature. Bytes go
 * to a temp file beside the target, renamed into place only when all is well; an interrupted
 * transfer is resumed with `Range` + `If-Range`.
 */
export async function downloadVideo(
  client: VidgenClient,
  target: DownloadTarget,
  opts: DownloadOptions,
): Promise<DownloadResult> {
  const timeoutMs = opts.timeoutMs ?? 10 * 60_000;
  const timer = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timer]) : timer;
  const partial = new PartialDownload(resolve(opts.path));
  try {
    const source = await resolveSource(client, target, signal);
    await mkdir(dirname(partial.target), { recursive: true });
    return await transfer(client, source, partial, { ...opts, signal });
  } catch (err) {
    if (await shouldDiscard(err, partial)) await partial.discard();
    if (opts.signal?.aborted)
      throw err instanceof APIUserAbortError ? err : new APIUserAbortError(undefined, { cause: err });
    if (timer.aborted) throw new APIConnectionTimeoutError(`Download timed out after ${timeoutMs} ms.`, { cause: err });
    throw err;
  }
}

async function transfer(
  client: VidgenClient,
  first: Source,
  partial: PartialDownload,
  opts: DownloadOptions & { signal: AbortSignal },
): Promise<DownloadResult> {
  const maxRetries = opts.maxRetries ?? client.transport.options.maxRetries;
  let source = first;
  let refreshed = false;
  let resumed = false;
  for (let attempt = 1; ; attempt++) {
    const { from, etag } = await partial.resumable(source.taskId);
    resumed ||= from > 0;
    let response: Response;
    try {
      response = await client.content.download(source.taskId, {
        url: source.url,
        from,
        ifRange: etag,
        signal: opts.signal,
      });
    } catch (err) {
      const next = httpFailure(err, source, refreshed);
      if (next === 'refresh') {
        source = await source.refresh!();
        refreshed = true;
      } else if (next === 'restart' && attempt <= maxRetries) {
        await partial.discard();
      } else {
        throw next === 'restart' ? err : next;
      }
      continue;
    }
    const outcome = await receiveBody(response, partial, {
      from,
      source: source.taskId,
      signal: opts.signal,
      onProgress: opts.onProgress,
    });
    if (outcome.kind === 'complete') {
      await partial.commit();
      return { path: partial.target, bytes: outcome.bytes, taskId: source.taskId, resumed };
    }
    if (attempt > maxRetries || opts.signal.aborted) throw outcome.error;
    await sleep(backoffDelay(attempt, client.transport.options.backoff), opts.signal);
  }
}

/** Wrong bytes go; bytes of a broken-off transfer stay if a later run can resume them. */
async function shouldDiscard(err: unknown, partial: PartialDownload): Promise<boolean> {
  if (err instanceof ResultExpiredError) return true;
  if (!(err instanceof DownloadCheckError)) return false;
  return !err.interrupted || !(await partial.isResumable());
}

/** Turns an HTTP refusal into what it means for a download. */
function httpFailure(err: unknown, source: Source, refreshed: boolean): 'refresh' | 'restart' | unknown {
  if (!(err instanceof APIError) || err.status === undefined || err instanceof APIConnectionError) return err;
  if (err instanceof GoneError)
    return new ResultExpiredError(source.taskId, `The video of task ${source.taskId} has expired (HTTP 410).`, {
      cause: err,
    });
  if (err instanceof ConflictError) return new TaskNotReadyError(source.taskId, err.code ?? 'not ready');
  // Family A links are signed and expire; a fresh poll hands out a new one.
  if (err instanceof PermissionDeniedError && source.refresh && !refreshed) return 'refresh';
  // Our partial file is already complete or longer than the file: start again.
  if (err.status === 416) return 'restart';
  if (err instanceof AuthenticationError || err instanceof NotFoundError) return err;
  return new DownloadCheckError('status', `the server answered HTTP ${err.status}: ${err.message}`);
}

async function resolveSource(client: VidgenClient, target: DownloadTarget, signal: AbortSignal): Promise<Source> {
  if (target.family === 'A') {
    const task = 'task' in target ? (target.task as FamilyATask) : await client.videos.retrieve(target.id, { signal });
    return familyASource(client, task, signal);
  }
  if (!('task' in target)) return { taskId: target.id };
  const task = target.task as FamilyBTaskObject;
  if (task.expired) throw new ResultExpiredError(task.task_id);
  if (task.status !== 'SUCCESS') throw new TaskNotReadyError(task.task_id, task.status);
  return { taskId: task.task_id, url: task.result_url || undefined };
}

function familyASource(client: VidgenClient, task: FamilyATask, signal: AbortSignal): Source {
  if (task.status === 'expired') throw new ResultExpiredError(task.request_id);
  if (task.status !== 'done' || !task.video?.url) throw new TaskNotReadyError(task.request_id, task.status);
  const refresh = async () => familyASource(client, await client.videos.retrieve(task.request_id, { signal }), signal);
  return { taskId: task.request_id, url: task.video.url, refresh };
}
