import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import { PUBLIC } from '../route-schemas.ts';
import { CLAIMED_SUFFIX, mergeClaimedOperations } from './shared-operations.ts';

const DESCRIPTION = [
  'Asynchronous video generation in two API dialects over one task engine:',
  'family A (xAI "imagine video" style, `/v1/videos/*`) and family B (new-api relay style, `/v1/video/generations`).',
  'Every request needs `Authorization: Bearer <key>` unless the operation says otherwise; error codes are listed ' +
    'in docs/errors.md.',
].join(' ');

/**
 * Collects every route registered after it into the OpenAPI 3.1 document served at
 * `GET /openapi.json`, so the document is the routes' own schemas and cannot drift from them.
 * Call it before any route is registered: routes are collected as they are added.
 */
export async function registerOpenApi(app: FastifyInstance, opts: { publicUrl?: string }): Promise<void> {
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
  app.get('/openapi.json', { schema: { hide: true, ...PUBLIC }, config: { public: true } }, async () => app.swagger());
}
