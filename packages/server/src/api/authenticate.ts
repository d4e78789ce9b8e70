import type { FastifyRequest } from 'fastify';
import type { Account, AccountStore } from '../store/account-store.ts';
import { bearerToken, hashApiKey } from '../security/api-keys.ts';
import { Unauthenticated } from '../errors.ts';
import { ExpiringCache, type Remembered } from './expiring-cache.ts';

export interface Caller {
  account: Account;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

/**
 * How long a valid key is trusted without asking the database again, by its Bearer token or by
 * the signed links it asked for; a revocation takes effect within it.
 */
export const KEY_CACHE_MS = 2000;
export const KEY_CACHE_MAX = 10_000;

/**
 * Resolves the Bearer key of a request to its account; 401 for a missing, unknown or revoked
 * key. Valid keys are remembered for KEY_CACHE_MS: a client polling in a loop would otherwise
 * cost a database read per poll for an answer that almost never changes (bench/poll.bench.ts).
 * Unknown keys are never cached, so a new key works at once.
 *
 * A remembered key is resolved synchronously (nothing is returned): most requests then cost no
 * promise; only a key the database must be asked about returns one. A refusal is thrown either way.
 */
export type Authenticate = (request: FastifyRequest) => Promise<void> | undefined;

export function createAuthenticator(accounts: AccountStore, clock: () => number): Authenticate {
  const cache = new ExpiringCache<Caller>(KEY_CACHE_MS, KEY_CACHE_MAX);
  // The key each keep-alive connection last proved, with the cache entry that proved it: a client
  // polling over one connection sends the same header every time, and hashing it again was the
  // largest cost of a poll's key check. Trusted no longer than the entry itself.
  const connections = new WeakMap<object, { header: string; entry: Remembered<Caller> }>();
  const remember = (request: FastifyRequest, header: string, entry: Remembered<Caller>) => {
    request.caller = entry.value;
    connections.set(request.raw.socket, { header, entry });
  };
  async function lookUp(request: FastifyRequest, header: string, hash: string, now: number): Promise<void> {
    const found = await accounts.findByKeyHash(hash);
    if (!found) {
      cache.delete(hash);
      throw new Unauthenticated('The API key is not valid or has been revoked.');
    }
    remember(request, header, cache.set(hash, { account: found.account, keyId: found.key.id }, now));
  }
  return function authenticate(request) {
    const header = request.headers.authorization ?? '';
    const now = clock();
    const proved = connections.get(request.raw.socket);
    if (proved && proved.entry.until > now && sameText(proved.header, header)) {
      request.caller = proved.entry.value;
      return undefined;
    }
    const token = bearerToken(header);
    if (!token) throw new Unauthenticated();
    const hash = hashApiKey(token);
    const cached = cache.entry(hash, now);
    if (!cached) return lookUp(request, header, hash, now);
    remember(request, header, cached);
    return undefined;
  };
}

/**
 * Equal text, compared in constant time for a given length: a connection may carry several
 * clients' requests (a proxy's pool), and the time taken must not tell one how much of another's
 * key it guessed.
 */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

/** The caller of an authenticated route (the preHandler ran). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthenticated();
  return request.caller;
}
