import type { FastifyReply } from 'fastify';
import { ApiError } from '../errors.ts';
import { isStorageFault, STORAGE_RETRY_AFTER_SECONDS } from '../domain/storage-faults.ts';

/**
 * A request that met a storage fault (database connection lost, disk full or read-only) is
 * refused with 503 + Retry-After, never a 500 (invariant 9): nothing was changed that the
 * retry would repeat, since every write the API makes is one transaction or is undone.
 */
export function unavailableFor(err: unknown, reply: FastifyReply): ApiError | undefined {
  if (!isStorageFault(err)) return undefined;
  reply.header('retry-after', String(STORAGE_RETRY_AFTER_SECONDS));
  return new ApiError(
    503,
    'server_error',
    'service_unavailable',
    'The service cannot reach its storage right now; nothing was changed. Retry shortly.',
  );
}
