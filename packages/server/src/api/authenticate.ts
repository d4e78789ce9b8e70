import type { FastifyRequest } from 'fastify';
import type { Account, AccountStore } from '../store/account-store.ts';
import { bearerToken, hashApiKey } from '../security/api-keys.ts';
import { Unauthenticated } from '../errors.ts';
import { ExpiringCache } from './expiring-cache.ts';

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
  async function lookUp(request: FastifyRequest, hash: string, now: number): Promise<void> {
    const found = await accounts.findByKeyHash(hash);
    if (!found) {
      cache.delete(hash);
      throw new Unauthenticated('The API key is not valid or has been revoked.');
    }
    request.caller = { account: found.account, keyId: found.key.id };
    cache.set(hash, request.caller, now);
  }
  return function authenticate(request) {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new Unauthenticated();
    const hash = hashApiKey(token);
    const now = clock();
    const cached = cache.get(hash, now);
    if (!cached) return lookUp(request, hash, now);
    request.caller = cached;
    return undefined;
  };
}

/** The caller of an authenticated route (the preHandler ran). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthenticated();
  return request.caller;
}
