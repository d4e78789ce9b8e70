/**
 * Through vidgen's public API, on a metered account: tasks relayed to the vLLM-Omni, SGLang Diffusion
 * and Gemini Veo stand-ins (written from those projects' code and docs) each end as a verified MP4 of
 * the requested shape, downloaded from vidgen, from exactly one upstream job, and are charged once; a
 * Veo run its filters withheld fails `content_moderated` with its hold released; a cancel and a
 * deadline reach vLLM-Omni as the DELETE that aborts its job (docs/relays.md §3.8–3.9).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SglangStandin } from '../../packages/server/test/support/sglang-standin.ts';
import { VllmOmniStandin } from '../../packages/server/test/support/vllm-omni-standin.ts';
import { VeoStandin } from '../../packages/server/test/support/veo-standin.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { downloadAndProbe } from './support/video.ts';

const KEYS = { TEST_VLLM_KEY: 'vllm-e2e-key', TEST_SGLANG_KEY: 'sglang-e2e-key', TEST_GEMINI_KEY: 'AIzaSy-e2e' };
const VEO = 'veo-3.1-generate-preview';
const ended = (a: { body: any }) => ['SUCCESS', 'FAILURE'].includes(a.body.status);

const channel = (dialect: string, upstream: string, url: string, keyEnv: string, model: string, ours: string) => ({
  name: upstream,
  dialect,
  ...(dialect === 'openai' ? { upstream } : {}),
  base_url: url,
  api_key_env: keyEnv,
  models: { [ours]: model },
  poll_interval_seconds: 0.1,
});
const model = (id: string, backend: string, seconds: number) => ({
  id,
  family: 'B',
  backend,
  resolution: '720p',
  durations: [seconds],
  aspect_ratios: ['16:9', '9:16'],
  price: { usd_ticks_per_second: TICKS_PER_SECOND },
});

describe('relaying to vLLM-Omni, SGLang Diffusion and Gemini Veo, metered', () => {
  let vllm: VllmOmniStandin;
  let slow: VllmOmniStandin;
  let stuck: VllmOmniStandin;
  let sglang: SglangStandin;
  let veo: VeoStandin;
  let svc: EconomicsService;
  let client: Api;
  let key: string;
  let dir: string;
  const START = 100 * TICKS_PER_SECOND;

  before(async () => {
    vllm = await VllmOmniStandin.start({ key: KEYS.TEST_VLLM_KEY });
    slow = await VllmOmniStandin.start({ key: KEYS.TEST_VLLM_KEY, pendingPolls: Number.MAX_SAFE_INTEGER });
    stuck = await VllmOmniStandin.start({ key: KEYS.TEST_VLLM_KEY, pendingPolls: Number.MAX_SAFE_INTEGER });
    sglang = await SglangStandin.start();
    veo = await VeoStandin.start({ key: KEYS.TEST_GEMINI_KEY, models: [VEO] });
    dir = await mkdtemp(join(tmpdir(), 'vidgen-relay-openai-veo-'));
    const wan = 'Wan-AI/Wan2.2-T2V-A14B-Diffusers';
    const backends = {
      'relay-vllm': {
        type: 'relay',
        channels: [channel('openai', 'vllm-omni', vllm.url, 'TEST_VLLM_KEY', wan, 'wan-2s')],
      },
      'relay-vllm-slow': {
        type: 'relay',
        channels: [channel('openai', 'vllm-omni', slow.url, 'TEST_VLLM_KEY', wan, 'wan-slow')],
      },
      'relay-vllm-deadline': {
        type: 'relay',
        deadline_seconds: 2,
        channels: [channel('openai', 'vllm-omni', stuck.url, 'TEST_VLLM_KEY', wan, 'wan-deadline')],
      },
      'relay-sglang': {
        type: 'relay',
        channels: [channel('openai', 'sglang', sglang.url, 'TEST_SGLANG_KEY', 'Wan-AI/Wan2.1-T2V-1.3B', 'sglang-2s')],
      },
      'relay-veo': { type: 'relay', channels: [channel('veo', 'gemini', veo.url, 'TEST_GEMINI_KEY', VEO, 'veo-4s')] },
    };
    const models = [
      model('wan-2s', 'relay-vllm', 2),
      model('wan-slow', 'relay-vllm-slow', 2),
      model('wan-deadline', 'relay-vllm-deadline', 2),
      model('sglang-2s', 'relay-sglang', 2),
      model('veo-4s', 'relay-veo', 4),
    ];
    await writeFile(join(dir, 'backends.json'), JSON.stringify({ backends }));
    await writeFile(join(dir, 'models.json'), JSON.stringify({ models }));
    svc = await startEconomicsService(undefined, {
      VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
      VIDGEN_MODELS_FILE: join(dir, 'models.json'),
      VIDGEN_WORKER_CONCURRENCY: '4',
      ...KEYS,
    });
    key = await svc.account('relay-buyer', { credits_usd_ticks: START });
    client = api(svc.url, key);
  });
  after(async () => {
    await svc?.close();
    for (const s of [vllm, slow, stuck, sglang, veo]) await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const submit = async (model: string, ratio = '16:9') => {
    const answer = await client.post('/v1/video/generations', { model, prompt: 'a harbour at dawn', ratio });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.task_id as string;
  };
  const ledgerOf = async (id: string) =>
    (await svc.admin.get(`/admin/v1/ledger?task_id=${id}`)).body.data
      .map((e: any) => [e.kind, e.amount_usd_ticks])
      .sort();

  for (const [name, ours, seconds, ratio, jobs] of [
    ['vLLM-Omni', 'wan-2s', 2, '16:9', () => vllm.jobs.length],
    ['SGLang', 'sglang-2s', 2, '9:16', () => sglang.jobs.length],
    ['Gemini Veo', 'veo-4s', 4, '16:9', () => veo.operations.length],
  ] as const) {
    it(`${name}: a task ends as a verified MP4 of the requested shape from one upstream job, charged once`, async () => {
      const id = await submit(ours, ratio);
      const done = await pollUntil(() => client.get(`/v1/video/generations/${id}`), ended);
      assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
      const { probe } = await downloadAndProbe(`${svc.url}${done.body.result_url}`, { authorization: `Bearer ${key}` });
      const [w, h] = ratio === '16:9' ? [1280, 720] : [720, 1280];
      assert.deepEqual([probe.codec, probe.width, probe.height], ['h264', w, h]);
      assert.ok(Math.abs(probe.durationSeconds - seconds) < 0.05, `lasts ${probe.durationSeconds} s`);
      assert.equal(jobs(), 1, 'exactly one upstream job');
      assert.deepEqual(await ledgerOf(id), [
        ['hold', seconds * TICKS_PER_SECOND],
        ['settle', seconds * TICKS_PER_SECOND],
      ]);
    });
  }

  it('Gemini Veo: a run done with no sample fails content_moderated, its hold released, the balance whole', async () => {
    const before = (await client.get('/v1/account')).body.balance_usd_ticks;
    veo.filterNext = { count: 1, reason: 'The prompt may violate our policies.' };
    const id = await submit('veo-4s');
    const end = await pollUntil(() => client.get(`/v1/video/generations/${id}`), ended);
    assert.equal(end.body.status, 'FAILURE', JSON.stringify(end.body));
    assert.equal(end.body.error.code, 'content_moderated');
    assert.deepEqual(await ledgerOf(id), [
      ['hold', 4 * TICKS_PER_SECOND],
      ['release', 4 * TICKS_PER_SECOND],
    ]);
    const account = (await client.get('/v1/account')).body;
    assert.deepEqual([account.balance_usd_ticks, account.held_usd_ticks], [before, 0]);
    assert.equal(veo.operations.length, 2, 'one operation for this task, none sent again');
    assert.deepEqual((await svc.verify()).problems, []);
  });

  it('a cancel reaches vLLM-Omni as the DELETE that aborts its job; the hold is released', async () => {
    const id = await submit('wan-slow');
    await pollUntil(
      () => client.get(`/v1/video/generations/${id}`),
      () => slow.jobs.length === 1 && slow.jobs[0].polls > 0,
    );
    assert.equal((await client.post(`/v1/video/generations/${id}/cancel`)).status, 200);
    await pollUntil(
      async () => ({ status: 200, body: slow.jobs[0], headers: new Headers() }),
      (a) => a.body.aborted === true,
    );
    assert.ok(slow.requests.some((q) => q.method === 'DELETE' && q.path === `/v1/videos/${slow.jobs[0].id}`));
    assert.deepEqual(await ledgerOf(id), [
      ['hold', 2 * TICKS_PER_SECOND],
      ['release', 2 * TICKS_PER_SECOND],
    ]);
  });

  it('a deadline aborts the vLLM-Omni job and fails the task for good: one upstream job, the hold released', async () => {
    const id = await submit('wan-deadline');
    const end = await pollUntil(() => client.get(`/v1/video/generations/${id}`), ended);
    assert.equal(end.body.status, 'FAILURE', JSON.stringify(end.body));
    assert.equal(end.body.error.code, 'deadline_exceeded');
    assert.equal(stuck.jobs.length, 1, 'no second job was ordered');
    assert.deepEqual([stuck.jobs[0].aborted, stuck.jobs[0].deleted], [true, true]);
    assert.deepEqual(await ledgerOf(id), [
      ['hold', 2 * TICKS_PER_SECOND],
      ['release', 2 * TICKS_PER_SECOND],
    ]);
    assert.deepEqual((await svc.verify()).problems, []);
  });
});
