import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { formatUsdTicks } from '../../packages/client/src/index.ts';
import { api, pollUntil, type Api } from './support/http.ts';
import { startEconomicsService, TICKS_PER_SECOND, type EconomicsService } from './support/economics.ts';
import { startWebhookReceiver } from './support/webhook-receiver.ts';
import {
  browserUnavailable,
  openConsole,
  screenshot,
  scrollsSideways,
  PHONE,
  headerItemsOnSeveralLines,
  unnamedFormParts,
  DESKTOP,
  type TestBrowser,
  signIn,
} from './support/browser.ts';

// The console for an account's money and webhooks, in real Chromium against a real server: the
// balance in the header (exact dollars from integer ticks) follows a task from hold to settle, each
// task shows its cost, and the account's webhook endpoints are listed with their state, a disabled
// one enabled again from the page unless the operator disabled it.
const skip = browserUnavailable();
/** A balance whose every digit shows: $1.2345678901. */
const CREDITS = 12_345_678_901;

describe('web console: balance, task costs, webhook endpoints', { skip }, () => {
  let svc: EconomicsService;
  let browser: TestBrowser;
  let page: Page;
  let key: string;
  let owner: Api;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const endpoints: Record<string, string> = {};

  before(async () => {
    svc = await startEconomicsService(undefined, {
      VIDGEN_WEBHOOK_RETRY_BASE_MS: '50',
      VIDGEN_WEBHOOK_RETRY_CAP_MS: '200',
    });
    key = await svc.account('wallet', { credits_usd_ticks: CREDITS });
    owner = api(svc.url, key);
    receiver = await startWebhookReceiver((r) =>
      r.headers['webhook-id'] && JSON.parse(r.body).type === 'webhook.test' ? 410 : 200,
    );
    for (const name of ['gone', 'operator', 'healthy'])
      endpoints[name] = (await owner.post('/v1/webhooks', { url: `${receiver.url}?${name}` })).body.id;
    await owner.post(`/v1/webhooks/${endpoints.gone}/test`);
    await pollUntil(
      () => owner.get(`/v1/webhooks/${endpoints.gone}`),
      (a) => a.body.status === 'disabled',
    );
    await svc.admin.call('PATCH', `/admin/v1/webhooks/${endpoints.operator}`, { enabled: false });
    ({ browser, page } = await openConsole(svc.url));
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
    await receiver?.close();
  });

  it('shows the balance exactly and settles it when a task ends; the task shows its cost', async () => {
    await signIn(page, svc.url, key);
    const balance = page.locator('.balance');
    await balance.filter({ hasText: 'Balance $1.2345678901' }).waitFor();

    await page.getByLabel('Model', { exact: true }).selectOption('tiny-1s');
    await page.getByLabel('Prompt').fill('a lighthouse at dusk');
    await page.getByRole('button', { name: 'Generate' }).click();
    const task = page.locator('li.task[data-phase="succeeded"]').first();
    await task.waitFor({ timeout: 120_000 });
    const id = await task.getAttribute('data-task-id');
    const cost = (await owner.get(`/v1/video/generations/${id}`)).body.usage.cost_in_usd_ticks;
    assert.equal(cost, TICKS_PER_SECOND, 'one second at the test price');
    assert.match((await task.locator('.task-timing').textContent()) ?? '', /· cost \$0\.10$/);

    const left = CREDITS - cost;
    await balance.filter({ hasText: `Balance ${formatUsdTicks(left)}` }).waitFor();
    assert.equal(await balance.textContent(), 'Balance $1.1345678901', 'settled: nothing held any more');
    assert.equal((await owner.get('/v1/account')).body.balance_usd_ticks, left);
    await page.reload();
    await page.locator('li.task[data-phase="succeeded"] .task-timing').filter({ hasText: 'cost $0.10' }).waitFor();
  });

  it("lists the account's webhook endpoints, opened when one is disabled, and enables one the server disabled", async () => {
    const panel = page.locator('details.webhooks-panel');
    await panel.locator('summary').filter({ hasText: 'Webhook endpoints (3)' }).waitFor();
    assert.equal(await panel.evaluate((el: HTMLDetailsElement) => el.open), true, 'open: an endpoint is disabled');
    const row = (name: string) => panel.locator(`li.webhook[data-webhook-id="${endpoints[name]}"]`);

    assert.equal(await row('healthy').getAttribute('data-status'), 'enabled');
    assert.equal(await row('healthy').getByRole('button', { name: 'Enable' }).isVisible(), false);
    assert.match((await row('operator').textContent()) ?? '', /Only the operator can enable it again/);
    assert.equal(await row('operator').getByRole('button', { name: 'Enable' }).isVisible(), false);
    assert.match((await row('gone').textContent()) ?? '', /410 Gone/);
    await screenshot(page, 'account-webhooks-desktop');
    await page.setViewportSize(PHONE);
    assert.equal(await scrollsSideways(page), false, 'no horizontal scroll at 375 px');
    assert.deepEqual(await headerItemsOnSeveralLines(page), [], 'a metered balance at 375 px: one line each');
    await screenshot(page, 'account-webhooks-phone');
    await page.setViewportSize(DESKTOP);

    await row('gone').getByRole('button', { name: 'Enable' }).click();
    await panel.locator(`li.webhook[data-webhook-id="${endpoints.gone}"][data-status="enabled"]`).waitFor();
    assert.equal((await owner.get(`/v1/webhooks/${endpoints.gone}`)).body.status, 'enabled');
    assert.equal(
      (await owner.get(`/v1/webhooks/${endpoints.operator}`)).body.status,
      'disabled',
      "the operator's disable holds",
    );
  });

  it('says when an account is not metered', async () => {
    const free = await svc.account('free');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, svc.url, free);
    await page.locator('.balance').filter({ hasText: 'Not metered' }).waitFor();
    await page.locator('details.webhooks-panel summary').filter({ hasText: 'Webhook endpoints (0)' }).waitFor();
    assert.deepEqual(browser.problems, [], 'no console errors (CSP violations included)');
  });

  it('fits the header on a 375 px phone, one line per item, and names every form control', async () => {
    await page.setViewportSize(PHONE);
    try {
      assert.deepEqual(await headerItemsOnSeveralLines(page), [], '"vidgen console", "Not metered", "Sign out"');
      await page.getByRole('button', { name: 'Generate' }).waitFor();
      assert.deepEqual(await unnamedFormParts(page), [], 'the family B form');
      await page.getByLabel('Model', { exact: true }).selectOption('tiny-a');
      await page.getByLabel('Duration').waitFor();
      assert.deepEqual(await unnamedFormParts(page), [], 'the family A form');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      assert.deepEqual(await headerItemsOnSeveralLines(page), []);
      assert.deepEqual(await unnamedFormParts(page), [], 'the sign-in form');
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  });
});
