import { describe, it, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VidgenClient, SubmitOutcomeUnknown, BadRequestError, requestFingerprint } from '../src/index.ts';
import { FileJournal } from '../src/node/index.ts';
import { json, startScriptedServer, type Handler } from './support/scripted-server.ts';
import type { FetchLike } from '../src/core/transport.ts';

// Obligation 2 against servers that lack idempotency or listing, or answer in ways the SDK must
// survive: never a second POST unless a lookup proved the first one did not land.
describe('submit recovery', async () => {
  const server = await startScriptedServer(json(200, {}));
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-submit-'));
  });
  after(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });
  const body = { model: 'video-v1-5s', prompt: 'sunset' };
  const created = json(200, { task_id: 't-1', status: 'queued', seconds: '5' });
  // The client's time-out may end only a request the server has received and is stalling: a request
  // that is answered keeps its answer however late it comes, so a busy machine cannot turn an answer
  // into a time-out. Each request carries a number; `stall` records the numbers it holds.
  const stalled = new Map<string, () => void>();
  const stallSeen = new Map<string, Promise<void>>();
  const held = (n: string) => {
    if (!stallSeen.has(n)) stallSeen.set(n, new Promise<void>((resolve) => stalled.set(n, resolve)));
    return stallSeen.get(n)!;
  };
  const stall: Handler = (req) => {
    const n = String(req.headers['x-test-request']);
    held(n);
    stalled.get(n)!();
  };
  let sent = 0;
  const stallAwareFetch: FetchLike = (input, init = {}) => {
    const n = String(++sent);
    const answer = fetch(input, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), 'x-test-request': n },
      signal: undefined,
    });
    const signal = init.signal;
    if (!signal) return answer;
    // Abort only once both hold: the client's timer fired and the server is holding this request.
    const aborted = new Promise<never>((_, reject) => {
      const onAbort = () => void held(n).then(() => reject(signal.reason));
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    return Promise.race([answer, aborted]);
  };
  const posts = () => server.seen.filter((r) => r.method === 'POST');
  const client = (journalDir?: string) =>
    new VidgenClient({
      baseURL: server.url,
      apiKey: 'k',
      // Short, so the time-out cases are quick; only a stalled request can time out (stallAwareFetch).
      timeout: 100,
      fetch: stallAwareFetch,
      maxRetries: 2,
      backoff: { initialDelayMs: 5, maxDelayMs: 10 },
      journal: journalDir ? new FileJournal(journalDir) : undefined,
    });
  const reset = (...handlers: Handler[]) => {
    server.seen.length = 0;
    server.script(...handlers);
  };

  it('journals the submit before sending it', async () => {
    const journal = new FileJournal(join(dir, 'before'));
    let seenAtPost: unknown;
    reset(async (req, res) => {
      seenAtPost = (await journal.list())[0];
      return created(req, res, '');
    });
    await client(journal.dir).videoGenerations.create(body);
    const atPost = seenAtPost as { state: string; idempotencyKey: string; fingerprint: string };
    assert.equal(atPost.state, 'submitting');
    assert.equal(atPost.idempotencyKey, posts()[0].headers['idempotency-key']);
    assert.equal(atPost.fingerprint, await requestFingerprint(body));
    const [entry] = await journal.list();
    assert.equal(entry.state, 'submitted');
    assert.equal(entry.taskId, 't-1');
  });

  it('after a time-out with no listing on the server, throws SubmitOutcomeUnknown and never resubmits', async () => {
    reset(
      stall,
      json(404, { error: { message: 'No route', type: 'not_found_error', code: 'route_not_found', param: null } }),
    );
    const journalDir = join(dir, 'unknown');
    const before = Date.now();
    const err = await client(journalDir)
      .videoGenerations.create(body)
      .catch((e) => e);
    assert.ok(err instanceof SubmitOutcomeUnknown, String(err));
    assert.equal(posts().length, 1);
    assert.equal(err.idempotencyKey, posts()[0].headers['idempotency-key']);
    assert.equal(err.family, 'B');
    assert.equal(err.fingerprint, await requestFingerprint(body));
    assert.ok(err.submittedAt >= before && err.submittedAt <= Date.now());
    const listing = server.seen.find((r) => r.method === 'GET')!;
    assert.match(
      listing.url,
      new RegExp(
        `^/v1/video/generations\\?idempotency_key=${err.idempotencyKey}&model=video-v1-5s&created_after=\\d+&limit=10$`,
      ),
    );
    const [entry] = await new FileJournal(journalDir).list();
    assert.equal(entry.state, 'unknown');
  });

  it('treats a 5xx answer as ambiguous too', async () => {
    reset(
      json(500, { error: { message: 'boom', type: 'server_error', code: 'internal_error', param: null } }),
      json(404, {}),
    );
    await assert.rejects(client().videos.generate({ model: 'm', prompt: 'p', duration: 1 }), SubmitOutcomeUnknown);
    assert.equal(posts().length, 1);
  });

  it('retries a refusal (429) with the same key and no lookup', async () => {
    reset(
      json(429, { error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limited', param: null } }),
      created,
    );
    await client().videoGenerations.create(body);
    assert.equal(server.seen.length, 2);
    assert.equal(posts()[0].headers['idempotency-key'], posts()[1].headers['idempotency-key']);
  });

  it('retries a 409 idempotency_in_flight after its Retry-After, with the same key', async () => {
    reset(
      json(
        409,
        { error: { message: 'in flight', type: 'conflict_error', code: 'idempotency_in_flight', param: null } },
        { 'retry-after': '0.1' },
      ),
      created,
    );
    const c = client();
    await c.videoGenerations.create(body);
    assert.equal(posts().length, 2);
    assert.equal(posts()[0].headers['idempotency-key'], posts()[1].headers['idempotency-key']);
    assert.equal(c.server.idempotency, true);
  });

  it('recovers the task from the listing after a time-out', async () => {
    const listed = json(200, {
      object: 'list',
      data: [{ task_id: 't-9', status: 'queued', progress: 0, seconds: '5', model: 'video-v1-5s', created_at: 1 }],
      has_more: false,
      last_id: 't-9',
    });
    const empty = json(200, { object: 'list', data: [], has_more: false, last_id: null });
    reset(stall, listed, empty);
    const c = client();
    const out = await c.submit<{ task_id: string }>({
      family: 'B',
      kind: 'generate',
      path: '/v1/video/generations',
      body,
    });
    assert.equal(out.recovered, true);
    assert.equal(out.data.task_id, 't-9');
    assert.equal(posts().length, 1);
    const gets = server.seen.filter((r) => r.method === 'GET');
    assert.equal(gets.length, 2, 'the lookup and a canary with an unused key');
    assert.notEqual(
      new URL(gets[0].url, server.url).searchParams.get('idempotency_key'),
      new URL(gets[1].url, server.url).searchParams.get('idempotency_key'),
    );
  });

  it('sends again with the same key once a lookup proved the first send never landed', async () => {
    const empty = json(200, { object: 'list', data: [], has_more: false, last_id: null });
    reset(stall, empty, empty, created);
    const out = await client().videoGenerations.create(body);
    assert.equal(out.task_id, 't-1');
    assert.equal(posts().length, 2);
    assert.equal(posts()[0].headers['idempotency-key'], posts()[1].headers['idempotency-key']);
  });

  it('does not trust a listing that ignores idempotency_key', async () => {
    const anything = json(200, {
      object: 'list',
      data: [{ task_id: 'other', status: 'SUCCESS', progress: 100, seconds: '5', model: 'video-v1-5s', created_at: 1 }],
      has_more: false,
      last_id: 'other',
    });
    reset(stall, anything);
    await assert.rejects(client().videoGenerations.create(body), SubmitOutcomeUnknown);
    assert.equal(posts().length, 1);
  });

  it('journals a refused submit as rejected', async () => {
    reset(
      json(400, {
        error: {
          message: '`ratio` must be one of 16:9',
          type: 'invalid_request_error',
          code: 'invalid_aspect_ratio',
          param: 'ratio',
        },
      }),
    );
    const journalDir = join(dir, 'rejected');
    const err = await client(journalDir)
      .videoGenerations.create({ ...body, ratio: '2:1' })
      .catch((e) => e);
    assert.ok(err instanceof BadRequestError);
    assert.equal(err.param, 'ratio');
    assert.equal(posts().length, 1);
    const [entry] = await new FileJournal(journalDir).list();
    assert.equal(entry.state, 'rejected');
    assert.equal(entry.error?.code, 'invalid_aspect_ratio');
  });
});
