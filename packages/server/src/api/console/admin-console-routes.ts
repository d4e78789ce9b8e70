import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ConsoleAssets } from '@vidgen/console/assets';
import { sendAsset } from './send-asset.ts';
import { mediaOrigins, type MediaOriginDeps } from './media-origins.ts';

/**
 * The operator's console at `/admin` and its files at `/admin/assets/*`. Built on the first request
 * for it, never at start, and never registered in a worker (the app serves only ops routes there):
 * an idle server carries none of it (docs/performance.md). Without VIDGEN_ADMIN_TOKEN the page only
 * says how to turn it on. The admin token lives in the page, so the policy lets it talk to this
 * origin alone, run only its own script, and be framed by nobody; nothing of it is ever cached.
 * The task page's player and its posters may also load from where signed links point and from the
 * object store content links redirect to (VIDGEN_PUBLIC_URL, VIDGEN_S3_PUBLIC_ENDPOINT), nowhere else.
 */
export function registerAdminConsoleRoutes(app: FastifyInstance, deps: { enabled: boolean } & MediaOriginDeps): void {
  let pending: Promise<{ assets: ConsoleAssets; headers: Record<string, string> }> | undefined;
  const served = () => {
    pending ??= Promise.all([
      import('@vidgen/console/assets').then((m) => m.loadAdminAssets()),
      mediaOrigins(deps, app.log),
    ])
      .then(([assets, origins]) => ({ assets, headers: adminPageHeaders(origins) }))
      .catch((err) => {
        pending = undefined;
        throw err;
      });
    return pending;
  };
  const schema = { hide: true };
  app.get('/admin', { schema, config: { public: true } }, async (request, reply) => {
    if (!deps.enabled) return disabledPage(reply);
    const { assets, headers } = await served();
    return sendAsset(request, reply, assets.index, headers);
  });
  app.get<{ Params: { name: string } }>(
    '/admin/assets/:name',
    { schema, config: { public: true } },
    async (request, reply) => {
      if (!deps.enabled) return reply.callNotFound();
      const { assets, headers } = await served();
      const asset = assets.files.get(request.params.name);
      if (!asset) return reply.callNotFound();
      return sendAsset(request, reply, asset, headers);
    },
  );
}

function adminPageHeaders(mediaOrigins: string[]): Record<string, string> {
  return {
    ...ADMIN_PAGE_HEADERS,
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      `img-src ${["'self'", 'data:', 'blob:', ...mediaOrigins].join(' ')}`,
      `media-src ${["'self'", 'blob:', ...mediaOrigins].join(' ')}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
  };
}

const ADMIN_PAGE_HEADERS: Record<string, string> = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const DISABLED_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>vidgen operator console</title></head>
<body><main><h1>The operator console is off</h1>
<p>Set <code>VIDGEN_ADMIN_TOKEN</code> to a long random secret in the server's environment and restart it.
Then open <code>/admin</code> again and sign in with that token.</p></main></body></html>
`;

function disabledPage(reply: FastifyReply) {
  return reply
    .headers({ ...ADMIN_PAGE_HEADERS, 'content-security-policy': "default-src 'none'; frame-ancestors 'none'" })
    .type('text/html; charset=utf-8')
    .send(DISABLED_PAGE);
}
