import { DownloadCheckError } from './task-errors.ts';

/**
 * The checks a download must pass before anything is saved (docs/service-spec.md §4.4, §4.7: status, content
 * type, size). Pure, so the browser can use them on a fetched Blob as well.
 */

export function checkContentType(header: string | null): void {
  const type = (header ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'video/mp4')
    throw new DownloadCheckError('content_type', `expected Content-Type video/mp4, got '${header ?? '(none)'}'`);
}

/** An MP4 file starts with a box whose type, at bytes 4..8, is `ftyp`. */
export function checkMp4Signature(head: Uint8Array): void {
  const tag = String.fromCharCode(...head.subarray(4, 8));
  if (head.length < 8 || tag !== 'ftyp')
    throw new DownloadCheckError('signature', 'the file does not start like an MP4 (no `ftyp` box at byte 4)');
}

export interface ContentRange {
  start: number;
  end: number;
  /** Undefined for `*`. */
  total: number | undefined;
}

/** `bytes 100-199/1000` → {start:100, end:199, total:1000}; undefined when malformed. */
export function parseContentRange(header: string | null): ContentRange | undefined {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec((header ?? '').trim());
  if (!match) return undefined;
  return { start: Number(match[1]), end: Number(match[2]), total: match[3] === '*' ? undefined : Number(match[3]) };
}

/** The length the whole file must have, from Content-Length (200) or Content-Range (206). */
export function expectedTotal(response: Response, from: number): number | undefined {
  if (response.status === 206) {
    const range = parseContentRange(response.headers.get('content-range'));
    if (!range || range.start !== from) {
      throw new DownloadCheckError(
        'range',
        `asked for bytes from ${from}, got Content-Range '${response.headers.get('content-range') ?? '(none)'}'`,
      );
    }
    return range.total;
  }
  if (response.status !== 200)
    throw new DownloadCheckError('status', `expected HTTP 200 or 206, got ${response.status}`);
  const length = response.headers.get('content-length');
  return length === null || length.trim() === '' ? undefined : Number(length);
}

/** Strong ETags only: a weak one cannot vouch that resumed bytes belong to the same file. */
export function resumableEtag(etag: string | null): string | undefined {
  return etag && !etag.startsWith('W/') ? etag : undefined;
}
