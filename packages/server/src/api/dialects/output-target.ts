import type { FileOutput, OutputFields } from '@vidgen/protocol';
import type { DeliveryRequest } from '../../domain/delivery.ts';
import type { Task } from '../../domain/task.ts';
import { InvalidRequest } from '../../errors.ts';
import type { WireContext } from './dialect.ts';

interface StorageAnswer {
  file_output?: FileOutput;
  storage_error?: string;
}

/** The engine's names of the delivery fields, as every dialect writes them (a dialect's `fieldName`). */
export const DELIVERY_FIELD_NAMES: Record<string, string> = {
  'delivery.uploadUrl': 'output.upload_url',
  'delivery.file': 'storage_options',
};

/**
 * The delivery a submit's body asks for, under the names every dialect shares (protocol's
 * OutputFields): `output.upload_url` and `storage_options`. The URL's shape is a wire rule, checked
 * here; its address is checked again at connect time by the SSRF-safe fetcher (invariant 5,
 * docs/architecture.md), so a host that resolves somewhere private later is still refused.
 */
export function deliveryOf(body: OutputFields): DeliveryRequest | undefined {
  const { output, storage_options: options } = body;
  if (output === undefined && options === undefined) return undefined;
  const delivery: DeliveryRequest = {};
  if (output !== undefined) delivery.uploadUrl = checkUploadUrl(output.upload_url);
  if (options !== undefined) {
    const publicUrl = options.public_url;
    delivery.file = {
      filename: checkFilename(options.filename),
      ...(options.expires_after !== undefined ? { expiresAfterSeconds: options.expires_after } : {}),
      ...(publicUrl === true ? { publicUrl: {} } : {}),
      ...(typeof publicUrl === 'object' ? { publicUrl: { expiresAfterSeconds: publicUrl.expires_after } } : {}),
    };
  }
  return delivery;
}

function checkUploadUrl(raw: string): string {
  const refuse = (problem: string) =>
    new InvalidRequest('invalid_upload_url', `\`output.upload_url\` ${problem}`, 'output.upload_url');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must use http or https.');
  if (url.username !== '' || url.password !== '') throw refuse('must not contain credentials.');
  if (url.hostname === '') throw refuse('has no host.');
  return url.href;
}

/** A name among the account's files: no path, no control characters. */
function checkFilename(name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[/\\\u0000-\u001f\u007f]/.test(name) || name === '.' || name === '..') {
    throw new InvalidRequest(
      'invalid_value',
      '`storage_options.filename` must be a plain file name (no slashes or control characters).',
      'storage_options.filename',
    );
  }
  return name;
}

/**
 * What a finished task's answer says of its delivery, in every dialect's `video` object: the file
 * kept for `storage_options` (with a signed `public_url` where one was asked for and the caller's
 * context can mint it) and `storage_error`. Undefined when the task asked for neither.
 */
export function storageAnswer(task: Task, ctx?: WireContext): StorageAnswer | undefined {
  const outcome = task.status === 'succeeded' ? task.result?.delivery : undefined;
  if (!outcome || (!outcome.file && outcome.storageError === undefined)) return undefined;
  const answer: StorageAnswer = {};
  if (outcome.file) {
    const { fileId, filename, expiresAt } = outcome.file;
    answer.file_output = { file_id: fileId, filename };
    if (expiresAt !== null) answer.file_output.expires_at = Math.floor(expiresAt / 1000);
    const asked = task.params.delivery?.file?.publicUrl;
    const link = asked && ctx?.signedFileUrl?.(fileId, asked.expiresAfterSeconds, expiresAt);
    if (link) Object.assign(answer.file_output, { public_url: link.url, public_url_expires_at: link.expiresAt });
  }
  if (outcome.storageError !== undefined) answer.storage_error = outcome.storageError;
  return answer;
}
