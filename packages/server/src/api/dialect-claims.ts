import type { FastifyInstance } from 'fastify';
import type { Dialect } from './dialects/dialect.ts';

/**
 * Lets two dialects serve the same method and path (`GET /v1/videos/{id}`): a dialect with
 * `claims` registers its routes under the constraint `dialect: <its family>`, and this strategy
 * derives that value from each request, from its method, URL and headers, before the body is
 * read. A request no dialect claims goes to the route without the constraint, as before.
 */
export function installDialectClaims(app: FastifyInstance, dialects: readonly Dialect[]): void {
  const claiming = dialects.filter((d) => d.claims);
  if (claiming.length === 0) return;
  app.addConstraintStrategy({
    name: 'dialect',
    storage() {
      const handlers = new Map<string, unknown>();
      return {
        get: (family: string) => (handlers.get(family) ?? null) as never,
        set: (family: string, store: unknown) => void handlers.set(family, store),
      };
    },
    deriveConstraint: (request) => claiming.find((d) => d.claims?.(request))?.family,
    mustMatchWhenDerived: false,
    validate(value) {
      if (typeof value !== 'string') throw new Error('the dialect constraint is a family letter');
    },
  });
}
