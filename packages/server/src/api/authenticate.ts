import type { FastifyRequest } from 'fastify';
import type { Account, AccountStore } from '../store/account-store.ts';
import { bearerToken, hashApiKey } from '../security/api-keys.ts';
import { Unauthenticated } from '../errors.ts';

export interface Caller {
  account: Account;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
  }
}

/** Resolves the Bearer key of a request to its account; 401 for a missing, unknown or revoked key. */
export function createAuthenticator(accounts: AccountStore) {
  return async function authenticate(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request.headers.authorization);
    if (!token) throw new Unauthenticated();
    const found = await accounts.findByKeyHash(hashApiKey(token));
    if (!found) throw new Unauthenticated('The API key is not valid or has been revoked.');
    request.caller = { account: found.account, keyId: found.key.id };
  };
}

/** The caller of an authenticated route (the preHandler ran). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthenticated();
  return request.caller;
}
