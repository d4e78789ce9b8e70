import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tracingChannel } from 'node:diagnostics_channel';
import { connect } from 'node:net';
import { once } from 'node:events';
import { startTestService, type TestService } from './support/service.ts';

/**
 * A client that goes away in the middle of its request is nobody's fault: the server logs that the
 * client closed the request, at info, never `storage unavailable` (which would send an operator to a
 * disk or a database that are fine), and stays ready. Every wait ends on an event (a log line,
 * Fastify's handler channel, the socket's close), never on a sleep, so a regression fails the test
 * instead of hanging it.
 */
describe('a client that aborts its request', () => {
  let svc: TestService;
  let key: string;
  const lines: Array<Record<string, unknown>> = [];
  /** URLs whose route handler has finished (Fastify publishes it on its `fastify.request.handler` tracing channel). */
  const handled: string[] = [];
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const log = {
    write(line: string) {
      lines.push(JSON.parse(line));
      wake();
    },
  };
  const handlerEnded = (store: unknown) => {
    handled.push((store as { request?: { url?: string } }).request?.url ?? '');
    wake();
  };
  const channel = tracingChannel('fastify.request.handler');
  const subscribers = { asyncEnd: handlerEnded };
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise<void>((w) => waiters.push(w));
  };
  const ENDINGS = ['client closed the request', 'storage unavailable', 'request failed', 'request errored'];
  const endingsOf = (reqId: unknown) => lines.filter((l) => l.reqId === reqId && ENDINGS.includes(l.msg as string));

  before(async () => {
    channel.subscribe(subscribers as never);
    svc = await startTestService({ VIDGEN_LOG_LEVEL: 'debug' }, undefined, log);
    key = await svc.createKey('aborts');
  });
  after(async () => {
    channel.unsubscribe(subscribers as never);
    await svc?.close();
  });

  /**
   * Sends a request's head and `part` of a body announced as a megabyte, waits until `started`
   * says the server is reading it, and closes the connection.
   */
  const abortMidway = async (head: string, part: Buffer, started: (answered: string) => boolean) => {
    const { hostname, port } = new URL(svc.url);
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    let answered = '';
    socket.on('data', (d: Buffer) => {
      answered += d.toString('latin1');
      wake();
    });
    await once(socket, 'connect');
    socket.write(
      `${head}host: ${hostname}:${port}\r\nauthorization: Bearer ${key}\r\ncontent-length: ${1 << 20}\r\n\r\n`,
    );
    socket.write(part);
    await until(() => started(answered));
    const closed = once(socket, 'close');
    socket.destroy();
    await closed;
  };

  const assertCalm = async (reqId: unknown) => {
    const endings = endingsOf(reqId);
    assert.deepEqual(
      endings.map((l) => l.msg),
      ['client closed the request'],
      JSON.stringify(endings),
    );
    assert.ok((endings[0].level as number) <= 30, 'logged at info or below');
    assert.equal(lines.filter((l) => l.msg === 'storage unavailable').length, 0, 'no storage fault was logged');
    const ready = await fetch(`${svc.url}/readyz`);
    assert.equal(ready.status, 200, await ready.text());
    const models = await fetch(`${svc.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(models.status, 200, 'the server still serves');
  };

  it('half a multipart upload: "client closed the request", and the server stays ready', async () => {
    const boundary = 'vidgen-abort';
    const opening =
      `--${boundary}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nvision\r\n` +
      `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="half.png"\r\n` +
      'content-type: image/png\r\n\r\n';
    const parsing = () => lines.find((l) => l.msg === 'starting multipart parsing');
    await abortMidway(
      `POST /v1/files HTTP/1.1\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\n`,
      Buffer.concat([Buffer.from(opening), Buffer.alloc(256 * 1024, 0x41)]),
      () => parsing() !== undefined,
    );
    const reqId = parsing()?.reqId;
    // The route's handler ends (with or without a log line) once the parser has seen the body end early.
    await until(() => handled.includes('/v1/files') || endingsOf(reqId).length > 0);
    await assertCalm(reqId);
  });

  it('half a JSON body: "client closed the request", never "storage unavailable"', async () => {
    const before = lines.length;
    // Node answers 100 Continue as it hands the request to Fastify, whose JSON parser is reading the
    // body by the time the close arrives (the key check on SQLite settles within the same turn), so
    // the parser fails, and the error handler writes one of the ending lines.
    await abortMidway(
      'POST /v1/videos/generations HTTP/1.1\r\ncontent-type: application/json\r\nexpect: 100-continue\r\n',
      Buffer.from(`{"model": "${'x'.repeat(64 * 1024)}`),
      (answered) => answered.includes('100 Continue'),
    );
    let reqId: unknown;
    await until(() => {
      reqId = lines.slice(before).find((l) => ENDINGS.includes(l.msg as string))?.reqId;
      return reqId !== undefined;
    });
    await assertCalm(reqId);
  });
});
