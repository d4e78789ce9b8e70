/**
 * An S3 call that failed, told in words an operator can act on. It carries only the S3 error
 * code, HTTP status and request id: the SDK's own error objects hold the raw response (for a
 * signature mismatch that includes the access key id and the string to sign), and whatever we
 * throw ends up in logs, so the original is deliberately not kept as `cause`.
 */
export class S3BlobStoreError extends Error {
  constructor(
    message: string,
    readonly s3Code: string | undefined,
    readonly httpStatus: number | undefined,
    readonly requestId: string | undefined,
  ) {
    super(message);
    this.name = 'S3BlobStoreError';
  }
}

interface SdkErrorShape {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number; requestId?: string };
}

/** Codes whose server message we replace, because a plain hint is more useful (or safer). */
const HINTS: Record<string, string> = {
  NoSuchBucket: 'the bucket does not exist',
  AccessDenied: 'access denied: the credentials lack permission for this bucket or key',
  InvalidAccessKeyId: 'the access key id is not known to this S3 endpoint',
  SignatureDoesNotMatch: 'the secret access key does not match the access key id',
  RequestTimeTooSkewed: "this machine's clock is too far from the S3 endpoint's",
  ExpiredToken: 'the session token has expired',
  CredentialsProviderError:
    'no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or another source of the default ' +
    'credential chain)',
};

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'TimeoutError',
]);

/** `operation` names what we tried (e.g. "PUT"), `target` where (e.g. "s3://bucket/key"). */
export function toS3BlobStoreError(err: unknown, operation: string, target: string): S3BlobStoreError {
  if (err instanceof S3BlobStoreError) return err;
  const e = (err ?? {}) as SdkErrorShape;
  const status = e.$metadata?.httpStatusCode;
  const code = e.name && e.name !== 'Error' ? e.name : e.code;
  const requestId = e.$metadata?.requestId;
  return new S3BlobStoreError(
    `S3 ${operation} ${target} failed: ${describe(e, code, status)}`,
    code,
    status,
    requestId,
  );
}

function describe(e: SdkErrorShape, code: string | undefined, status: number | undefined): string {
  if (code && HINTS[code]) return `${HINTS[code]} (${code})`;
  if (code && NETWORK_CODES.has(code)) return `the S3 endpoint is unreachable (${code}: ${clip(e.message)})`;
  if (e.code && NETWORK_CODES.has(e.code)) return `the S3 endpoint is unreachable (${e.code})`;
  // HEAD responses have no body, so the SDK only knows the status.
  if (status === 403) return 'access denied (HTTP 403): check the credentials and the bucket policy';
  if (status === 404) return 'not found (HTTP 404)';
  if (status === 301) return 'the bucket lives in another region (HTTP 301): set the region it was created in';
  if (status === 400 && (!code || code.startsWith('Unknown')))
    return 'bad request (HTTP 400): check the region and the endpoint';
  const where = status ? ` (HTTP ${status})` : '';
  return `${code ?? 'error'}${where}: ${clip(e.message)}`;
}

function clip(message: string | undefined): string {
  const text = (message ?? '').replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text || 'no details';
}
