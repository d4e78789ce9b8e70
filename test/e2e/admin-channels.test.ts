import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, pollUntil, type Api } from './support/http.ts';
import { startTestService, type TestService } from './support/service.ts';
import { ADMIN_TOKEN } from './support/economics.ts';
import { NewApiStandin } from '../../packages/server/test/support/newapi-standin.ts';

const KEY = 'sk-newapi-admin-channels';

// Relay channels for the operator: the admin API lists each channel of the backends
// file with its shared state, and a PATCH that disables or re-weights one changes where the next
// tasks really go, without a restart. Two new-api stand-ins on loopback are the upstreams.
describe('relay channels in the admin API', () => {
  let dir: string;
  let svc: TestService;
  let admin: Api;
  let client: Api;
  let main: NewApiStandin;
  let spare: NewApiStandin;
  const channel = (name: string, url: string, priority: number) => ({
    name,
    dialect: 'B',
    base_url: url,
    api_key_env: 'NEWAPI_KEY',
    models: { 'relay-180p': 'video-v1' },
    priority,
    poll_interval_seconds: 0.02,
    ...(name === 'spare' ? { max_concurrent: 4, max_rpm: 600, inputs: { last_frame: true, reference_images: 2 } } : {}),
  });
  const finish = async () => {
    const id = (await client.post('/v1/video/generations', { model: 'relay-180p', prompt: 'harbour at dusk' })).body
      .task_id as string;
    const done = await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      (a) => a.body.status === 'SUCCESS' || a.body.status === 'FAILURE',
    );
    assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
  };
  const jobs = () => [main.tasks.length, spare.tasks.length];

  before(async () => {
    [main, spare] = [
      await NewApiStandin.start({ key: KEY, models: ['video-v1'], pendingPolls: 0 }),
      await NewApiStandin.start({ key: KEY, models: ['video-v1'], pendingPolls: 0 }),
    ];
    dir = await mkdtemp(join(tmpdir(), 'vidgen-admin-channels-'));
    await writeFile(
      join(dir, 'backends.json'),
      JSON.stringify({
        backends: {
          'relay-video': { type: 'relay', channels: [channel('main', main.url, 10), channel('spare', spare.url, 1)] },
        },
      }),
    );
    await writeFile(
      join(dir, 'models.json'),
      JSON.stringify({
        models: [
          {
            id: 'relay-180p',
            family: 'B',
            backend: 'relay-video',
            resolution: '180p',
            durations: [1],
            aspect_ratios: ['16:9'],
          },
        ],
      }),
    );
    svc = await startTestService({
      VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
      VIDGEN_MODELS_FILE: join(dir, 'models.json'),
      NEWAPI_KEY: KEY,
      VIDGEN_ADMIN_TOKEN: ADMIN_TOKEN,
    });
    admin = api(svc.url, ADMIN_TOKEN);
    client = api(svc.url, await svc.createKey('relayed'));
  });
  after(async () => {
    await svc?.close();
    await main?.close();
    await spare?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists every channel with its breaker, load, weight, limits and inputs, never its URL or key', async () => {
    const listed = await admin.get('/admin/v1/channels');
    assert.equal(listed.status, 200);
    const [first, second] = listed.body.data;
    assert.deepEqual(
      [
        first.backend,
        first.name,
        first.dialect,
        first.upstream,
        first.priority,
        first.weight,
        first.enabled,
        first.state,
        first.failures,
        first.running,
        first.limits,
      ],
      ['relay-video', 'main', 'B', 'new-api', 10, 1, true, 'closed', 0, 0, { max_concurrent: null, max_rpm: null }],
    );
    assert.deepEqual([second.name, second.priority, second.limits], ['spare', 1, { max_concurrent: 4, max_rpm: 600 }]);
    // What each channel takes: new-api's default (a first frame), and what the file declares for the spare.
    const taken = (c: any) => [c.inputs.first_frame, c.inputs.last_frame, c.inputs.reference_images];
    assert.deepEqual(
      [taken(first), taken(second)],
      [
        [true, false, 0],
        [true, true, 2],
      ],
    );
    const text = JSON.stringify(listed.body);
    for (const secret of [main.url, spare.url, KEY])
      assert.equal(text.includes(secret), false, 'no upstream URL or key');
    assert.equal((await client.get('/admin/v1/channels')).status, 401, 'an API key is not the admin token');
  });

  it('a disabled channel gets no new task until it is enabled again; the next tasks go to the other channel', async () => {
    const [m0, s0] = jobs();
    await finish();
    assert.deepEqual(jobs(), [m0 + 1, s0], 'the higher priority takes the task');

    const off = await admin.call('PATCH', '/admin/v1/channels/relay-video/main', { enabled: false });
    assert.deepEqual([off.status, off.body.name, off.body.enabled], [200, 'main', false]);
    await finish();
    await finish();
    assert.deepEqual(jobs(), [m0 + 1, s0 + 2], 'the spare took both');
    assert.equal((await admin.get('/admin/v1/channels')).body.data[0].enabled, false, 'the list shows it');

    const back = await admin.call('PATCH', '/admin/v1/channels/relay-video/main', { enabled: null });
    assert.equal(back.body.enabled, true, 'null returns to the backends file');
    await finish();
    assert.deepEqual(jobs(), [m0 + 2, s0 + 2]);
  });

  it('changes a weight; refuses bad input with a 4xx that changes nothing; an unknown channel is 404', async () => {
    const path = '/admin/v1/channels/relay-video/spare';
    for (const body of [
      {},
      { weight: 0 },
      { weight: -1 },
      { weight: 'heavy' },
      { enabled: 'no' },
      { enabled: false, url: 'http://elsewhere' },
    ]) {
      const bad = await admin.call('PATCH', path, body);
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(bad.body.error.type, 'invalid_request_error');
    }
    const weight0 = await admin.call('PATCH', path, { weight: 0 });
    assert.equal(weight0.body.error.param, 'weight');
    const unchanged = (await admin.get('/admin/v1/channels')).body.data[1];
    assert.deepEqual([unchanged.weight, unchanged.enabled], [1, true]);

    assert.equal((await admin.call('PATCH', path, { weight: 2.5 })).body.weight, 2.5);
    assert.equal((await admin.get('/admin/v1/channels')).body.data[1].weight, 2.5);
    assert.equal((await admin.call('PATCH', path, { weight: null })).body.weight, 1);

    for (const missing of ['/admin/v1/channels/relay-video/nope', '/admin/v1/channels/nope/main']) {
      const answer = await admin.call('PATCH', missing, { enabled: false });
      assert.deepEqual([answer.status, answer.body.error.code], [404, 'channel_not_found']);
    }
  });

  it('records each channel’s calls (p50 latency, error rate) and tests a channel with one call', async () => {
    await finish();
    const listed = (await admin.get('/admin/v1/channels')).body.data;
    const used = listed.find((c: { calls_last_5_minutes: number }) => c.calls_last_5_minutes > 0);
    assert.ok(used, JSON.stringify(listed));
    assert.equal(typeof used.p50_latency_ms, 'number');
    assert.equal(used.error_rate, 0, 'every call was answered');

    const calls = used.calls_last_5_minutes;
    const tested = await admin.post(`/admin/v1/channels/relay-video/${used.name}/test`);
    assert.equal(tested.status, 200);
    // new-api answers 400 `task_not_exist` for an unknown task: the key was taken.
    assert.deepEqual([tested.body.ok, tested.body.status], [true, 400], tested.body.message);
    const after = (await admin.get('/admin/v1/channels')).body.data.find((c: { name: string }) => c.name === used.name);
    assert.equal(after.calls_last_5_minutes, calls + 1, 'the test is one call, recorded');
    assert.equal(tested.headers.get('cache-control'), 'no-store');

    const gone = await admin.post('/admin/v1/channels/relay-video/nope/test');
    assert.deepEqual([gone.status, gone.body.error.code], [404, 'channel_not_found']);
    // A stopped upstream: no answer, so the test says so and the error rate rises.
    await spare.close();
    const down = await admin.post('/admin/v1/channels/relay-video/spare/test');
    assert.deepEqual([down.body.ok, down.body.status], [false, null]);
    const spareNow = (await admin.get('/admin/v1/channels')).body.data.find(
      (c: { name: string }) => c.name === 'spare',
    );
    assert.ok(spareNow.error_rate > 0);
  });

  it('without a backends file the list is empty and every channel is unknown', async () => {
    const plain = await startTestService({ VIDGEN_ADMIN_TOKEN: ADMIN_TOKEN });
    try {
      const plainAdmin = api(plain.url, ADMIN_TOKEN);
      assert.deepEqual((await plainAdmin.get('/admin/v1/channels')).body, { object: 'list', data: [] });
      assert.equal(
        (await plainAdmin.call('PATCH', '/admin/v1/channels/relay-video/main', { enabled: false })).status,
        404,
      );
    } finally {
      await plain.close();
    }
  });
});
