import { createHash, timingSafeEqual } from 'node:crypto';
import { bearerToken } from './api-keys.ts';

/**
 * The operator's admin token check: constant-time over fixed-length digests (so neither the
 * content nor the length of the token leaks through timing). The token is never logged.
 */
export function adminTokenMatcher(token: string): (authorization: string | undefined) => boolean {
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    const given = bearerToken(authorization);
    if (!given) return false;
    return timingSafeEqual(createHash('sha256').update(given).digest(), expected);
  };
}
