import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, copyFile, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import {
  createPostgresDatabase,
  createSqliteDatabase,
  type TestDatabase,
} from '../../packages/server/test/support/databases.ts';
import { openSqlDatabase } from '../../packages/server/src/store/sql/database.ts';
import { api, pollUntil } from './support/http.ts';
import { ADMIN_TOKEN, type EconomicsService } from './support/economics.ts';
import {
  RELAY_MODEL,
  startOperatorConsoleService,
  type OperatorConsoleService,
} from './support/operator-console-service.ts';
import {
  browserUnavailable,
  launchBrowser,
  screenshot,
  scrollsSideways,
  PHONE,
  type TestBrowser,
} from './support/browser.ts';

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const HOSTILE = '<img src=x onerror="window.__pwned=1">';
const VIEWS = ['Overview', 'Accounts', 'Tasks', 'Usage', 'Channels', 'Webhooks'];

/** A screenshot of the page as it is, kept in docs/operator-console/ for docs/operator-console.md. */
async function keepScreenshot(page: Page, name: string): Promise<void> {
  const shot = await screenshot(page, `operator-${name}`);
  await mkdir(join('docs', 'operator-console'), { recursive: true });
  await copyFile(shot, join('docs', 'operator-console', `${name}.png`));
}

/** Renames an account in the database itself, past the API's rule on names. */
async function renameAccount(location: string, from: string, to: string): Promise<void> {
  const database = await openSqlDatabase(location);
  try {
    await database.db.updateTable('accounts').set({ name: to }).where('name', '=', from).execute();
  } finally {
    await database.close();
  }
}

/** Serious or critical axe violations of the page as it is now (axe injected through the debugger, past the CSP). */
async function axeProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => (globalThis as any).axe.run(document));
  return result.violations
    .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: { id: string; nodes: unknown[] }) => `${v.id} (${v.nodes.length})`);
}

// The operator console in real Chromium against a real server on SQLite (videos on disk) and on
// PostgreSQL (videos in an S3 stand-in, so the task page's player follows a redirect to another origin).
const skip = browserUnavailable();
for (const [name, create] of [
  ['SQLite', createSqliteDatabase],
  ['PostgreSQL', createPostgresDatabase],
] as const) {
  const created = skip ? skip : await create();
  describe(`the operator console (${name})`, { skip: typeof created === 'string' ? created : false }, () => {
    let db: TestDatabase;
    let running: OperatorConsoleService;
    let svc: EconomicsService;
    let browser: TestBrowser;
    let page: Page;
    let key = '';
    before(async () => {
      db = created as TestDatabase;
      running = await startOperatorConsoleService(name === 'PostgreSQL' ? db.location : undefined, {
        s3: name === 'PostgreSQL',
      });
      svc = running.svc;
      browser = await launchBrowser();
      page = await browser.newPage();
    });
    after(async () => {
      await browser?.close();
      await running?.close();
      await db?.drop();
    });

    it('serves /admin with no-store and a strict CSP; a wrong token is refused and shows nothing', async () => {
      const answer = await fetch(`${svc.url}/admin`);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
      const csp = answer.headers.get('content-security-policy') ?? '';
      assert.match(csp, /script-src 'self'/);
      // Videos and posters load from this origin and, with S3, from its origin alone (presigned links
      // redirect there).
      const s3 = running.s3 ? ` ${new URL(running.s3.endpoint).origin}` : '';
      assert.match(csp, new RegExp(`img-src 'self' data: blob:${s3};`));
      assert.match(csp, new RegExp(`media-src 'self' blob:${s3};`));
      await page.goto(`${svc.url}/admin`);
      await page.getByLabel('Admin token').fill('wrong-token');
      await page.keyboard.press('Enter');
      await page.getByRole('alert').filter({ hasText: 'wrong' }).waitFor();
      assert.equal(await page.getByRole('navigation').locator('a').count(), 0, 'nothing shown');
      await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await page.keyboard.press('Enter');
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      assert.deepEqual(await page.getByRole('navigation').locator('a').allTextContents(), VIEWS);
      assert.equal(await page.evaluate(() => sessionStorage.getItem('vidgen.admin.token')), ADMIN_TOKEN);
      assert.equal(await page.evaluate(() => localStorage.length + document.cookie.length), 0);
    });

    it('makes an account with credits, its key (shown once) and a grant, in USD', async () => {
      await page.getByRole('link', { name: 'Accounts' }).click();
      await page.getByLabel('Account id', { exact: true }).fill('browser-acme');
      await page.getByLabel('Credits').fill('20');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Account browser-acme' }).waitFor();
      await page.getByRole('button', { name: 'Create key' }).click();
      key = (await page.locator('#new-key').textContent()) ?? '';
      assert.match(key, /^\S{20,}$/);
      await page.getByLabel('Amount').fill('0.0000000001');
      await page.getByLabel('Reason').fill('a tick');
      await page.getByRole('button', { name: 'Grant credits' }).click();
      await page.getByText('Granted $0.0000000001.').waitFor();
      const account = await svc.admin.get('/admin/v1/accounts/browser-acme');
      assert.equal(account.body.balance_usd_ticks, 200_000_000_001, 'exactly $20 and one tick');
      await page.getByLabel('Amount').fill('0.00000000001');
      await page.getByRole('button', { name: 'Grant credits' }).click();
      await page.getByText('At most 10 decimal places').waitFor();
      // Zero retention, beside the allowed service tiers; the API refuses what is not a boolean.
      await page.getByLabel('Zero retention').selectOption('on');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('region', { name: 'Account' }).getByRole('cell', { name: 'on', exact: true }).waitFor();
      assert.equal((await svc.admin.get('/admin/v1/accounts/browser-acme')).body.zero_retention, true);
      await page.getByLabel('Zero retention').selectOption('off');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByRole('region', { name: 'Account' }).getByRole('cell', { name: 'off', exact: true }).waitFor();
      assert.deepEqual(await axeProblems(page), [], 'the account page');
      const bad = await svc.admin.call('PATCH', '/admin/v1/accounts/browser-acme', { zero_retention: 'yes' });
      assert.deepEqual([bad.status, bad.body.error.param], [400, 'zero_retention']);
      assert.equal((await svc.admin.get('/admin/v1/accounts/browser-acme')).body.zero_retention, false);
      await page.reload();
      await page.getByRole('heading', { name: 'Account browser-acme' }).waitFor();
      assert.equal(await page.locator('#new-key').count(), 0, 'the key is shown only once');
      await page.getByRole('cell', { name: 'initial credits' }).waitFor();
      if (name === 'SQLite') await keepScreenshot(page, 'account-desktop');
    });

    it('sees the account’s new task arrive in Tasks and finish without reloading, rendered as text; refunds it', async () => {
      await page.getByRole('link', { name: 'Tasks' }).click();
      await page.getByRole('heading', { name: 'Tasks' }).waitFor();
      const client = api(svc.url, key);
      const task = (await client.post('/v1/video/generations', { model: 'tiny-1s', prompt: HOSTILE })).body.task_id;
      const row = page.getByRole('row').filter({ hasText: task.slice(0, 13) });
      await row.filter({ hasText: 'succeeded' }).waitFor({ timeout: 120_000 });
      assert.ok((await row.textContent())?.includes(HOSTILE), 'the prompt is shown as text');
      assert.equal(await page.evaluate(() => (window as any).__pwned), undefined, 'and never run');
      await row.getByRole('link').click();
      await page.getByRole('heading', { name: `Task ${task}` }).waitFor();
      await page.locator('video').waitFor();
      // The player really loads the video, wherever the content link redirects (the CSP's media-src).
      await page.waitForFunction(() => (document.querySelector('video')?.readyState ?? 0) >= 1);
      assert.deepEqual(await axeProblems(page), [], 'the task page');
      await page.getByLabel('Amount').fill('0.05');
      await page.getByLabel('Reason').fill('too dark');
      await page.getByRole('button', { name: 'Refund' }).click();
      await page.getByText('Refunded $0.05.').waitFor();
      await screenshot(page, `operator-task-${name}`);
    });

    it('disables a channel in Channels, and the next task is routed to the other', async () => {
      const client = api(svc.url, await svc.account('relay-user'));
      const finish = async () => {
        const id = (await client.post('/v1/video/generations', { model: RELAY_MODEL, prompt: 'harbour at dusk' })).body
          .task_id as string;
        const done = await pollUntil(
          () => client.get(`/v1/video/generations/${id}`),
          (a) => ['SUCCESS', 'FAILURE'].includes(a.body.status),
        );
        assert.equal(done.body.status, 'SUCCESS', JSON.stringify(done.body));
      };
      const received = () => [running.main.tasks.length, running.spare.tasks.length];
      await finish();
      assert.deepEqual(received(), [1, 0], 'the preferred channel takes the first');
      await page.getByRole('link', { name: 'Channels' }).click();
      await page.getByRole('button', { name: 'Disable main' }).click();
      await page.getByRole('button', { name: 'Enable main' }).waitFor();
      await finish();
      assert.deepEqual(received(), [1, 1], 'the disabled channel is skipped');
      await page.getByRole('button', { name: 'Enable main' }).click();
      await page.getByRole('button', { name: 'Disable main' }).waitFor();
      await finish();
      assert.deepEqual(received(), [2, 1], 'and taken again once enabled');
      const hosts = page.getByRole('region', { name: 'ComfyUI hosts' });
      await hosts.getByRole('cell', { name: 'gpu-1' }).waitFor();
      await page.getByText('kept per process').waitFor();
    });

    it('resends a failed delivery from Webhooks once the receiver recovers', async () => {
      const owner = api(svc.url, await svc.account('hooked', { credits_usd_ticks: 50_000_000_000 }));
      const endpoint = (await owner.post('/v1/webhooks', { url: running.inbox.url, events: ['video.completed'] })).body;
      const id = (await owner.post('/v1/video/generations', { model: 'tiny-1s', prompt: 'a lighthouse' })).body.task_id;
      await pollUntil(
        () => svc.admin.get('/admin/v1/deliveries?status=failed'),
        (a) => a.body.data.some((d: any) => d.task_id === id),
      );
      running.inbox.healthy = true;
      await page.getByRole('link', { name: 'Webhooks' }).click();
      const failed = page.getByRole('region', { name: 'Failed deliveries' });
      const row = failed.getByRole('row').filter({ hasText: 'hooked' }).filter({ hasText: 'video.completed' });
      await row.getByRole('button', { name: 'Resend' }).click();
      await page.getByText('Sent again.').waitFor();
      await running.inbox.until((all) => all.filter((r) => r.body.includes(id)).length === 2);
      await pollUntil(
        () => svc.admin.get(`/admin/v1/webhooks/${endpoint.id}/deliveries`),
        (a) => a.body.data.some((d: any) => d.task_id === id && d.status === 'delivered'),
      );
      await row.waitFor({ state: 'detached' });
    });

    it('reads Usage’s table under the chart', async () => {
      await page.getByRole('link', { name: 'Usage' }).click();
      const table = page.getByRole('region', { name: 'Spend per hour, last 48 hours: numbers' });
      await table.getByRole('cell', { name: 'browser-acme' }).first().waitFor();
      assert.ok((await table.textContent())?.includes('$0.05'), 'spend $0.10 less the $0.05 refund');
      assert.ok(await page.locator('figure canvas').count(), 'uPlot drew the charts');
    });

    it('every view: no serious axe violation, nothing sideways at 375 px; screenshots', async () => {
      const phone = await browser.newPage(PHONE);
      // sessionStorage is per tab: a new tab asks for the token again.
      await phone.goto(`${svc.url}/admin`);
      await phone.getByLabel('Admin token').fill(ADMIN_TOKEN);
      await phone.keyboard.press('Enter');
      await phone.getByRole('button', { name: 'Sign out' }).waitFor();
      for (const view of VIEWS) {
        for (const [p, size] of [
          [page, 'desktop'],
          [phone, 'phone'],
        ] as const) {
          await p.getByRole('link', { name: view }).click();
          await p.getByRole('heading', { level: 1, name: view }).waitFor();
          await p.waitForLoadState('networkidle');
          assert.deepEqual(await axeProblems(p), [], `${view} (${size})`);
          if (size === 'phone') assert.equal(await scrollsSideways(p), false, `${view} scrolls sideways at 375 px`);
          if (name === 'SQLite') await keepScreenshot(p, `${view.toLowerCase()}-${size}`);
        }
      }
      await phone.close();
    });

    it('shows an account named <img …> and its prompt as text on every view, and runs nothing', async () => {
      // The API refuses such a name, but the console does not rely on it: a name written by an older
      // version or by hand in the database is shown as text all the same.
      const owner = api(svc.url, await svc.account('renamed-later', { credits_usd_ticks: 50_000_000_000 }));
      await owner.post('/v1/webhooks', { url: running.inbox.url, events: ['video.failed'] });
      const id = (await owner.post('/v1/video/generations', { model: 'tiny-1s', prompt: HOSTILE })).body.task_id;
      await pollUntil(
        () => owner.get(`/v1/video/generations/${id}`),
        (a) => a.body.status === 'SUCCESS',
      );
      await renameAccount(
        name === 'PostgreSQL' ? db.location : join(svc.dataDir, 'vidgen.db'),
        'renamed-later',
        HOSTILE,
      );
      const shown = async (where: string, times = 1) => {
        await page
          .getByText(HOSTILE)
          .nth(times - 1)
          .waitFor();
        assert.equal(await page.locator('img[src="x"]').count(), 0, `${where}: no element made of it`);
        assert.equal(await page.evaluate(() => (window as any).__pwned), undefined, `${where}: nothing ran`);
      };
      await page.getByRole('link', { name: 'Accounts' }).click();
      await shown('Accounts');
      await page.getByRole('link', { name: HOSTILE }).click();
      await page.getByRole('heading', { name: `Account ${HOSTILE}` }).waitFor();
      await shown('its page');
      await page.getByRole('link', { name: 'Tasks' }).click();
      const row = page.getByRole('row').filter({ hasText: id.slice(0, 13) });
      await row.waitFor();
      assert.equal((await row.textContent())?.split(HOSTILE).length, 3, 'account and prompt, both as text');
      await shown('Tasks');
      await row.getByRole('link').click();
      await page.getByRole('heading', { name: `Task ${id}` }).waitFor();
      await shown('the task page', 2);
      await page.getByRole('link', { name: 'Usage' }).click();
      await page
        .getByRole('region', { name: 'Spend per hour, last 48 hours: numbers' })
        .getByText(HOSTILE)
        .first()
        .waitFor();
      await shown('Usage');
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('region', { name: 'Endpoints, failing first' }).getByText(HOSTILE).waitFor();
      await shown('Webhooks');
    });

    it('signs out and forgets the token', async () => {
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Admin token').waitFor();
      assert.equal(await page.evaluate(() => sessionStorage.getItem('vidgen.admin.token')), null);
      assert.deepEqual(browser.problems, []);
    });
  });
}
