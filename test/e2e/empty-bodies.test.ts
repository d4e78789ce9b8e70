import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { ADMIN_TOKEN, startEconomicsService, type EconomicsService } from './support/economics.ts';
import { api } from './support/http.ts';

const DOCUMENT = new URL('../../docs/openapi.json', import.meta.url);

/** What many HTTP clients send on a POST without a body: the JSON content type, and nothing after it. */
async function emptyJson(url: string, method: string, token: string) {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '',
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('an empty body with Content-Type: application/json', () => {
  let svc: EconomicsService;
  let key: string;
  before(async () => {
    svc = await startEconomicsService();
    key = await svc.account('empty-bodies');
  });
  after(() => svc?.close());

  it('is accepted by admin key creation and by both families’ cancels', async () => {
    const created = await emptyJson(`${svc.url}/admin/v1/accounts/empty-bodies/keys`, 'POST', ADMIN_TOKEN);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.match(created.body.key, /^vg-/);
    const client = api(svc.url, key);
    const b = await client.post('/v1/video/generations', { model: 'tiny-long', prompt: 'cancel me' });
    const canceledB = await emptyJson(`${svc.url}/v1/video/generations/${b.body.task_id}/cancel`, 'POST', key);
    assert.equal(canceledB.status, 200, JSON.stringify(canceledB.body));
    assert.equal(canceledB.body.status, 'FAILURE');
  });

  it('is never refused as bad JSON by a route that takes no body, and still is by one that takes one', async () => {
    const document = JSON.parse(await readFile(DOCUMENT, 'utf8'));
    let checked = 0;
    for (const [path, operations] of Object.entries<Record<string, any>>(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (!['post', 'put', 'patch', 'delete'].includes(method)) continue;
        const url = svc.url + path.replace(/\{[^}]+\}/g, 'nope');
        const answer = await emptyJson(url, method.toUpperCase(), path.startsWith('/admin/') ? ADMIN_TOKEN : key);
        const where = `${method.toUpperCase()} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`;
        assert.ok(answer.status < 500, where);
        if (operation.requestBody) {
          assert.ok(answer.status >= 400, where);
        } else {
          // Unknown ids answer 404; what matters is that the empty body itself is not the problem.
          assert.notEqual(answer.body?.error?.code, 'invalid_json', where);
          assert.notEqual(answer.status, 400, where);
          checked++;
        }
      }
    }
    assert.ok(checked >= 9, `${checked} routes without a body`);
    const refused = await emptyJson(`${svc.url}/admin/v1/accounts`, 'POST', ADMIN_TOKEN);
    assert.deepEqual([refused.status, refused.body.error.code], [400, 'invalid_json']);
  });
});
