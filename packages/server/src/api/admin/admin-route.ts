import type { FastifySchema, onRequestHookHandler, onSendHookHandler } from 'fastify';
import { ApiError } from '../../errors.ts';
import { adminTokenMatcher } from '../../security/admin-token.ts';
import { described, errorResponses } from '../route-schemas.ts';

export type AdminRoute = (
  operationId: string,
  summary: string,
  schema: FastifySchema,
  ok: Parameters<typeof described>[0],
  okText: string,
) => {
  schema: FastifySchema;
  config: { public: true };
  onRequest: onRequestHookHandler;
  onSend: onSendHookHandler;
};

/**
 * Headers of every admin answer, errors included: account data and balances are never kept by a
 * browser or a proxy, and an answer opened as a page runs nothing and loads nothing.
 */
export const ADMIN_API_HEADERS: Readonly<Record<string, string>> = {
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const onSend: onSendHookHandler = (_request, reply, payload, done) => {
  reply.headers(ADMIN_API_HEADERS);
  done(null, payload);
};

/**
 * Route options of every `/admin/v1/*` route: the admin token instead of an API key, the Admin tag
 * in the OpenAPI document. Without VIDGEN_ADMIN_TOKEN every admin route answers 403 `admin_disabled`.
 */
export function adminRoutes(adminToken: string | undefined): AdminRoute {
  const matches = adminToken ? adminTokenMatcher(adminToken) : undefined;
  const onRequest: onRequestHookHandler = async (request) => {
    if (!matches)
      throw new ApiError(
        403,
        'permission_error',
        'admin_disabled',
        'The admin API is disabled: the operator has not set VIDGEN_ADMIN_TOKEN.',
      );
    if (!matches(request.headers.authorization))
      throw new ApiError(
        401,
        'authentication_error',
        'invalid_admin_token',
        'Send the admin token as `Authorization: Bearer <VIDGEN_ADMIN_TOKEN>`.',
      );
  };
  return (operationId, summary, schema, ok, okText) => ({
    schema: {
      operationId,
      summary,
      tags: ['Admin'],
      security: [{ admin: [] }],
      ...schema,
      response: { 200: described(ok, okText), ...errorResponses() },
    },
    config: { public: true },
    onRequest,
    onSend,
  });
}

/**
 * An endpoint id the operator named that is not there, or a server that runs no webhook service
 * (nothing can be found then): the same 404 either way.
 */
export const noWebhookEndpoint = (id: string) =>
  new ApiError(404, 'not_found_error', 'webhook_not_found', `No webhook endpoint found with id '${id}'.`);
