import { open } from 'node:fs/promises';
import { DownloadCheckError } from '../task-errors.ts';
import { checkContentType, checkMp4Signature, expectedTotal, resumableEtag } from '../download-checks.ts';
import type { PartialDownload } from './partial-download.ts';

export type Received =
  | { kind: 'complete'; bytes: number }
  /** The transfer broke off; what arrived stays in the partial file for a resume. */
  | { kind: 'interrupted'; error: DownloadCheckError };

export interface ReceiveOptions {
  from: number;
  source: string;
  signal: AbortSignal;
  onProgress?: (received: number, total: number | undefined) => void;
}

/**
 * Checks the answer, appends its body to the partial file and verifies the whole file.
 * Wrong answers throw DownloadCheckError; a broken transfer is reported, not thrown, so the
 * caller can resume it.
 */
export async function receiveBody(
  response: Response,
  partial: PartialDownload,
  opts: ReceiveOptions,
): Promise<Received> {
  const total = expectedTotal(response, opts.from);
  checkContentType(response.headers.get('content-type'));
  // 200 to a ranged request means the file changed (If-Range) or ranges are not served: start over.
  const start = response.status === 206 ? opts.from : 0;
  const etag = resumableEtag(response.headers.get('etag'));
  if (etag) await partial.writeMeta({ source: opts.source, etag, total });
  else await partial.forgetMeta();
  const received = await appendBody(response, partial, start, total, opts);
  if (typeof received !== 'number') return received;
  if (total !== undefined && received < total) {
    return {
      kind: 'interrupted',
      error: new DownloadCheckError('length', `received ${received} of ${total} bytes announced by the server`, {
        interrupted: true,
      }),
    };
  }
  await verifyFile(partial, received);
  return { kind: 'complete', bytes: received };
}

async function appendBody(
  response: Response,
  partial: PartialDownload,
  start: number,
  total: number | undefined,
  opts: ReceiveOptions,
): Promise<number | Received> {
  const handle = await open(partial.partPath, start > 0 ? 'a' : 'w');
  let received = start;
  try {
    if (!response.body) return received;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return received;
      if (total !== undefined && received + value.length > total) {
        await reader.cancel().catch(() => undefined);
        throw new DownloadCheckError('length', `the server sent more than the ${total} bytes it announced`);
      }
      await handle.write(value);
      received += value.length;
      opts.onProgress?.(received, total);
    }
  } catch (err) {
    if (err instanceof DownloadCheckError || opts.signal.aborted) throw err;
    const of = total === undefined ? '' : ` of ${total}`;
    return {
      kind: 'interrupted',
      error: new DownloadCheckError('length', `the transfer broke off after ${received}${of} bytes`, {
        cause: err,
        interrupted: true,
      }),
    };
  } finally {
    await handle.close();
  }
}

async function verifyFile(partial: PartialDownload, received: number): Promise<void> {
  const size = await partial.size();
  if (size === 0) throw new DownloadCheckError('length', 'the server sent an empty file');
  if (size !== received) throw new DownloadCheckError('length', `the file has ${size} bytes, expected ${received}`);
  checkMp4Signature(await partial.head(8));
}
