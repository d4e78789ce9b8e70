import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { timingSafeEqual } from 'node:crypto';
import { bearerToken } from '../../security/api-keys.ts';
import { Unauthenticated } from '../../errors.ts';

export interface OpsDeps {
  /** Throws when the database or blob store cannot serve. */
  ready(): Promise<void>;
  metrics: Registry;
  /** When set, `/metrics` needs `Authorization: Bearer <token>`. */
  metricsToken?: string;
}

/** Health, readiness and metrics: no API key (they serve load balancers and Prometheus). */
export function registerOpsRoutes(app: FastifyInstance, deps: OpsDeps) {
  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: { public: true } }, async (request, reply) => {
    try {
      await deps.ready();
      return { status: 'ready' };
    } catch (err) {
      request.log.warn({ err }, 'not ready');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });

  app.get('/metrics', { config: { public: true } }, async (request, reply) => {
    if (deps.metricsToken && !sameSecret(bearerToken(request.headers.authorization), deps.metricsToken)) throw new Unauthenticated();
    reply.header('content-type', deps.metrics.contentType);
    return deps.metrics.metrics();
  });
}

function sameSecret(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
