import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_DIALECTS } from '../../src/main.ts';
import { documentApp, formatOpenApi, openApiDocument } from '../../src/openapi-document.ts';

type Operation = { operationId?: string; security?: unknown[]; tags?: string[] };
type Document = { openapi: string; servers: Array<{ url: string }>; paths: Record<string, Record<string, Operation>> };

const committedPath = new URL('../../../../docs/openapi.json', import.meta.url);

describe('the OpenAPI document is built from the routes', () => {
  let app: FastifyInstance;
  let served: Document;
  before(async () => {
    app = await documentApp({ dialects: DEFAULT_DIALECTS });
    // No Authorization header: the document is public.
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200, res.body);
    served = res.json();
  });
  after(() => app.close());

  it('docs/openapi.json is what the routes produce (run `npm run openapi` after changing a route or schema)', () => {
    assert.equal(readFileSync(committedPath, 'utf8'), formatOpenApi(served as unknown as Record<string, unknown>));
  });

  it('is OpenAPI 3.1 with a unique operationId on every operation', () => {
    assert.equal(served.openapi, '3.1.0');
    const ids = Object.values(served.paths).flatMap((path) => Object.values(path).map((op) => op.operationId));
    assert.ok(
      ids.every((id) => typeof id === 'string' && id.length > 0),
      'an operation has no operationId',
    );
    assert.equal(new Set(ids).size, ids.length, `duplicate operationIds: ${ids.join(', ')}`);
  });

  it('asks for no key where none is needed, and hides the console and itself', () => {
    assert.deepEqual(served.paths['/healthz'].get.security, []);
    assert.deepEqual(served.paths['/v1/videos/{id}/content'].get.security, [{ bearer: [] }, {}]);
    assert.equal(served.paths['/v1/videos'].get.security, undefined, 'task routes inherit the bearer requirement');
    for (const hidden of ['/', '/assets/{name}', '/openapi.json'])
      assert.equal(served.paths[hidden], undefined, hidden);
  });

  it('lists every admin route under the Admin tag with the admin token, and the webhook routes', () => {
    const admin = Object.entries(served.paths).filter(([path]) => path.startsWith('/admin/'));
    for (const path of [
      '/admin/v1/webhooks',
      '/admin/v1/webhooks/{id}',
      '/admin/v1/channels',
      '/admin/v1/channels/{backend}/{name}',
    ]) {
      assert.ok(
        admin.some(([p]) => p === path),
        path,
      );
    }
    for (const [path, ops] of admin)
      for (const op of Object.values(ops)) assert.deepEqual([op.tags, op.security], [['Admin'], [{ admin: [] }]], path);
    assert.ok(served.paths['/v1/webhooks/{id}'].patch, 'PATCH /v1/webhooks/{id}');
  });

  it('names VIDGEN_PUBLIC_URL as the server when it is set, else the relative root', async () => {
    assert.deepEqual(served.servers, [{ url: '/' }]);
    const withUrl = (await openApiDocument({
      dialects: DEFAULT_DIALECTS,
      publicUrl: 'https://videos.example.com',
    })) as unknown as Document;
    assert.deepEqual(withUrl.servers, [{ url: 'https://videos.example.com' }]);
  });
});
