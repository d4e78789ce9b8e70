import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../../security/api-keys.ts';
import { Unauthenticated } from '../../errors.ts';
import { ErrorBody, ServiceStatus, Type } from '@vidgen/protocol';
import { described, KEY_OPTIONAL, PUBLIC } from '../route-schemas.ts';

const tags = ['Operations'];

export interface OpsDeps {
  /** Throws when the database or blob store cannot serve. */
  ready(): Promise<void>;
  metrics: Registry;
  /** When set, `/metrics` needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
}

/** Health, readiness and metrics: no API key (they serve load balancers and Prometheus). */
export function registerOpsRoutes(app: FastifyInstance, deps: OpsDeps) {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'health',
        summary: 'Liveness: the process answers',
        tags,
        ...PUBLIC,
        response: { 200: described(ServiceStatus, 'Up') },
      },
      config: { public: true },
    },
    async () => ({ status: 'ok' }),
  );

  const readySchema = {
    operationId: 'ready',
    summary: 'Readiness: the database and the blob store answer',
    tags,
    ...PUBLIC,
    response: {
      200: described(ServiceStatus, 'Ready'),
      503: described(ServiceStatus, 'Not ready: send traffic elsewhere'),
    },
  };
  app.get('/readyz', { schema: readySchema, config: { public: true } }, async (request, reply) => {
    try {
      await deps.ready();
      return { status: 'ready' };
    } catch (err) {
      request.log.warn({ err }, 'not ready');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  const metricsSchema = {
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    tags,
    description: 'No API key; when the operator set a metrics token, `Authorization: Bearer <token>`.',
    ...KEY_OPTIONAL,
    response: {
      200: { description: 'Prometheus text exposition format', content: { 'text/plain': { schema: Type.String() } } },
      401: described(ErrorBody, 'The metrics token is required and was not sent'),
    },
  };
  app.get('/metrics', { schema: metricsSchema, config: { public: true } }, async (request, reply) => {
    if (deps.metricsToken && !sameSecret(bearerToken(request.headers.authorization), deps.metricsToken))
      throw new Unauthenticated();
    reply.header('content-type', deps.metrics.contentType);
    return deps.metrics.metrics();
  });
}

function sameSecret(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
