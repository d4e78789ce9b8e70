import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { XaiStandin } from '../../packages/server/test/support/xai-standin.ts';
import { api, pollUntil } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';

const XAI_KEY = 'xai-cancel-charge-key';
const PRICE = 5 * TICKS_PER_SECOND; // 5 s at our price
const FEE = TICKS_PER_SECOND;
/** What the xAI channel bills us per second: 5 s cost 2.5 × 10⁹ ticks, more than the fee. */
const UPSTREAM_PER_SECOND = 500_000_000;
const UPSTREAM = 5 * UPSTREAM_PER_SECOND;

// A relayed task canceled after xAI (which has no cancel) accepted it: xAI renders and bills on.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`a cancel the upstream cannot pass on (${name})`, {
    skip: typeof created === 'string' ? created : false,
  }, () => {
    let db: TestDatabase;
    let xai: XaiStandin;
    let svc: EconomicsService;
    let dir: string;
    before(async () => {
      db = created as TestDatabase;
      // The render never finishes while the test runs: every poll answers `pending`.
      xai = await XaiStandin.start({ key: XAI_KEY, models: ['grok-imagine-video'], pendingPolls: 1_000_000 });
      dir = await mkdtemp(join(tmpdir(), 'vidgen-cancel-charge-'));
      const channel = (charge?: unknown) => ({
        type: 'relay',
        channels: [
          {
            name: 'xai',
            dialect: 'A',
            base_url: `${xai.url}/v1`,
            api_key_env: 'TEST_XAI_KEY',
            // The fee channel also carries the models whose own cancel_charge overrides its fee.
            models: charge
              ? {
                  'relay-fee': 'grok-imagine-video',
                  'model-full': 'grok-imagine-video',
                  'model-none': 'grok-imagine-video',
                }
              : { 'relay-free': 'grok-imagine-video' },
            poll_interval_seconds: 0.1,
            upstream_usd_ticks_per_second: UPSTREAM_PER_SECOND,
            ...(charge ? { cancel_charge: charge } : {}),
          },
        ],
      });
      await writeFile(
        join(dir, 'backends.json'),
        JSON.stringify({ backends: { 'xai-fee': channel({ fee_usd_ticks: FEE }), 'xai-free': channel() } }),
      );
      const shape = { family: 'B', resolution: '480p', durations: [5], aspect_ratios: ['16:9'] };
      const price = { usd_ticks_per_second: TICKS_PER_SECOND };
      await writeFile(
        join(dir, 'models.json'),
        JSON.stringify({
          models: [
            { id: 'relay-fee', backend: 'xai-fee', price, ...shape },
            { id: 'relay-free', backend: 'xai-free', price, ...shape },
            // The model's policy wins over the channel's fee, either way.
            { id: 'model-full', backend: 'xai-fee', price, cancel_charge: 'full', ...shape },
            { id: 'model-none', backend: 'xai-fee', price, cancel_charge: 'none', ...shape },
          ],
        }),
      );
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, {
        VIDGEN_BACKENDS_FILE: join(dir, 'backends.json'),
        VIDGEN_MODELS_FILE: join(dir, 'models.json'),
        TEST_XAI_KEY: XAI_KEY,
      });
    });
    after(async () => {
      await svc?.close();
      await xai?.close();
      await db?.drop();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    /** Submits, waits until xAI accepted the job and is being followed, then cancels. */
    const submitAndCancel = async (key: string, model: string) => {
      const client = api(svc.url, key);
      const jobsBefore = xai.jobs.length;
      const submit = await client.post('/v1/video/generations', { model, prompt: `cancel ${model}` });
      assert.equal(submit.status, 200, JSON.stringify(submit.body));
      // A poll of the job follows the stored upstream id: the checkpoint is written before any waiting.
      await pollUntil(
        async () => ({ status: 200, headers: new Headers(), body: xai.jobs[jobsBefore]?.polls ?? 0 }),
        (a) => a.body > 0,
      );
      const canceled = await client.post(`/v1/video/generations/${submit.body.task_id}/cancel`);
      assert.equal(canceled.status, 200, JSON.stringify(canceled.body));
      assert.equal(canceled.body.status, 'FAILURE');
      // The task as its poll shows it now: with what the cancel cost.
      const task = await client.get(`/v1/video/generations/${submit.body.task_id}`);
      return { id: submit.body.task_id as string, canceled: task.body, client };
    };

    it('with cancel_charge fee: the fee is charged, the rest released, and the loss shows as a negative margin', async () => {
      const start = 100 * TICKS_PER_SECOND;
      const key = await svc.account('fee-payer', { credits_usd_ticks: start });
      const { id, canceled, client } = await submitAndCancel(key, 'relay-fee');
      assert.equal(canceled.status, 'FAILURE');
      assert.deepEqual(canceled.usage, { cost_in_usd_ticks: FEE });
      const account = (await client.get('/v1/account')).body;
      assert.deepEqual([account.balance_usd_ticks, account.held_usd_ticks], [start - FEE, 0]);
      const entries = (await svc.admin.get(`/admin/v1/ledger?task_id=${id}`)).body.data;
      assert.deepEqual(entries.map((e: any) => [e.kind, e.amount_usd_ticks]).sort(), [
        ['hold', PRICE],
        ['release', PRICE - FEE],
        ['settle', FEE],
      ]);
      const usage = (await svc.admin.get('/admin/v1/usage?account=fee-payer')).body.data;
      assert.deepEqual(
        usage.map((r: any) => [
          r.model,
          r.tasks,
          r.cost_in_usd_ticks,
          r.upstream_cost_in_usd_ticks,
          r.margin_usd_ticks,
        ]),
        [['relay-fee', 1, FEE, UPSTREAM, FEE - UPSTREAM]],
      );
      assert.ok(FEE - UPSTREAM < 0, 'the margin is negative');
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it("a model's cancel_charge wins over its channel's: full charges the hold, none nothing", async () => {
      const start = 100 * TICKS_PER_SECOND;
      const key = await svc.account('model-policy', { credits_usd_ticks: start });
      const full = await submitAndCancel(key, 'model-full');
      assert.deepEqual(full.canceled.usage, { cost_in_usd_ticks: PRICE });
      const none = await submitAndCancel(key, 'model-none');
      assert.deepEqual(none.canceled.usage, { cost_in_usd_ticks: 0 });
      const account = (await full.client.get('/v1/account')).body;
      assert.deepEqual([account.balance_usd_ticks, account.held_usd_ticks], [start - PRICE, 0]);
      const entries = async (id: string) =>
        (await svc.admin.get(`/admin/v1/ledger?task_id=${id}`)).body.data
          .map((e: any) => [e.kind, e.amount_usd_ticks, e.reason])
          .sort();
      assert.deepEqual(await entries(full.id), [
        ['hold', PRICE, 'hold for model-full'],
        ['settle', PRICE, "canceled after the upstream accepted it (the model's cancel_charge full)"],
      ]);
      assert.deepEqual(await entries(none.id), [
        ['hold', PRICE, 'hold for model-none'],
        ['release', PRICE, 'task canceled'],
      ]);
      assert.deepEqual((await svc.verify()).problems, []);
    });

    it('by default (none): the customer pays nothing, and the upstream cost is still recorded', async () => {
      const start = 100 * TICKS_PER_SECOND;
      const key = await svc.account('free-canceler', { credits_usd_ticks: start });
      const { canceled, client } = await submitAndCancel(key, 'relay-free');
      assert.deepEqual(canceled.usage, { cost_in_usd_ticks: 0 });
      const account = (await client.get('/v1/account')).body;
      assert.deepEqual([account.balance_usd_ticks, account.held_usd_ticks], [start, 0]);
      const usage = (await svc.admin.get('/admin/v1/usage?account=free-canceler')).body.data;
      assert.deepEqual(
        usage.map((r: any) => [r.model, r.cost_in_usd_ticks, r.upstream_cost_in_usd_ticks, r.margin_usd_ticks]),
        [['relay-free', 0, UPSTREAM, -UPSTREAM]],
      );
      assert.deepEqual((await svc.verify()).problems, []);
    });
  });
}
