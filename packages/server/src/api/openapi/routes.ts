import type { FastifyInstance } from 'fastify';
import { PUBLIC } from '../route-schemas.ts';
import { CLAIMED_SUFFIX, mergeClaimedOperations } from './shared-operations.ts';

const DESCRIPTION = [
  'Asynchronous video generation in two API dialects over one task engine:',
  'family A (xAI "imagine video" style, `/v1/videos/*`) and family B (new-api relay style, `/v1/video/generations`).',
  'Every request needs `Authorization: Bearer <key>` unless the operation says otherwise; error codes are listed ' +
    'in docs/errors.md.',
].join(' ');

/**
 * Serves the OpenAPI 3.1 document at `GET /openapi.json`. Without `document`, collects every route
 * registered after it into that document, so the document is the routes' own schemas and cannot
 * drift from them: call it before any route is registered. With `document`, serves what it builds
 * (the same collection, made by a separate app on first request), and loads no OpenAPI code here.
 */
export async function registerOpenApi(
  app: FastifyInstance,
  opts: { publicUrl?: string; document?: () => Promise<Record<string, unknown>> },
): Promise<void> {
  const route = { schema: { hide: true, ...PUBLIC }, config: { public: true } };
  if (opts.document) {
    const build = opts.document;
    app.get('/openapi.json', route, () => build());
    return;
  }
  const { default: swagger } = await import('@fastify/swagger');
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'vidgen', version: '1', description: DESCRIPTION },
      // Relative by default: the document then works behind whatever host and proxy serve it.
      servers: [{ url: opts.publicUrl ?? '/' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (`vidgen keys create`).' },
          admin: {
            type: 'http',
            scheme: 'bearer',
            description: 'The operator token `VIDGEN_ADMIN_TOKEN` (admin routes only).',
          },
        },
      },
      security: [{ bearer: [] }],
    },
    // A route a dialect takes only for the requests it claims shares its path with another: kept
    // apart here, then merged into that path's operation.
    transform: ({ schema, url, route }) => ({
      schema,
      url: (route.constraints as { dialect?: string } | undefined)?.dialect ? `${url}${CLAIMED_SUFFIX}` : url,
    }),
    transformObject: (documents) => {
      const document = (documents as { openapiObject: { paths: never } }).openapiObject;
      mergeClaimedOperations(document.paths);
      return document;
    },
  });
  app.get('/openapi.json', route, async () => app.swagger());
}
