import type { FastifyInstance } from 'fastify';
import type { ConsoleAssets } from '@vidgen/console/assets';
import { sendAsset } from './send-asset.ts';
import { mediaOrigins, type MediaOriginDeps } from './media-origins.ts';

export type ConsoleDeps = MediaOriginDeps;

/**
 * The web console at `/` and its hashed assets at `/assets/*`. Public: the page holds no data,
 * everything it shows comes from the API with the key the user types in. The bundle is built on
 * the first request for it, not at start: building it holds an esbuild process and start-up
 * garbage that an idle server (or one that only serves the API) would carry for nothing
 * (docs/performance.md). A failed build answers that request with a 500 and is retried by the next.
 */
export function registerConsoleRoutes(app: FastifyInstance, deps: ConsoleDeps = {}): void {
  let pending: Promise<Served> | undefined;
  const served = () => {
    pending ??= loadServed(deps, app).catch((err) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
  // The page and its assets are not part of the API: hidden from the OpenAPI document.
  const schema = { hide: true };
  app.get('/', { schema, config: { public: true } }, async (request, reply) => {
    const { assets, headers } = await served();
    return sendAsset(request, reply, assets.index, headers);
  });
  app.get<{ Params: { name: string } }>(
    '/assets/:name',
    { schema, config: { public: true } },
    async (request, reply) => {
      const { assets, headers } = await served();
      const asset = assets.files.get(request.params.name);
      if (!asset) return reply.callNotFound();
      return sendAsset(request, reply, asset, headers);
    },
  );
}

interface Served {
  assets: ConsoleAssets;
  /** The security headers of every console response (the media origins are known only at run time). */
  headers: Record<string, string>;
}

async function loadServed(deps: ConsoleDeps, app: FastifyInstance): Promise<Served> {
  // Imported here: the bundler (esbuild's JavaScript API) is not even loaded until the console is asked for.
  const { loadConsoleAssets } = await import('@vidgen/console/assets');
  const [assets, origins] = await Promise.all([loadConsoleAssets(), mediaOrigins(deps, app.log)]);
  return { assets, headers: securityHeaders(origins) };
}

/**
 * The API key lives in this page, so the policy makes sure nothing it runs can send it
 * anywhere but this origin: scripts only from here (none inline), fetches only to here,
 * images and media only from here or in-page blobs, no framing, no form posts elsewhere.
 */
function securityHeaders(mediaOrigins: string[]): Record<string, string> {
  const media = ["'self'", 'blob:', ...mediaOrigins].join(' ');
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "img-src 'self' data: blob:",
    `media-src ${media}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  };
}
