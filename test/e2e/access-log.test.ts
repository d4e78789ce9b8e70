import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil } from './support/http.ts';
import { createLogger } from '../../packages/server/src/logging.ts';
import { spawnServer } from './support/process.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

// The access log writes its lines itself (api/access-log.ts): they must stay what pino would
// write, one per request, with nothing secret in them.
describe('access log', () => {
  const lines: string[] = [];
  const capture = { write: (line: string) => void lines.push(...line.split('\n').filter(Boolean)) };
  let svc: TestService;
  let key: string;
  let id: string;
  let signedUrl: string;

  before(async () => {
    svc = await startTestService({}, undefined, capture);
    key = await svc.createKey('logged');
    const client = api(svc.url, key);
    id = (await client.post('/v1/video/generations', { model: 'video-v1-5s', prompt: 'a lantern in the rain' })).body
      .task_id;
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.status === 'SUCCESS',
    );
    signedUrl = (await client.get(`/v1/videos/${id}`)).body.video.url;
  });
  after(() => svc.close());

  const completed = () => lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request completed');

  it('writes one line per request, as pino writes it', async () => {
    const res = await fetch(`${svc.url}/v1/video/generations/${id}?wait=0`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.status, 200);
    const requestId = res.headers.get('x-request-id');
    const mine = completed().filter((l) => l.reqId === requestId);
    assert.equal(mine.length, 1);
    const [line] = mine;
    assert.equal(typeof line.time, 'number');
    assert.equal(typeof line.ms, 'number');

    // The same fields through pino itself, with the service's logger options.
    const reference: string[] = [];
    const logger = createLogger('info', { write: (l: string) => void reference.push(l) });
    logger.child({ reqId: requestId }).info(
      {
        req: { id: requestId, method: 'GET', url: `/v1/video/generations/${id}?wait=0` },
        res: { statusCode: 200 },
        ms: line.ms,
      },
      'request completed',
    );
    const expected = JSON.parse(reference[0]);
    assert.deepEqual({ ...line, time: 0, pid: 0, hostname: '' }, { ...expected, time: 0, pid: 0, hostname: '' });
    assert.deepEqual(Object.keys(line), Object.keys(expected), 'same keys in the same order');
    assert.equal(line.req.path, `/v1/video/generations/${id}`, 'no query string');
  });

  it('logs a held long-poll (?wait=) only at debug, so an open console does not drown the log', async () => {
    const held = await fetch(`${svc.url}/v1/video/generations/${id}?wait=5`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(held.status, 200);
    assert.ok(held.headers.get('x-vidgen-long-poll'), 'the poll was a long-poll');
    const plain = await fetch(`${svc.url}/v1/video/generations/${id}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(plain.status, 200);
    // The line is written once the answer is sent: wait for the later request's line.
    while (!completed().some((l) => l.reqId === plain.headers.get('x-request-id')))
      await new Promise((r) => setImmediate(r));
    const ids = completed().map((l) => l.reqId);
    assert.ok(!ids.includes(held.headers.get('x-request-id')), 'a long-poll is not logged at info');
  });

  it('keeps the signed link secret and the API key out of the log', async () => {
    const res = await fetch(signedUrl);
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const link = new URL(signedUrl);
    const line = completed().find((l) => l.reqId === res.headers.get('x-request-id'));
    assert.ok(line, 'the download is logged');
    assert.equal(line.req.path, link.pathname);
    const text = lines.join('\n');
    for (const secret of [link.searchParams.get('sig'), key])
      assert.ok(secret && !text.includes(secret), 'no secret in any line');
  });

  it('escapes what a path may hold', async () => {
    const res = await fetch(`${svc.url}/v1/video/generations/%22%5C%0A%C3%A9`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.status, 404);
    const line = lines.map((l) => JSON.parse(l)).find((l) => l.reqId === res.headers.get('x-request-id'));
    assert.ok(line, 'the line parses as JSON');
    assert.equal(line.req.path, '/v1/video/generations/%22%5C%0A%C3%A9');
  });
});

describe('access log of a server process', () => {
  it('writes the lines it holds before the process exits', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'vidgen-access-log-'));
    try {
      const server = await spawnServer({ VIDGEN_DATA_DIR: dataDir });
      const res = await fetch(`${server.url}/healthz`);
      const requestId = res.headers.get('x-request-id');
      // 'close' comes once the process's output has all been read.
      const closed = once(server.child, 'close');
      await server.stop('SIGTERM');
      await closed;
      assert.ok(server.lines.some((l) => l.includes(`"reqId":"${requestId}"`) && l.includes('request completed')));
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
