import { createReadStream } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { pipeline } from 'node:stream/promises';
import {
  type AddressPolicy,
  guardedLookup,
  isPublicAddress,
  parseTarget,
  statusOnly,
  withDeadline,
} from './create-safe-fetch.ts';
import type { SafeFetchOptions, SafePut } from './safe-fetch.ts';

/**
 * PUTs a file under the fetcher's address checks (invariant 5, docs/architecture.md): http(s)
 * only, every resolved address allowed by `policy` at connect time, one time budget for the whole
 * exchange. The body is streamed from disk with its `Content-Length` (presigned S3 and GCS PUTs
 * refuse chunked bodies), and at most `maxBytes` of the answer is read.
 */
export function createSafePut(
  options: Omit<SafeFetchOptions, 'maxRedirects' | 'what'>,
  policy: AddressPolicy = options.allowPrivate ? () => true : isPublicAddress,
): SafePut {
  const label = 'The upload URL';
  const full = { ...options, maxRedirects: 0, what: 'upload' as const };
  return (url, file, signal) =>
    withDeadline(full, signal, (deadline) =>
      put(parseTarget(url, undefined, label, policy), label, policy, file, options.maxBytes, deadline),
    );
}

function put(
  url: URL,
  label: string,
  policy: AddressPolicy,
  file: { path: string; bytes: number; contentType: string },
  maxBytes: number,
  signal: AbortSignal,
) {
  return new Promise<{ status: number }>((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.request(url, {
      method: 'PUT',
      headers: {
        'user-agent': 'vidgen-upload/1',
        'content-type': file.contentType,
        'content-length': String(file.bytes),
      },
      agent: false,
      lookup: guardedLookup(label, policy),
      signal,
    });
    req.on('error', reject);
    req.on('response', (res) => statusOnly(res, maxBytes).then(resolve));
    // A failed read ends the request with an error, which rejects through `req`'s handler.
    pipeline(createReadStream(file.path), req).catch((err) => req.destroy(err));
  });
}
