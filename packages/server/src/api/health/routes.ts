import type { FastifyInstance } from 'fastify';

/** `GET /healthz`: no auth, 200 once the process serves requests. */
export function registerHealthRoutes(app: FastifyInstance) {
  app.get('/healthz', { config: { public: true } }, async () => ({ status: 'ok' }));
}
