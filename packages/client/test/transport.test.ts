import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import {
  VidgenClient,
  APIError,
  BadRequestError,
  AuthenticationError,
  PermissionDeniedError,
  NotFoundError,
  ConflictError,
  GoneError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  APIConnectionError,
  APIConnectionTimeoutError,
  APIUserAbortError,
} from '../src/index.ts';
import { json, startScriptedServer } from './support/scripted-server.ts';

const fast = { initialDelayMs: 5, maxDelayMs: 20 };

describe('transport: error mapping and retries', async () => {
  const server = await startScriptedServer(json(200, {}));
  after(() => server.close());
  const client = (opts: Record<string, unknown> = {}) =>
    new VidgenClient({ baseURL: server.url, apiKey: 'sk-test', backoff: fast, ...opts });
  const errorBody = (code: string, param: string | null = null) => ({
    error: { message: `problem ${code}`, type: 'invalid_request_error', code, param },
  });

  const cases: Array<[number, new (...a: any[]) => APIError]> = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [410, GoneError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [503, InternalServerError],
  ];
  for (const [status, Class] of cases) {
    it(`maps ${status} to ${Class.name} with code, param and request id`, async () => {
      server.script(json(status, errorBody(`c${status}`, 'prompt')));
      const err = await client({ maxRetries: 0 })
        .models.list()
        .catch((e) => e);
      assert.ok(err instanceof Class, `${err}`);
      assert.ok(err instanceof APIError);
      assert.equal(err.status, status);
      assert.equal(err.code, `c${status}`);
      assert.equal(err.param, 'prompt');
      assert.equal(err.requestId, 'req_test123');
      assert.match(err.message, new RegExp(`^${status} problem c${status}`));
    });
  }

  it('retries 429, 409 and 5xx, then succeeds', async () => {
    server.seen.length = 0;
    server.script(
      json(503, errorBody('busy')),
      json(429, errorBody('slow')),
      json(409, errorBody('in_flight')),
      json(200, { object: 'list', data: [] }),
    );
    const models = await client({ maxRetries: 3 }).models.list();
    assert.deepEqual(models.data, []);
    assert.equal(server.seen.length, 4);
    assert.equal(server.seen[0].headers.authorization, 'Bearer sk-test');
  });

  it('does not retry a 400 and gives up after maxRetries', async () => {
    server.seen.length = 0;
    server.script(json(400, errorBody('bad')));
    await assert.rejects(client({ maxRetries: 3 }).models.list(), BadRequestError);
    assert.equal(server.seen.length, 1);
    server.seen.length = 0;
    server.script(json(500, errorBody('boom')));
    await assert.rejects(client({ maxRetries: 2 }).models.list(), InternalServerError);
    assert.equal(server.seen.length, 3);
  });

  it('waits out a Retry-After instead of the curve, and refuses one that is too long', async () => {
    server.seen.length = 0;
    server.script(json(429, errorBody('slow'), { 'retry-after': '0.3' }), json(200, { object: 'list', data: [] }));
    const started = Date.now();
    await client({ maxRetries: 1 }).models.list();
    assert.ok(Date.now() - started >= 280, `waited ${Date.now() - started} ms`);
    server.script(json(429, errorBody('slow'), { 'retry-after': '3600' }));
    server.seen.length = 0;
    await assert.rejects(client({ maxRetries: 5 }).models.list(), RateLimitError);
    assert.equal(server.seen.length, 1);
  });

  it('reports a refused connection as APIConnectionError(ECONNREFUSED)', async () => {
    const port = await freePort();
    const err = await new VidgenClient({ baseURL: `http://127.0.0.1:${port}`, maxRetries: 1, backoff: fast }).models
      .list()
      .catch((e) => e);
    assert.ok(err instanceof APIConnectionError);
    assert.equal(err.code, 'ECONNREFUSED');
  });

  it('times out a stalled request, and honours the caller’s AbortSignal', async () => {
    server.script(() => undefined);
    await assert.rejects(client({ maxRetries: 0, timeout: 100 }).models.list(), APIConnectionTimeoutError);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(client({ maxRetries: 3 }).models.list({ signal: controller.signal }), APIUserAbortError);
  });

  it('drops a trailing /v1 from the base URL and uses an injected fetch', async () => {
    const urls: string[] = [];
    const c = new VidgenClient({
      baseURL: `${server.url}/v1/`,
      fetch: (input, init) => (urls.push(String(input)), fetch(input, init)),
    });
    server.script(json(200, { object: 'list', data: [] }));
    await c.models.list();
    assert.deepEqual(urls, [`${server.url}/v1/models`]);
  });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}
