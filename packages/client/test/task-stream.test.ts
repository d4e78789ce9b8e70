import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import {
  EventStreamParser,
  NotFoundError,
  RateLimitError,
  StreamNotOfferedError,
  VidgenClient,
  type PollPlan,
  type ServerSentEvent,
} from '../src/index.ts';
import { json, startScriptedServer, type Handler } from './support/scripted-server.ts';

describe('EventStreamParser', () => {
  const parse = (...chunks: string[]) => {
    const retries: number[] = [];
    const parser = new EventStreamParser({ onRetry: (ms) => retries.push(ms) });
    const events = chunks.flatMap((chunk) => parser.push(chunk));
    return { events, retries };
  };

  it('reads events as the HTML standard does: ids carried over, comments and empty events skipped', () => {
    const { events, retries } = parse(
      'retry: 1500\n\n: ping\n\nid: 1\ndata: {"a":1}\n\n',
      'data: no id of its own\n\nevent: custom\ndata: one\ndata: two\n\nid\n\nid: 7\n\n',
      'data:  leading space kept after the first\n\n',
    );
    assert.deepEqual(retries, [1500]);
    assert.deepEqual(events, [
      { id: '1', event: 'message', data: '{"a":1}' },
      { id: '1', event: 'message', data: 'no id of its own' },
      { id: '1', event: 'custom', data: 'one\ntwo' },
      { id: '7', event: 'message', data: ' leading space kept after the first' },
    ] satisfies ServerSentEvent[]);
  });

  it('takes CRLF, LF and CR line ends, also when a chunk ends between CR and LF', () => {
    const whole = 'id: 3\r\ndata: x\r\n\r\nid: 4\rdata: y\r\rid: 5\ndata: z\n\n';
    const expected = ['3 x', '4 y', '5 z'];
    const read = (events: ServerSentEvent[]) => events.map((e) => `${e.id} ${e.data}`);
    assert.deepEqual(read(parse(whole).events), expected);
    // Every split point, and one character at a time.
    for (let cut = 1; cut < whole.length; cut++)
      assert.deepEqual(read(parse(whole.slice(0, cut), whole.slice(cut)).events), expected, `cut at ${cut}`);
    assert.deepEqual(read(parse(...whole.split('')).events), expected);
  });

  it('dispatches nothing until the empty line, and ignores an id holding NUL', () => {
    const comments: string[] = [];
    const parser = new EventStreamParser({ lastEventId: '2', onComment: (text) => comments.push(text) });
    assert.deepEqual(parser.push(': ping\n\n'), []);
    assert.deepEqual(comments, [' ping']);
    assert.deepEqual(parser.push('data: half'), []);
    assert.deepEqual(parser.push(' and the rest\nid: bad\u0000id\n'), []);
    assert.deepEqual(parser.push('\n'), [{ id: '2', event: 'message', data: 'half and the rest' }]);
  });
});

const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'r' });
const event = (id: number, body: object) => `id: ${id}\ndata: ${JSON.stringify(body)}\n\n`;
const b = (status: string, progress: number) => ({
  task_id: 't1',
  status,
  progress,
  seconds: '5',
  model: 'm',
  ...(status === 'SUCCESS' ? { result_url: '/v1/videos/t1/content' } : {}),
});
/** A stream that sends these frames and ends (or, with `hold`, stays open after them). */
const frames =
  (text: string, hold = false): Handler =>
  (_req, res) => {
    sse(res);
    res.write(`retry: 5\n\n${text}`);
    if (!hold) res.end();
  };

describe('task streams in the SDK', async () => {
  const server = await startScriptedServer(json(200, {}));
  after(() => server.close());
  const newClient = () =>
    new VidgenClient({ baseURL: server.url, apiKey: 'k', backoff: { initialDelayMs: 5, maxDelayMs: 10 } });
  const reset = (...h: Handler[]) => {
    server.seen.length = 0;
    server.script(...h);
  };

  it('iterates a task to its final state, connecting again with Last-Event-ID after a cut', async () => {
    reset(
      frames(event(1, b('queued', 0)) + event(2, b('IN_PROGRESS', 10))),
      frames(event(3, b('IN_PROGRESS', 60)) + event(4, b('SUCCESS', 100)), true),
    );
    const seen: string[] = [];
    for await (const { id, task } of newClient().videoGenerations.stream('t1'))
      seen.push(`${id} ${task.status} ${task.progress}`);
    assert.deepEqual(seen, ['1 queued 0', '2 IN_PROGRESS 10', '3 IN_PROGRESS 60', '4 SUCCESS 100']);
    assert.deepEqual(
      server.seen.map((r) => [r.url, r.headers['last-event-id'], r.headers.accept]),
      [
        ['/v1/video/generations/t1/events', undefined, 'text/event-stream'],
        ['/v1/video/generations/t1/events', '2', 'text/event-stream'],
      ],
    );
  });

  it('starts after a given id, and ends at a 204 (nothing more will come)', async () => {
    reset((_req, res) => void res.writeHead(204).end());
    const seen: unknown[] = [];
    for await (const e of newClient().videos.stream('r1', { lastEventId: '9' })) seen.push(e);
    assert.deepEqual(seen, []);
    assert.equal(server.seen[0].url, '/v1/videos/r1/events');
    assert.equal(server.seen[0].headers['last-event-id'], '9');
  });

  it('connects again after a stream that ended with only heartbeats, as often as it takes', async () => {
    const quiet = frames(': ping\n\n');
    reset(frames(event(1, b('queued', 0))), quiet, quiet, quiet, frames(event(2, b('SUCCESS', 100))));
    const ids: string[] = [];
    for await (const { id } of newClient().videoGenerations.stream('t1', { maxReconnects: 1 })) ids.push(id);
    assert.deepEqual(ids, ['1', '2']);
    assert.deepEqual(
      server.seen.map((r) => r.headers['last-event-id']),
      [undefined, '1', '1', '1', '1'],
    );
  });

  it('takes a connection that goes quiet for dead and makes it again', async () => {
    reset(frames(event(1, b('IN_PROGRESS', 5)), true), frames(event(2, b('FAILURE', 100))));
    const ids: string[] = [];
    for await (const { id } of newClient().videoGenerations.stream('t1', { idleTimeoutMs: 50 })) ids.push(id);
    assert.deepEqual(ids, ['1', '2']);
    assert.equal(server.seen[1].headers['last-event-id'], '1');
  });

  it('tells a server without streams from a task that does not exist, and passes on a 429', async () => {
    const refusal = (status: number, code: string) =>
      json(status, { error: { message: 'm', type: 't', code, param: null } }, { 'retry-after': '10' });
    reset(refusal(404, 'route_not_found'));
    await assert.rejects(newClient().videos.stream('r1').next(), StreamNotOfferedError);
    reset(json(200, b('IN_PROGRESS', 5)));
    await assert.rejects(newClient().videos.stream('r1').next(), StreamNotOfferedError, 'JSON is not a stream');
    reset(refusal(404, 'task_not_found'));
    await assert.rejects(newClient().videos.stream('r1').next(), NotFoundError);
    reset(refusal(429, 'too_many_streams'));
    await assert.rejects(newClient().videos.stream('r1').next(), RateLimitError);
    assert.equal(server.seen.length, 1, 'a 429 is not retried by the stream itself');
  });

  it('waits through the stream: one request, every state reported as it came', async () => {
    reset(frames(event(1, b('queued', 0)) + event(2, b('IN_PROGRESS', 50)) + event(3, b('SUCCESS', 100)), true));
    const plans: Array<[string, PollPlan]> = [];
    const task = await newClient().videoGenerations.wait('t1', {
      onProgress: (v, _t, plan) => plans.push([v.status, plan]),
    });
    assert.equal(task.status, 'SUCCESS');
    assert.deepEqual(
      plans.map(([status, plan]) => [status, plan.stream]),
      [
        ['queued', true],
        ['IN_PROGRESS', true],
        ['SUCCESS', true],
      ],
    );
    assert.deepEqual(
      server.seen.map((r) => r.url),
      ['/v1/video/generations/t1/events'],
    );
  });

  it('falls back to polling where the server has no streams, and polls first from then on', async () => {
    const client = newClient();
    reset(
      json(404, { error: { message: 'No route', type: 'not_found_error', code: 'route_not_found', param: null } }),
      json(200, b('SUCCESS', 100)),
    );
    assert.equal((await client.videoGenerations.wait('t1', { longPollSeconds: 0 })).status, 'SUCCESS');
    assert.equal(client.server.streams, false);
    reset(json(200, b('SUCCESS', 100)));
    await client.videoGenerations.wait('t1', { longPollSeconds: 0 });
    assert.deepEqual(
      server.seen.map((r) => r.url),
      ['/v1/video/generations/t1'],
    );
  });

  it('falls back to long-polling when the account holds too many streams, without forgetting streams', async () => {
    const client = newClient();
    reset(
      json(429, { error: { message: 'm', type: 'rate_limit_error', code: 'too_many_streams', param: null } }),
      json(200, b('SUCCESS', 100)),
    );
    assert.equal((await client.videoGenerations.wait('t1')).status, 'SUCCESS');
    assert.deepEqual(
      server.seen.map((r) => r.url),
      ['/v1/video/generations/t1/events', '/v1/video/generations/t1?wait=30'],
    );
    assert.notEqual(client.server.streams, false);
  });
});
