import type { Multipart, MultipartFields } from '@fastify/multipart';
import { sniffImageType } from '../media/image-input.ts';
import { InvalidRequest } from '../errors.ts';

/** A form nests no deeper than the JSON bodies it stands for. */
const MAX_KEY_DEPTH = 3;

/**
 * A `multipart/form-data` body as the JSON body it stands for, so one schema checks both: the
 * openai-node SDK sends every create as a form, nested fields as bracketed keys
 * (`input_reference[image_url]`, `video[id]`). A field is its text; a file part is a data URL
 * of its bytes, typed by their magic bytes where they are an image (the declared type is often
 * `application/octet-stream`), except an MP4, which is stored as an uploaded file.
 */
export async function formBody(fields: unknown, keepVideo: KeepVideo): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((fields ?? {}) as MultipartFields)) {
    if (Array.isArray(value)) throw new InvalidRequest('invalid_multipart', `\`${key}\` may be given only once.`, key);
    if (value === undefined) continue;
    setPath(body, pathOf(key), await partValue(key, value, keepVideo));
  }
  return body;
}

/** Stores a video file part as an uploaded file and returns what the body holds in its place. */
export type KeepVideo = (field: string, filename: string, bytes: Buffer) => Promise<unknown>;

/** ISO base media files name their brand in the first box: `....ftyp`. */
const isMp4 = (bytes: Buffer) => bytes.subarray(4, 8).toString('latin1') === 'ftyp';

async function partValue(key: string, part: Multipart, keepVideo: KeepVideo): Promise<unknown> {
  if (part.type === 'field') return part.value;
  const bytes = await part.toBuffer();
  // A video (the source of an edit or extension) is too large for a data URL: it becomes a file.
  if (isMp4(bytes)) return keepVideo(key, part.filename, bytes);
  // Only the OpenAI dialect's forms carry a `video` part (family A sends JSON): one that is not an MP4 is
  // refused as that part, not passed on as text for another dialect's route to misread.
  if (pathOf(key)[0] === 'video')
    throw new InvalidRequest(
      'invalid_video',
      `The \`${key}\` part is not an MP4 (its bytes have no \`ftyp\` box); send the source video as an MP4 file.`,
      key,
    );
  const type = sniffImageType(bytes) ?? part.mimetype ?? 'application/octet-stream';
  return `data:${type};base64,${bytes.toString('base64')}`;
}

/** `a[b][c]` → ['a', 'b', 'c']; a plain key is one step. */
function pathOf(key: string): string[] {
  const match = /^([^[\]]+)((?:\[[^[\]]+\])*)$/.exec(key);
  if (!match) throw new InvalidRequest('invalid_multipart', `The form field name \`${key}\` is malformed.`, key);
  const path = [match[1], ...[...match[2].matchAll(/\[([^[\]]+)\]/g)].map((m) => m[1])];
  if (path.some((step) => step === '__proto__' || step === 'constructor' || step === 'prototype'))
    throw new InvalidRequest('invalid_multipart', `The form field name \`${key}\` is not allowed.`, key);
  if (path.length > MAX_KEY_DEPTH)
    throw new InvalidRequest('invalid_multipart', `The form field \`${key}\` nests too deep.`, key);
  return path;
}

function setPath(body: Record<string, unknown>, path: string[], value: unknown): void {
  let at = body;
  for (const step of path.slice(0, -1)) {
    const next = Object.hasOwn(at, step) ? at[step] : undefined;
    if (next !== undefined && (typeof next !== 'object' || next === null))
      throw new InvalidRequest(
        'invalid_multipart',
        `\`${path.join('.')}\` is given both as a value and as fields.`,
        step,
      );
    at = (next as Record<string, unknown> | undefined) ?? (at[step] = {});
  }
  const last = path[path.length - 1];
  if (Object.hasOwn(at, last))
    throw new InvalidRequest('invalid_multipart', `\`${path.join('.')}\` is given twice.`, path.join('.'));
  at[last] = value;
}
