import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ApiError, InvalidRequest } from '../../errors.ts';
import { isStorageFault } from '../../domain/storage-faults.ts';

export interface Upload {
  filename: string;
  /** The staging file the upload was written to as it arrived (FileService.stage). */
  path: string;
  bytes: number;
  purpose: string;
}

/** Writes an arriving file part somewhere (never whole in memory); `truncated` tells a part cut at the limit. */
export type StageUpload = (source: Readable, truncated: () => boolean) => Promise<{ path: string; bytes: number }>;

const PURPOSE = /^[\x21-\x7e]{1,50}$/;

/**
 * The whole multipart form of an upload, read and checked before anything is stored: one file part
 * (`file`, or the name given), an optional `purpose`, and the form's other text fields (before or
 * after it). A form the parser cannot read is the caller's fault (400), never a 500.
 */
export async function readUpload(
  request: FastifyRequest,
  stage: StageUpload,
  fileField = 'file',
): Promise<Upload & { fields: Record<string, string> }> {
  let file: { filename: string; path: string; bytes: number } | undefined;
  const fields: Record<string, string> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== fileField || file) {
          part.file.resume();
          continue;
        }
        file = { filename: part.filename, ...(await stage(part.file, () => part.file.truncated)) };
      } else {
        fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
      }
    }
  } catch (err) {
    if (file) await rm(file.path, { force: true });
    // A full or read-only disk while staging is the server's fault, answered 503 (invariant 9,
    // docs/architecture.md), not a malformed form.
    if (isStorageFault(err)) throw err;
    throw multipartRefusal(err as Error & { code?: string; statusCode?: number });
  }
  if (!file) throw new InvalidRequest('missing_field', `\`${fileField}\` is required.`, fileField);
  const purpose = fields.purpose || 'vision';
  if (!PURPOSE.test(purpose)) {
    await rm(file.path, { force: true });
    throw new InvalidRequest('invalid_value', '`purpose` must be 1–50 visible ASCII characters.', 'purpose');
  }
  return { ...file, purpose, fields };
}

export function multipartRefusal(err: Error & { code?: string; statusCode?: number }): ApiError {
  if (err instanceof ApiError) return err;
  if (err.code === 'FST_REQ_FILE_TOO_LARGE') {
    return new ApiError(
      413,
      'invalid_request_error',
      'body_too_large',
      'The uploaded file is larger than this server accepts.',
      'file',
    );
  }
  if (err.code === 'FST_FILES_LIMIT')
    return new InvalidRequest('invalid_multipart', 'Send one file per upload, in the field `file`.', 'file');
  if (err.code === 'FST_FIELDS_LIMIT' || err.code === 'FST_PARTS_LIMIT') {
    return new InvalidRequest(
      'invalid_multipart',
      'The form has more fields than an upload takes (`file` and `purpose`).',
    );
  }
  return new InvalidRequest(
    'invalid_multipart',
    'The upload is not well-formed multipart/form-data (missing boundary, or the body ends early).',
  );
}
