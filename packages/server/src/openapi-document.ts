import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from './app.ts';
import { createLogger } from './logging.ts';
import type { Dialect } from './api/dialects/dialect.ts';

/**
 * The OpenAPI document the routes of these dialects produce, without a database, blob store or
 * listener: `npm run openapi` writes it to docs/openapi.json and a test checks that file.
 *
 * Routes use their services only while serving a request, and this app serves none (it is built,
 * made ready and closed), so every service is an inert stand-in that fails loudly if anything
 * ever does call it. They are placeholders, not fakes: nothing answers on their behalf.
 */
export async function openApiDocument(opts: DocumentOptions): Promise<Record<string, unknown>> {
  const app = await documentApp(opts);
  try {
    await app.ready();
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}

interface DocumentOptions {
  dialects: readonly Dialect[];
  /** VIDGEN_PUBLIC_URL: the document's server; relative (`/`) when unset. */
  publicUrl?: string;
}

/** The app with every route and no service behind them (see {@link openApiDocument}); the caller closes it. */
export function documentApp(opts: DocumentOptions): Promise<FastifyInstance> {
  return buildApp({
    routes: 'all',
    dialects: opts.dialects,
    publicUrl: opts.publicUrl,
    logger: createLogger('silent'),
    ops: inert('ops'),
    accounts: inert('accounts'),
    tasks: inert('tasks'),
    files: inert('files'),
    characters: inert('characters'),
    billing: inert('billing'),
    operatorReads: inert('operatorReads'),
    // Optional in a running app only where a process serves no webhook routes; the document lists them.
    webhooks: inert('webhooks'),
    batches: inert('batches'),
    blobs: inert('blobs'),
    signer: inert('signer'),
    bodyLimitBytes: 1,
    uploadLimitBytes: 1,
    signedUrlTtlSeconds: 1,
    clock: () => 0,
    streams: { watch: inert('watch'), maxPerAccount: 1, heartbeatMs: 1, maxLifetimeMs: 1 },
  } satisfies AppDeps);
}

/** The committed form of the document: stable key order from the routes, two-space indent, final newline. */
export function formatOpenApi(document: Record<string, unknown>): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}

function inert<T>(name: string): T {
  return new Proxy(
    {},
    {
      get(_target, member) {
        // Not a promise: `await` on a stand-in must not mistake it for one.
        if (member === 'then') return undefined;
        return () => {
          throw new Error(
            `${name}.${String(member)} was called while writing the OpenAPI document; no service runs there`,
          );
        };
      },
    },
  ) as T;
}
