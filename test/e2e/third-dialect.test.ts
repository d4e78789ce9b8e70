import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestService, type TestService } from './support/service.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';
import { toyDialect } from './support/toy-dialect.ts';
import { DEFAULT_DIALECTS } from '../../packages/server/src/main.ts';

// A dialect is one descriptor: a made-up third one (test/e2e/support/toy-dialect.ts) serves a
// task end to end beside families A and B, with its own paths, field names, words and errors.
describe('a third dialect is one descriptor', () => {
  let svc: TestService;
  let client: Api;
  let key: string;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vidgen-toy-'));
    const models = join(dir, 'models.json');
    await writeFile(
      models,
      JSON.stringify({
        models: [
          {
            id: 'toy-clip',
            family: 'C',
            backend: 'renderer',
            resolution: '480p',
            durations: [1, 2],
            aspect_ratios: ['16:9', '1:1'],
          },
          { id: 'video-v1-5s', family: 'B', backend: 'renderer', durations: [5], aspect_ratios: ['16:9'] },
        ],
      }),
    );
    svc = await startTestService({ VIDGEN_MODELS_FILE: models }, [...DEFAULT_DIALECTS, toyDialect]);
    key = await svc.createKey('toy');
    client = api(svc.url, key);
  });
  after(async () => {
    await svc.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('runs a task from submit to a verified MP4 in its own words', async () => {
    const submit = await client.post('/toy/v2/jobs', {
      engine: 'toy-clip',
      text: 'a lighthouse at dusk',
      shape: '1:1',
      length_s: 2,
    });
    assert.equal(submit.status, 200, JSON.stringify(submit.body));
    assert.equal(submit.body.state, 'WAITING');
    const states = new Set<string>();
    const done = await pollUntil(
      () => client.get(`/toy/v2/jobs/${submit.body.job}`),
      (a) => (states.add(a.body.state), a.body.state === 'READY' || a.body.state === 'BROKEN'),
    );
    assert.equal(done.body.state, 'READY', JSON.stringify(done.body));
    assert.ok(
      [...states].every((s) => ['WAITING', 'WORKING', 'READY'].includes(s)),
      [...states].join(),
    );
    const video = await downloadAndProbe(new URL(done.body.download, svc.url).href, { authorization: `Bearer ${key}` });
    assert.equal(video.probe.codec, 'h264');
    assert.deepEqual([video.probe.width, video.probe.height], [480, 480]);
    assert.equal(Math.round(video.probe.durationSeconds), 2);

    const listed = await client.get('/toy/v2/jobs?status=READY');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.data.map((t: { job: string }) => t.job),
      [submit.body.job],
    );
    assert.equal(listed.body.last_id, submit.body.job);
    // The task is the toy dialect's own: family B's listing does not show it.
    assert.deepEqual((await client.get('/v1/video/generations')).body.data, []);
  });

  it('names fields and renders errors the toy way', async () => {
    const badShape = await client.post('/toy/v2/jobs', { engine: 'toy-clip', text: 'x', shape: '4:3' });
    assert.equal(badShape.status, 400);
    assert.deepEqual(badShape.body.ok, false);
    assert.equal(badShape.body.problem.code, 'unsupported_aspect_ratio');
    assert.equal(badShape.body.problem.field, 'shape');
    assert.match(badShape.body.problem.text, /^`shape` '4:3' is not supported by model 'toy-clip'/);
    assert.ok(badShape.headers.get('x-request-id'));

    const badLength = await client.post('/toy/v2/jobs', { engine: 'toy-clip', text: 'x', length_s: 9 });
    assert.equal(badLength.body.problem.field, 'length_s');
    assert.match(
      badLength.body.problem.text,
      /`length_s` 9 is not offered by model .toy-clip.; it offers 1, 2 seconds/,
    );

    const blank = await client.post('/toy/v2/jobs', { engine: 'toy-clip', text: '  ' });
    assert.equal(blank.body.problem.field, 'text');

    const elsewhere = await client.post('/toy/v2/jobs', { engine: 'video-v1-5s', text: 'x' });
    assert.equal(elsewhere.body.problem.code, 'model_wrong_endpoint');
    assert.match(elsewhere.body.problem.text, /served at POST \/v1\/video\/generations/);
    // And the other way round: family B names the toy route for a toy model.
    const fromB = await client.post('/v1/video/generations', { model: 'toy-clip', prompt: 'x' });
    assert.equal(fromB.status, 400);
    assert.match(fromB.body.error.message, /served at POST \/toy\/v2\/jobs/);

    const badStatus = await client.get('/toy/v2/jobs?status=SUCCESS');
    assert.equal(badStatus.body.problem.code, 'invalid_status');
  });

  it('cancels through its own path', async () => {
    const submit = await client.post('/toy/v2/jobs', { engine: 'toy-clip', text: 'rain on a window', length_s: 2 });
    const canceled = await client.post(`/toy/v2/jobs/${submit.body.job}/abort`);
    // The renderer may have finished the short clip already; either answer is in toy words.
    if (canceled.status === 200) {
      assert.equal(canceled.body.state, 'BROKEN');
      assert.equal(canceled.body.problem, 'canceled');
    } else {
      assert.equal(canceled.status, 409);
      assert.equal(canceled.body.problem.code, 'task_not_cancelable');
    }
    const missing = await client.get('/toy/v2/jobs/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.problem.code, 'task_not_found');
  });
});
