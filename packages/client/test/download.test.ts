import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  NodeVidgenClient,
  DownloadCheckError,
  ResultExpiredError,
  APIConnectionTimeoutError,
  TaskNotReadyError,
  type FamilyATask,
} from '../src/node/index.ts';
import { fakeMp4, json, mp4, startScriptedServer } from './support/scripted-server.ts';

// Obligation 4 against a server that answers badly: every failure leaves nothing at the target.
describe('downloadVideo', async () => {
  const video = fakeMp4(64 * 1024);
  const server = await startScriptedServer(mp4(video));
  const api = await startScriptedServer(json(200, {}));
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-dl-'));
  });
  after(async () => {
    await server.close();
    await api.close();
    await rm(dir, { recursive: true, force: true });
  });
  // The API lives on one origin, the signed links on another (as with a CDN).
  const client = (maxRetries = 2) =>
    new NodeVidgenClient({
      baseURL: api.url,
      apiKey: 'sk-secret',
      maxRetries,
      backoff: { initialDelayMs: 5, maxDelayMs: 10 },
    });
  const doneTask = (id = 'r1'): FamilyATask => ({
    request_id: id,
    status: 'done',
    model: 'vx',
    progress: 100,
    video: { url: `${server.url}/v/${id}.mp4?sig=abc`, duration: 1 },
  });
  const reset = (...h: Parameters<typeof server.script>) => {
    server.seen.length = 0;
    server.script(...h);
  };
  const target = (name: string) => join(dir, name);
  const leftovers = async (name: string) => (await readdir(dir)).filter((n) => n.includes(name));

  it('saves a good video atomically and never sends the key to another origin', async () => {
    reset(mp4(video));
    const result = await client().download({ family: 'A', task: doneTask() }, { path: target('good.mp4') });
    assert.equal(result.bytes, video.length);
    assert.equal(result.resumed, false);
    assert.deepEqual(await readFile(target('good.mp4')), video);
    assert.equal(server.seen[0].headers.authorization, undefined);
    assert.deepEqual(await leftovers('good'), ['good.mp4']);
  });

  const bad: Array<[string, Parameters<typeof server.script>[0], string]> = [
    ['wrong content type', mp4(video, { contentType: 'text/html' }), 'content_type'],
    ['no ftyp signature', mp4(Buffer.alloc(4096, 1)), 'signature'],
    ['cut short (torn connection)', mp4(video, { cutAfter: 1000, etag: 'W/"weak"' }), 'length'],
    [
      'wrong length (clean close before Content-Length)',
      mp4(video, { cutAfter: 5000, cleanCut: true, etag: 'W/"weak"' }),
      'length',
    ],
    ['empty body', mp4(Buffer.alloc(0)), 'length'],
    ['server error', json(500, { error: { message: 'boom', type: 'server_error', code: 'x', param: null } }), 'status'],
  ];
  for (const [name, handler, check] of bad) {
    it(`refuses ${name} and leaves no file`, async () => {
      reset(handler);
      const file = `bad-${check}-${name.length}.mp4`;
      const err = await client()
        .download({ family: 'A', task: doneTask() }, { path: target(file) })
        .catch((e) => e);
      assert.ok(err instanceof DownloadCheckError, String(err));
      assert.equal(err.check, check);
      assert.deepEqual(await leftovers(file), []);
    });
  }

  it('raises ResultExpiredError on 410 and TaskNotReadyError for an unfinished task', async () => {
    reset(
      json(410, {
        error: { message: 'The video was deleted.', type: 'invalid_request_error', code: 'video_expired', param: null },
      }),
    );
    await assert.rejects(
      client().download({ family: 'A', task: doneTask() }, { path: target('gone.mp4') }),
      ResultExpiredError,
    );
    const expired: FamilyATask = { request_id: 'r1', status: 'expired', model: 'vx', progress: 100 };
    await assert.rejects(
      client().download({ family: 'A', task: expired }, { path: target('gone.mp4') }),
      ResultExpiredError,
    );
    await assert.rejects(
      client().download(
        {
          family: 'B',
          task: { task_id: 't', status: 'SUCCESS', progress: 100, seconds: '5', model: 'm', expired: true },
        },
        { path: target('gone.mp4') },
      ),
      ResultExpiredError,
    );
    await assert.rejects(
      client().download({ family: 'A', task: { ...expired, status: 'pending' } }, { path: target('gone.mp4') }),
      TaskNotReadyError,
    );
    assert.deepEqual(await leftovers('gone'), []);
  });

  it('resumes an interrupted transfer with Range and If-Range', async () => {
    // The connection is torn once the client has written the first 20 000 bytes, not after a guessed delay.
    let received!: () => void;
    const cutWhen = new Promise<void>((resolve) => (received = resolve));
    reset(mp4(video, { cutAfter: 20_000, cutWhen }), mp4(video));
    const onProgress = (bytes: number) => bytes >= 20_000 && received();
    const result = await client().download(
      { family: 'A', task: doneTask('r2') },
      { path: target('resumed.mp4'), onProgress },
    );
    assert.equal(result.resumed, true);
    assert.deepEqual(await readFile(target('resumed.mp4')), video);
    assert.equal(server.seen.length, 2);
    assert.match(String(server.seen[1].headers.range), /^bytes=\d+-$/);
    assert.ok(Number(/=(\d+)-/.exec(String(server.seen[1].headers.range))![1]) > 0);
    assert.equal(server.seen[1].headers['if-range'], '"v1"');
    assert.deepEqual(await leftovers('resumed'), ['resumed.mp4']);
  });

  it('resumes in a later run what an earlier run left, and starts over if the file changed', async () => {
    const cut = (bytes: number) => {
      let received!: () => void;
      const cutWhen = new Promise<void>((resolve) => (received = resolve));
      return { cutWhen, onProgress: (n: number) => n >= bytes && received() };
    };
    const first = cut(30_000);
    reset(mp4(video, { cutAfter: 30_000, cutWhen: first.cutWhen }));
    await assert.rejects(
      client(0).download(
        { family: 'A', task: doneTask('r3') },
        { path: target('later.mp4'), onProgress: first.onProgress },
      ),
      DownloadCheckError,
    );
    assert.deepEqual(
      (await leftovers('later')).sort(),
      ['.later.mp4.vidgen-part', '.later.mp4.vidgen-part.json'],
      'resumable bytes are kept beside the target',
    );
    reset(mp4(video));
    const again = await client(0).download({ family: 'A', task: doneTask('r3') }, { path: target('later.mp4') });
    assert.equal(again.resumed, true);
    assert.equal(server.seen[0].headers.range, 'bytes=30000-');
    assert.deepEqual(await readFile(target('later.mp4')), video);

    const changed = fakeMp4(50_000);
    const second = cut(10_000);
    reset(mp4(video, { cutAfter: 10_000, cutWhen: second.cutWhen }), mp4(changed, { etag: '"v2"' }));
    const replaced = await client(1).download(
      { family: 'A', task: doneTask('r4') },
      { path: target('changed.mp4'), onProgress: second.onProgress },
    );
    assert.equal(server.seen[1].headers['if-range'], '"v1"');
    assert.deepEqual(await readFile(target('changed.mp4')), changed, 'a 200 to a ranged request starts over');
    assert.equal(replaced.bytes, changed.length);
  });

  it('polls family A again for a fresh link when the signed one has expired', async () => {
    reset(
      json(403, {
        error: {
          message: 'This download link has expired.',
          type: 'permission_error',
          code: 'signature_expired',
          param: null,
        },
      }),
      mp4(video),
    );
    api.seen.length = 0;
    api.script(json(200, { ...doneTask('r5'), video: { url: `${server.url}/v/r5.mp4?sig=fresh`, duration: 1 } }));
    await client().download({ family: 'A', task: doneTask('r5') }, { path: target('refreshed.mp4') });
    assert.equal(api.seen[0].url, '/v1/videos/r5');
    assert.equal(server.seen[1].url, '/v/r5.mp4?sig=fresh');
    assert.deepEqual(await readFile(target('refreshed.mp4')), video);
  });

  it('gives up at its own time-out and writes nothing', async () => {
    reset(() => undefined);
    const err = await client(0)
      .download({ family: 'A', task: doneTask() }, { path: target('slow.mp4'), timeoutMs: 200 })
      .catch((e) => e);
    assert.ok(err instanceof APIConnectionTimeoutError, String(err));
    assert.deepEqual(await leftovers('slow'), []);
  });

  it('fetches family B from {baseURL}{result_url} with the key', async () => {
    api.seen.length = 0;
    api.script(mp4(video));
    await client().download(
      {
        family: 'B',
        task: {
          task_id: 't1',
          status: 'SUCCESS',
          progress: 100,
          seconds: '5',
          model: 'm',
          result_url: '/v1/videos/t1/content',
        },
      },
      { path: target('b.mp4') },
    );
    assert.equal(api.seen[0].url, '/v1/videos/t1/content');
    assert.equal(api.seen[0].headers.authorization, 'Bearer sk-secret');
    assert.deepEqual(await readFile(target('b.mp4')), video);
  });
});
