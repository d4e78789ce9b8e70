import { ErrorBody, Type, type TSchema } from '@vidgen/protocol';

/**
 * Pieces of the route schemas every route family shares. Routes declare what they answer:
 * Fastify serializes answers from these schemas (dropping undeclared fields), and the OpenAPI
 * document at `/openapi.json` is built from them.
 */

/** A schema with the description the OpenAPI document shows for the response that uses it. */
export function described<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}

/**
 * Every refusal and failure of a route, in the envelope of whoever owns it (OpenAI-style unless a dialect says
 * otherwise).
 */
export function errorResponses(error: TSchema = ErrorBody): Record<string, TSchema> {
  return {
    '4xx': described(
      error,
      'Refused: the error code says why (docs/errors.md); 429 and 409 in flight come with `Retry-After`.',
    ),
    '5xx': described(error, 'The service failed or is not ready (503 with `Retry-After`): try again later.'),
  };
}

/** Path parameters: ids are opaque strings. */
export function idParams(...names: string[]) {
  return Type.Object(Object.fromEntries(names.map((name) => [name, Type.String()])));
}

type Security = { security: Array<Record<string, string[]>> };

/** Routes that need no API key: the document must not ask for one. */
export const PUBLIC: Security = { security: [] };

/**
 * Routes that take the key or another credential (a signed link, a metrics token): the empty requirement makes the key
 * optional.
 */
export const KEY_OPTIONAL: Security = { security: [{ bearer: [] }, {}] };

/**
 * How request bodies are validated (Fastify's Ajv options): nothing coerced, removed or filled in,
 * so a body is checked as sent. Also the options a batch's lines are checked with.
 */
export const BODY_VALIDATION = { coerceTypes: false, removeAdditional: false, useDefaults: false } as const;
