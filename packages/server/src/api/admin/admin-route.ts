import type { FastifySchema, onRequestHookHandler } from 'fastify';
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
  });
}
