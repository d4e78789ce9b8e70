import { before, after, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { VidgenClient, type ServerSentEvent } from '../../packages/client/src/index.ts';
import { forEachDatabase } from '../../packages/server/test/support/databases.ts';
import { startTestService, type TestService } from './support/service.ts';
import { api } from './support/http.ts';
import { startSteeredUpstream, STEERED_MODELS, until, type SteeredUpstream } from './support/steered-upstream.ts';

type Task = Record<string, any>;
type Streamed = { id: string; task: Task };

/** What each dialect needs for these tests: a submit, its poll and stream paths, and its final states. */
interface DialectCase {
  name: string;
  submit(client: VidgenClient, prompt: string): Promise<string>;
  pollPath(id: string): string;
  final(task: Task): boolean;
  /** The task's stream through the SDK. */
  stream(client: VidgenClient, id: string, lastEventId?: string): AsyncIterator<Streamed>;
}

const jsonEvents = (events: AsyncIterable<ServerSentEvent>): AsyncIterator<Streamed> =>
  (async function* () {
    for await (const e of events) yield { id: e.id ?? '', task: JSON.parse(e.data) };
  })();

const DIALECTS: DialectCase[] = [
  {
    name: 'family A',
    submit: async (client, prompt) =>
      (await client.videos.generate({ model: STEERED_MODELS.A, prompt, duration: 1, aspect_ratio: '16:9' })).request_id,
    pollPath: (id) => `/v1/videos/${id}`,
    final: (t) => ['done', 'failed', 'expired'].includes(t.status),
    stream: (client, id, lastEventId) => client.videos.stream(id, { lastEventId }),
  },
  {
    name: 'family B',
    submit: async (client, prompt) =>
      (await client.videoGenerations.create({ model: STEERED_MODELS.B, prompt })).task_id,
    pollPath: (id) => `/v1/video/generations/${id}`,
    final: (t) => ['SUCCESS', 'FAILURE'].includes(t.status),
    stream: (client, id, lastEventId) => client.videoGenerations.stream(id, { lastEventId }),
  },
  {
    name: 'OpenAI Videos',
    submit: async (client, prompt) =>
      (
        await client.transport.request<{ id: string }>({
          method: 'POST',
          path: '/v1/videos',
          body: { model: STEERED_MODELS.O, prompt, seconds: '1', size: '320x180' },
        })
      ).data.id,
    pollPath: (id) => `/v1/videos/${id}`,
    final: (t) => ['completed', 'failed'].includes(t.status),
    stream: (client, id, lastEventId) =>
      jsonEvents(
        client.streamEvents(`/v1/videos/${id}/events`, {
          lastEventId,
          isLast: (e) => ['completed', 'failed'].includes(JSON.parse(e.data).status),
        }),
      ),
  },
];

/** A signed link's query changes with the second it was signed in: links are compared without it. */
const unsigned = (task: Task): Task => JSON.parse(JSON.stringify(task).replace(/(https?:\/\/[^"?]+)\?[^"]*/g, '$1'));

forEachDatabase('task streams', (database) => {
  let upstream: SteeredUpstream;
  let svc: TestService;
  let key: string;
  let client: VidgenClient;
  let prompts = 0;
  const nextPrompt = () => `a steered render ${++prompts}`;

  before(async () => {
    upstream = await startSteeredUpstream();
    svc = await startTestService({
      ...upstream.env,
      VIDGEN_DATABASE_URL: database.location,
      VIDGEN_MAX_STREAMS_PER_ACCOUNT: '3',
      VIDGEN_STREAM_HEARTBEAT_SECONDS: '0.2',
    });
    key = await svc.createKey('streams');
    client = new VidgenClient({ baseURL: svc.url, apiKey: key });
  });
  after(async () => {
    await svc?.close();
    await upstream?.close();
  });

  /** Submits a task and follows its stream until the relay has started the upstream job. */
  const started = async (dialect: DialectCase) => {
    const prompt = nextPrompt();
    const id = await dialect.submit(client, prompt);
    const events: Streamed[] = [];
    const iterator = dialect.stream(client, id);
    const take = async () => {
      const next = await iterator.next();
      assert.ok(!next.done, `the stream of ${id} ended early after ${JSON.stringify(events.at(-1))}`);
      events.push(next.value);
      return next.value;
    };
    const job = await upstream.jobFor(prompt);
    // Queued, running, then the relay's first progress (it has sent the job): the steps begin from there.
    while ((await take()).task.progress === 0) {
      /* the task starts */
    }
    return { id, job, iterator, events, take };
  };

  for (const dialect of DIALECTS) {
    it(`${dialect.name}: a watcher sees every progress step and the final state, each event the poll's body`, async () => {
      const { id, job, iterator, events, take } = await started(dialect);
      const poll = async () => (await api(svc.url, key).get(dialect.pollPath(id))).body as Task;
      for (const percent of [20, 40, 60, 80]) {
        job.steer.progress = percent;
        // Nothing else changes the task meanwhile: the next event is this step, and the poll says the same.
        const step = await take();
        assert.ok(step.task.progress > events.at(-2)!.task.progress, `step ${percent}: ${JSON.stringify(step.task)}`);
        assert.deepEqual(step.task, await poll(), `step ${percent} is the poll's body`);
      }
      job.steer.done = true;
      let last = events.at(-1)!;
      while (!dialect.final(last.task)) last = await take();
      assert.equal((await iterator.next()).done, true, 'the stream ends after the final state');
      assert.ok(['done', 'SUCCESS', 'completed'].includes(last.task.status), JSON.stringify(last.task));
      assert.equal(last.task.progress, 100);
      assert.deepEqual(unsigned(last.task), unsigned(await poll()), "the final event is the poll's body");
      const ids = events.map((e) => Number(e.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'ids rise',
      );
      assert.equal(new Set(ids).size, ids.length, 'no id twice');
      const progress = events.map((e) => e.task.progress);
      assert.deepEqual(
        progress,
        [...progress].sort((a, b) => a - b),
        `progress only rises: ${progress}`,
      );
    });
  }

  it('continues after Last-Event-ID with what is newer, sends nothing twice, and answers 204 after the final state', async () => {
    const dialect = DIALECTS[1];
    const { id, job, iterator, events } = await started(dialect);
    await iterator.return?.();
    const seen = events.at(-1)!;
    // A step while nobody watches: a client coming back with the last id gets it first, and not what it had.
    job.steer.progress = 30;
    await until(async () => (await api(svc.url, key).get(dialect.pollPath(id))).body.progress > seen.task.progress);
    const resumed = dialect.stream(client, id, seen.id);
    const first = (await resumed.next()).value as Streamed;
    assert.equal(Number(first.id), Number(seen.id) + 1, 'the one change since, and nothing before it');
    assert.ok(first.task.progress > seen.task.progress);
    // Caught up: the next event waits for the next change.
    job.steer.progress = 50;
    const second = (await resumed.next()).value as Streamed;
    assert.equal(Number(second.id), Number(first.id) + 1);
    job.steer.done = true;
    let last = second;
    for (let next = await resumed.next(); !next.done; next = await resumed.next()) last = next.value;
    assert.equal(last.task.status, 'SUCCESS');
    const after = await fetch(`${svc.url}${dialect.pollPath(id)}/events`, {
      headers: { authorization: `Bearer ${key}`, 'last-event-id': last.id },
    });
    assert.equal(after.status, 204, 'nothing more will come');
    const again: Streamed[] = [];
    for await (const e of client.videoGenerations.stream(id, { lastEventId: last.id })) again.push(e);
    assert.deepEqual(again, []);
    const fresh = await fetch(`${svc.url}${dialect.pollPath(id)}/events`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(fresh.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(fresh.headers.get('cache-control'), 'no-cache, no-transform');
    assert.equal(fresh.headers.get('x-accel-buffering'), 'no');
    const text = await fresh.text();
    assert.match(text, /^retry: \d+\n\n/);
    assert.equal(text.match(/^data: /gm)?.length, 1, `a finished task's stream is its final state: ${text}`);
  });

  it("refuses another account's task (404), a key (401) and a bad Last-Event-ID (400) before any stream, in each dialect's envelope", async () => {
    const ids = await Promise.all(DIALECTS.map((d) => d.submit(client, nextPrompt())));
    const stranger = await svc.createKey('stranger');
    for (const [i, dialect] of DIALECTS.entries()) {
      const path = `${dialect.pollPath(ids[i])}/events`;
      const theirs = await api(svc.url, stranger).get(path);
      assert.equal(theirs.status, 404, `${dialect.name}: ${JSON.stringify(theirs.body)}`);
      assert.equal(theirs.body.error.code, 'task_not_found');
      assert.ok(theirs.headers.get('x-request-id'));
      assert.deepEqual(theirs.body, (await api(svc.url, stranger).get(dialect.pollPath(ids[i]))).body, 'as the poll');
      assert.equal((await api(svc.url).get(path)).status, 401);
      const bad = await api(svc.url, key).get(path, { 'last-event-id': 'one' });
      assert.equal(bad.status, 400);
      assert.deepEqual([bad.body.error.code, bad.body.error.param], ['invalid_last_event_id', 'Last-Event-ID']);
    }
    for (const [i, dialect] of DIALECTS.entries()) await api(svc.url, key).post(`${dialect.pollPath(ids[i])}/cancel`);
  });

  it('holds an account to its bound of open streams (429 with Retry-After), and frees a place when one closes', async () => {
    const ids = await Promise.all(DIALECTS.map((d) => d.submit(client, nextPrompt())));
    const paths = DIALECTS.map((d, i) => `${d.pollPath(ids[i])}/events`);
    const open = (path: string) => fetch(`${svc.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const held = [await open(paths[0]), await open(paths[1]), await open(paths[2])];
    for (const res of held) assert.equal(res.status, 200);
    for (const [i, dialect] of DIALECTS.entries()) {
      const over = await api(svc.url, key).get(paths[i]);
      assert.equal(over.status, 429, `${dialect.name}: ${JSON.stringify(over.body)}`);
      assert.deepEqual([over.body.error.code, over.body.error.type], ['too_many_streams', 'rate_limit_error']);
      assert.ok(Number(over.headers.get('retry-after')) > 0);
    }
    assert.equal((await api(svc.url, await svc.createKey('another account')).get(paths[0])).status, 404);
    await held.shift()!.body!.cancel();
    await until(async () => {
      const res = await open(paths[0]);
      if (res.status === 200) held.push(res);
      else await res.body?.cancel();
      return res.status === 200;
    });
    for (const res of held) await res.body?.cancel();
    for (const [i, dialect] of DIALECTS.entries()) await api(svc.url, key).post(`${dialect.pollPath(ids[i])}/cancel`);
  });

  it('waits through the stream where the server has one, and long-polls where streams are refused', async () => {
    const urls: string[] = [];
    const watching: typeof fetch = (input, init) => {
      urls.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
      return fetch(input, init);
    };
    const observed = new VidgenClient({ baseURL: svc.url, apiKey: key, fetch: watching });
    const prompt = nextPrompt();
    const { task_id } = await observed.videoGenerations.create({ model: STEERED_MODELS.B, prompt });
    const views: number[] = [];
    const waited = observed.videoGenerations.wait(task_id, {
      onProgress: (view, _task, plan) => {
        if (plan.stream) views.push(view.progress ?? -1);
      },
    });
    const job = await upstream.jobFor(prompt);
    await until(() => views.some((p) => p > 0));
    job.steer.progress = 50;
    await until(() => views.length > 0 && views.at(-1)! > 30);
    job.steer.done = true;
    assert.equal((await waited).status, 'SUCCESS');
    assert.deepEqual(
      urls.filter((u) => u.includes(task_id)),
      [`/v1/video/generations/${task_id}/events`],
      'one request: the stream',
    );

    // An older server (or a proxy) without streams: the same wait long-polls.
    const older = await startOlderServer(svc.url);
    try {
      const fallback = new VidgenClient({ baseURL: older.url, apiKey: key });
      const second = nextPrompt();
      const created = await fallback.videoGenerations.create({ model: STEERED_MODELS.B, prompt: second });
      const done = fallback.videoGenerations.wait(created.task_id);
      (await upstream.jobFor(second)).steer.done = true;
      assert.equal((await done).status, 'SUCCESS');
      assert.equal(fallback.server.streams, false, 'the client learned the server has no streams');
      const asked = older.seen.filter((u) => u.includes(created.task_id));
      assert.equal(asked[0], `/v1/video/generations/${created.task_id}/events`);
      assert.ok(asked.slice(1).length > 0 && asked.slice(1).every((u) => u.includes('?wait=')), asked.join(' '));
    } finally {
      await older.close();
    }
  });
});

/** A server as vidgen was before streams: every request goes to `target`, but a stream's path is an unknown route. */
async function startOlderServer(target: string): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.url ?? '');
    if ((req.url ?? '').split('?')[0].endsWith('/events')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(
        JSON.stringify({
          error: { message: 'No route', type: 'not_found_error', code: 'route_not_found', param: null },
        }),
      );
    }
    const upstream = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

it('ends each stream at its time; the SDK reconnects with Last-Event-ID and misses nothing, until the key is revoked', async () => {
  const upstream = await startSteeredUpstream();
  const svc = await startTestService({
    ...upstream.env,
    VIDGEN_STREAM_HEARTBEAT_SECONDS: '0.05',
    VIDGEN_STREAM_MAX_SECONDS: '0.3',
  });
  try {
    const key = await svc.createKey('short streams');
    const connections: string[] = [];
    const counting: typeof fetch = (input, init) => {
      const url = String(input instanceof Request ? input.url : input);
      if (url.endsWith('/events')) connections.push(url);
      return fetch(input, init);
    };
    const client = new VidgenClient({ baseURL: svc.url, apiKey: key, fetch: counting });
    const prompt = 'a render outliving its streams';
    const { task_id } = await client.videoGenerations.create({ model: STEERED_MODELS.B, prompt });
    const events: Streamed[] = [];
    let ended: unknown;
    const watched = (async () => {
      for await (const e of client.videoGenerations.stream(task_id)) events.push(e);
    })().catch((err) => (ended = err));
    const job = await upstream.jobFor(prompt);
    await until(() => events.some((e) => e.task.progress > 0));
    const before = connections.length;
    await until(() => connections.length >= before + 2);
    job.steer.progress = 50;
    await until(() => events.at(-1)!.task.progress > 40);
    const ids = events.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      [...new Set(ids)].sort((a, b) => a - b),
      `each state once, in order, across ${connections.length} connections`,
    );
    await svc.revokeKeyOf(key);
    await watched;
    assert.equal((ended as { status?: number } | undefined)?.status, 401, String(ended));
  } finally {
    await svc.close();
    await upstream.close();
  }
});
