import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { ADMIN_TOKEN, startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';

const ONE_SECOND = TICKS_PER_SECOND;
const HOUR = 3600;

// The operator console's routes (/admin/v1/tasks, overview, usage/series, deliveries), against real
// servers on SQLite and on PostgreSQL: real tasks rendered, real webhooks sent and failed.
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = await create();
  describe(`the operator console's API (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let svc: EconomicsService;
    let inbox: Awaited<ReturnType<typeof startWebhookReceiver>>;
    let client: Api;
    let taskId: string;
    before(async () => {
      db = created as TestDatabase;
      // The receiver fails every delivery until told otherwise: one attempt each, so they fail at once.
      inbox = await startWebhookReceiver(() => (healthy ? 200 : 500));
      svc = await startEconomicsService(name === 'PostgreSQL' ? db.location : undefined, {
        VIDGEN_WEBHOOK_MAX_ATTEMPTS: '1',
      });
      client = api(svc.url, await svc.account('ops-acme', { credits_usd_ticks: 100 * ONE_SECOND }));
      await client.post('/v1/webhooks', { url: inbox.url, events: ['video.completed'] });
      taskId = (await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'a <b>lighthouse</b>' })).body
        .task_id;
      await pollUntil(
        () => client.get(`/v1/video/generations/${taskId}`),
        (a) => a.body.status === 'SUCCESS',
      );
    });
    after(async () => {
      await svc?.close();
      await inbox?.close();
      await db?.drop();
    });
    let healthy = false;

    it('answers no-store with a strict CSP, errors included', async () => {
      for (const answer of [await svc.admin.get('/admin/v1/overview'), await api(svc.url).get('/admin/v1/overview')]) {
        assert.equal(answer.headers.get('cache-control'), 'no-store');
        assert.match(answer.headers.get('content-security-policy') ?? '', /default-src 'none'/);
      }
    });

    it('lists every account’s tasks newest first, by keyset, with each filter; bad input is a 400 naming the field', async () => {
      const other = api(svc.url, await svc.account('ops-other'));
      const ids: string[] = [];
      for (let i = 0; i < 3; i++)
        ids.push((await other.post('/v1/video/generations', { model: 'tiny-1s', prompt: `other ${i}` })).body.task_id);
      const seen: string[] = [];
      let after = '';
      for (;;) {
        const page = await svc.admin.get(`/admin/v1/tasks?limit=2${after ? `&after=${after}` : ''}`);
        assert.equal(page.status, 200);
        seen.push(...page.body.data.map((t: { id: string }) => t.id));
        if (!page.body.has_more) break;
        after = page.body.last_id;
      }
      assert.deepEqual(seen, [...ids].reverse().concat(taskId), 'newest first, every account');
      const byAccount = await svc.admin.get('/admin/v1/tasks?account=ops-acme');
      assert.deepEqual(
        byAccount.body.data.map((t: { id: string }) => t.id),
        [taskId],
      );
      const row = byAccount.body.data[0];
      assert.deepEqual(
        [row.account, row.model, row.dialect, row.status, row.progress, row.cost_usd_ticks, row.prompt, row.tier],
        ['ops-acme', 'tiny-1s', 'B', 'succeeded', 100, ONE_SECOND, 'a <b>lighthouse</b>', 'default'],
      );
      const both = await svc.admin.get(
        '/admin/v1/tasks?account=ops-acme&status=succeeded&model=tiny-1s&dialect=B&tier=default',
      );
      assert.equal(both.body.data.length, 1);
      for (const query of ['status=failed', 'dialect=openai', 'tier=flex', 'batch=batch_1'])
        assert.equal((await svc.admin.get(`/admin/v1/tasks?account=ops-acme&${query}`)).body.data.length, 0, query);
      assert.equal((await svc.admin.get('/admin/v1/tasks?account=nobody')).body.data.length, 0);
      const now = Math.floor(Date.now() / 1000);
      assert.equal((await svc.admin.get(`/admin/v1/tasks?since=${now + HOUR}`)).body.data.length, 0);
      assert.equal((await svc.admin.get(`/admin/v1/tasks?until=${now - HOUR}`)).body.data.length, 0);
      assert.ok((await svc.admin.get(`/admin/v1/tasks?since=${now - HOUR}`)).body.data.length >= 4);
      for (const [query, field] of [
        ['status=done', 'status'],
        ['since=yesterday', 'since'],
        ['limit=0', 'limit'],
      ]) {
        const refused = await svc.admin.get(`/admin/v1/tasks?${query}`);
        assert.equal(refused.status, 400, query);
        assert.ok(JSON.stringify(refused.body).includes(field), `${query} names ${field}`);
      }
      for (const id of ids)
        await pollUntil(
          () => other.get(`/v1/video/generations/${id}`),
          (a) => a.body.status === 'SUCCESS',
        );
    });

    it("shows a task's timeline, ledger, deliveries and a signed link that plays without a key", async () => {
      const detail = await svc.admin.get(`/admin/v1/tasks/${taskId}`);
      assert.equal(detail.status, 200);
      const events = detail.body.timeline.map((e: { event: string }) => e.event);
      assert.deepEqual(events, ['submitted', 'claimed', 'attempt_ended', 'finished']);
      assert.deepEqual(detail.body.ledger.map((e: { kind: string }) => e.kind).sort(), ['hold', 'settle']);
      assert.equal(detail.body.deliveries.length, 1);
      assert.equal(detail.body.deliveries[0].event_type, 'video.completed');
      const video = await fetch(detail.body.content_url);
      assert.equal(video.status, 200);
      assert.equal(video.headers.get('content-type'), 'video/mp4');
      const poster = await fetch(detail.body.poster_url);
      assert.equal(poster.status, 200);
      const forged = detail.body.content_url.replace(/kid=operator%3A[^&]+/, 'kid=operator%3Asomeone');
      assert.equal((await fetch(forged)).status, 403, 'the account named in the link is signed');
      assert.equal((await svc.admin.get('/admin/v1/tasks/no-such-task')).status, 404);
    });

    it('cancels any account’s queued task; an ended one is 409', async () => {
      const long = (await client.post('/v1/video/generations', { model: 'tiny-long', prompt: 'long' })).body.task_id;
      const canceled = await svc.admin.post(`/admin/v1/tasks/${long}/cancel`);
      assert.deepEqual([canceled.status, canceled.body.status], [200, 'canceled']);
      const again = await svc.admin.post(`/admin/v1/tasks/${taskId}/cancel`);
      assert.deepEqual([again.status, again.body.error.code], [409, 'task_not_cancelable']);
    });

    it('draws usage per hour and day by account, model and tier from the rollup, refunds taken off', async () => {
      const refund = await svc.admin.post(`/admin/v1/tasks/${taskId}/refund`, {
        amount_usd_ticks: ONE_SECOND / 4,
        reason: 'operator',
      });
      assert.equal(refund.status, 200);
      const since = Math.floor(Date.now() / 1000) - 48 * HOUR;
      const series = await svc.admin.get(`/admin/v1/usage/series?bucket=hour&group_by=account&since=${since}`);
      assert.equal(series.status, 200);
      const acme = series.body.data.filter((r: { group: string }) => r.group === 'ops-acme');
      assert.equal(
        acme.reduce((s: number, r: { spend_usd_ticks: number }) => s + r.spend_usd_ticks, 0),
        ONE_SECOND - ONE_SECOND / 4,
      );
      assert.equal(
        acme.reduce((s: number, r: { tasks: number }) => s + r.tasks, 0),
        2,
        'the success and the cancel',
      );
      assert.ok(acme.some((r: { rendered_seconds: number }) => r.rendered_seconds === 1));
      const byModel = await svc.admin.get(`/admin/v1/usage/series?bucket=day&group_by=model&since=${since}`);
      assert.ok(byModel.body.data.some((r: { group: string }) => r.group === 'tiny-1s'));
      const byTier = await svc.admin.get(`/admin/v1/usage/series?bucket=day&group_by=tier&since=${since}`);
      assert.deepEqual([...new Set(byTier.body.data.map((r: { group: string }) => r.group))], ['default']);
      const csvPath = `/admin/v1/usage/series?bucket=day&group_by=account&since=${since}&format=csv`;
      const csv = await fetch(`${svc.url}${csvPath}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
      const lines = (await csv.text()).trim().split('\n');
      assert.equal(lines[0], 'start,account,tasks,spend_usd,spend_usd_ticks,rendered_seconds');
      assert.ok(
        lines.some((l) => l.includes(',ops-acme,') && l.includes(',0.075,')),
        lines.join('\n'),
      );
      assert.equal((await api(svc.url).get(csvPath)).status, 401, 'the CSV needs the token too');
      for (const [query, field] of [
        ['bucket=week&group_by=account&since=0', 'bucket'],
        ['bucket=hour&group_by=planet&since=0', 'group_by'],
        ['bucket=hour&group_by=model&since=soon', 'since'],
        [`bucket=hour&group_by=model&since=${since}&until=${since - HOUR}`, 'until'],
      ]) {
        const refused = await svc.admin.get(`/admin/v1/usage/series?${query}`);
        assert.equal(refused.status, 400, query);
        assert.ok(JSON.stringify(refused.body).includes(field), `${query} names ${field}`);
      }
    });

    it('gives the overview in one answer', async () => {
      const overview = await svc.admin.get('/admin/v1/overview');
      assert.equal(overview.status, 200);
      const hours = overview.body.last_24_hours;
      assert.equal(hours.length, 24);
      assert.ok(hours.at(-1).succeeded >= 4);
      assert.ok(hours.at(-1).canceled >= 1);
      assert.ok(overview.body.spend_today_usd_ticks >= ONE_SECOND - ONE_SECOND / 4);
      assert.equal(overview.body.spend_yesterday_usd_ticks, 0);
      assert.deepEqual(overview.body.channels_not_closed, []);
    });

    it('finds accounts by prefix and reads a ledger newest first', async () => {
      const found = await svc.admin.get('/admin/v1/accounts?prefix=ops-');
      assert.deepEqual(
        found.body.data.map((a: { id: string }) => a.id),
        ['ops-acme', 'ops-other'],
      );
      assert.equal((await svc.admin.get('/admin/v1/accounts?prefix=ops-a')).body.data.length, 1);
      assert.equal((await svc.admin.get('/admin/v1/accounts?prefix=OPS-')).body.data.length, 0, 'exact case');
      const desc = await svc.admin.get('/admin/v1/ledger?account=ops-acme&order=desc');
      const kinds = desc.body.data.map((e: { kind: string }) => e.kind);
      assert.equal(kinds[0], 'refund', 'newest first');
      assert.equal(kinds.at(-1), 'grant');
      assert.equal((await svc.admin.get('/admin/v1/ledger?order=sideways')).status, 400);
    });

    it('lists failed deliveries across accounts, resends one, recovers an endpoint, and orders endpoints failing first', async () => {
      const failed = await pollUntil(
        () => svc.admin.get('/admin/v1/deliveries?status=failed'),
        (a) => a.body.data.length >= 1,
      );
      const delivery = failed.body.data[0];
      assert.deepEqual([delivery.account, delivery.url, delivery.status], ['ops-acme', inbox.url, 'failed']);
      const endpoints = await svc.admin.get('/admin/v1/webhooks?order=failing');
      assert.equal(endpoints.body.data[0].id, delivery.endpoint_id);
      assert.ok(endpoints.body.data[0].deliveries.failed >= 1);

      healthy = true;
      const resent = await svc.admin.post(`/admin/v1/deliveries/${delivery.id}/resend`);
      assert.deepEqual([resent.status, resent.body.status], [200, 'pending']);
      await pollUntil(
        () => svc.admin.get(`/admin/v1/webhooks/${delivery.endpoint_id}/deliveries`),
        (a) =>
          a.body.data.some((d: { id: string; status: string }) => d.id === delivery.id && d.status === 'delivered'),
      );
      const recovered = await svc.admin.post(`/admin/v1/webhooks/${delivery.endpoint_id}/recover`, {
        since: Math.floor(Date.now() / 1000) - HOUR,
      });
      assert.equal(recovered.status, 200);
      assert.equal(typeof recovered.body.queued, 'number');
      assert.equal((await svc.admin.post('/admin/v1/deliveries/whd_nope/resend')).status, 404);
      assert.equal((await svc.admin.get('/admin/v1/deliveries?status=lost')).status, 400);
    });

    it('keeps the ledger consistent', async () => {
      assert.deepEqual((await svc.verify()).problems, []);
    });
  });
}
