import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { startTestService, type TestService } from './support/service.ts';
import { makeImage } from './support/images.ts';
import { api } from './support/http.ts';
import { formatUsdTicks } from '../../packages/client/src/index.ts';
import {
  browserUnavailable,
  openConsole,
  screenshot,
  scrollsSideways,
  PHONE,
  DESKTOP,
  type TestBrowser,
} from './support/browser.ts';

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Serious or critical axe violations of the page as it is now (axe injected through the debugger, past the CSP). */
async function axeProblems(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(async () => (globalThis as any).axe.run(document));
  return result.violations
    .filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical')
    .map((v: { id: string; nodes: unknown[] }) => `${v.id} (${v.nodes.length})`);
}

// The web console in real Chromium against a real server: sign in, submit with both families
// (text-to-video, and image-to-video from an uploaded first frame), watch progress, survive a
// reload, play the results inline (seeking included), and sign out.
const skip = browserUnavailable();

describe('web console journey', { skip }, () => {
  let svc: TestService;
  let browser: TestBrowser;
  let key: string;
  let page: Page;
  /** Each task's timing line as this tab showed it when the task ended here, by task id. */
  const timingsSeenLive = new Map<string, string>();
  before(async () => {
    svc = await startTestService();
    key = await svc.createKey('console');
    ({ browser, page } = await openConsole(svc.url));
  });
  after(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('refuses a wrong key with the server’s message, then signs in by keyboard', async () => {
    await page.goto(svc.url);
    await screenshot(page, 'sign-in-desktop');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'api-key', 'the key field has focus');
    await page.keyboard.type('not-a-key');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'not valid' }).waitFor();
    await page.getByLabel('API key').fill(key);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('vidgen.console.apiKey')), key);
    const options = await page.getByLabel('Model', { exact: true }).locator('option').allTextContents();
    for (const id of ['vx-imagine-video-1.5-720p', 'video-v1-5s'])
      assert.ok(
        options.some((o) => o.startsWith(id)),
        `model ${id} offered`,
      );
  });

  it('submits text-to-video (family B) and image-to-video with an uploaded first frame (family A), following both live', async () => {
    const requests: string[] = [];
    const record = (request: { url(): string }) =>
      requests.push(new URL(request.url()).pathname + new URL(request.url()).search);
    page.on('request', record);
    await page.getByLabel('Model', { exact: true }).selectOption('video-v1-5s');
    await page.getByLabel('Prompt').fill('sunset over the ocean, pan left');
    await page.getByLabel('Aspect ratio').selectOption('16:9');
    await page.getByRole('button', { name: 'Generate' }).click();
    const taskB = page.locator('li.task[data-family="B"]').first();
    await taskB.waitFor();
    assert.match((await taskB.locator('.task-status').textContent()) ?? '', /Queued|Running/);

    await page.getByLabel('Model', { exact: true }).selectOption('vx-imagine-video-1.5-720p');
    await page.getByLabel('Prompt').fill('slow zoom in on the harbour');
    await page
      .getByLabel('First frame file')
      .setInputFiles({ name: 'frame.png', mimeType: 'image/png', buffer: await makeImage(640, 360) });
    await page.getByLabel('Duration').fill('2');
    await page.getByLabel('Aspect ratio').selectOption('16:9');
    await page.getByRole('button', { name: 'Generate' }).click();
    const taskA = page.locator('li.task[data-family="A"]').first();
    await taskA.waitFor();
    await page.locator('li.task[data-phase="pending"] progress').first().waitFor();
    await screenshot(page, 'tasks-running-desktop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'tasks-running-phone');
    await page.setViewportSize(DESKTOP);

    for (const task of [taskA, taskB]) {
      const id = await task.getAttribute('data-task-id');
      await page.locator(`li.task[data-task-id="${id}"][data-phase="succeeded"]`).waitFor({ timeout: 180_000 });
    }
    assert.equal(await taskA.locator('.task-status').textContent(), 'Done');
    assert.equal(await taskB.getAttribute('data-status'), 'SUCCESS');
    // A task that ended in front of the user shows the server's times, as the listing after a reload will.
    for (const task of [taskA, taskB]) {
      const timing = task.locator('.task-timing');
      await timing.filter({ hasText: / · waited \d+:\d\d · rendered \d+:\d\d/ }).waitFor();
      timingsSeenLive.set((await task.getAttribute('data-task-id'))!, (await timing.textContent())!);
    }
    assert.equal(timingsSeenLive.size, 2);
    page.off('request', record);
    // Both tasks came live through their event streams (docs/streams.md), with no poll of either.
    const idA = await taskA.getAttribute('data-task-id');
    const idB = await taskB.getAttribute('data-task-id');
    for (const path of [`/v1/videos/${idA}`, `/v1/video/generations/${idB}`]) {
      assert.ok(requests.includes(`${path}/events`), `${path}/events in ${requests.join(' ')}`);
      assert.ok(!requests.some((r) => r.startsWith(`${path}?`) || r === path), `no poll of ${path}`);
    }
  });

  it('keeps the list and each task’s family across a reload, and plays both results with seeking', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    const taskA = page.locator('li.task[data-family="A"][data-phase="succeeded"]').first();
    const taskB = page.locator('li.task[data-family="B"][data-phase="succeeded"]').first();
    await taskA.waitFor();
    await taskB.waitFor();
    assert.equal(await taskA.locator('.task-prompt').textContent(), 'slow zoom in on the harbour');
    // The same words as when they ended live: both read the server's created, started and finished times.
    for (const [id, live] of timingsSeenLive)
      assert.equal(await page.locator(`li.task[data-task-id="${id}"] .task-timing`).textContent(), live, id);

    for (const [task, seconds] of [
      [taskB, 5],
      [taskA, 2],
    ] as const) {
      await task.getByRole('button', { name: 'Play' }).click();
      const video = task.locator('video');
      await video.waitFor();
      await page.waitForFunction((el) => (el as HTMLVideoElement).readyState >= 3, await video.elementHandle(), {
        timeout: 30_000,
      });
      const duration = await video.evaluate((el: HTMLVideoElement) => el.duration);
      assert.ok(Math.abs(duration - seconds) < 0.2, `video plays ${duration} s, expected ${seconds}`);
      // Seeking near the end needs Range support: the element fetches only that part.
      const seeked = await video.evaluate(
        (el: HTMLVideoElement, to: number) =>
          new Promise<number>((resolve, reject) => {
            el.pause();
            el.addEventListener('seeked', () => resolve(el.currentTime), { once: true });
            el.addEventListener('error', () => reject(new Error('video error')), { once: true });
            el.currentTime = to;
          }),
        seconds - 0.5,
      );
      assert.ok(Math.abs(seeked - (seconds - 0.5)) < 0.2, `seeked to ${seeked}`);
      const href = await task.getByRole('link', { name: 'Download MP4' }).getAttribute('href');
      assert.match(href ?? '', /\/content\?expires=\d+&kid=.+&sig=/);
    }
    await screenshot(page, 'tasks-done-desktop');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'tasks-done-dark-desktop');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(PHONE);
    await page.getByText('Models available to this key').click();
    assert.equal(await scrollsSideways(page), false, 'no horizontal scroll at 375 px');
    await screenshot(page, 'tasks-done-phone');
    await page.setViewportSize(DESKTOP);
  });

  it('shows posters, prompts, models and timings, keeps Generate on the first screen, and edits and extends a video', async () => {
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    // Text-to-video needs nothing but a prompt: it is what the form offers first.
    assert.equal(await page.getByLabel('Model', { exact: true }).inputValue(), 'video-v1-5s');
    const generate = await page.getByRole('button', { name: 'Generate' }).boundingBox();
    assert.ok(
      generate && generate.y + generate.height <= DESKTOP.height,
      `Generate ends at ${generate && generate.y + generate.height} px, below the first screen`,
    );
    const taskA = page.locator('li.task[data-family="A"][data-phase="succeeded"]').first();
    await page.locator('li.task[data-poster="shown"]').nth(1).waitFor();
    const poster = taskA.locator('.task-poster img');
    assert.ok(
      await poster.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 640),
      'the poster is loaded',
    );
    assert.equal(await taskA.locator('.task-model').textContent(), 'vx-imagine-video-1.5-720p');
    // The cost is the server's settled price, written as dollars exactly (an unmetered account sees it too).
    const usage = (await api(svc.url, key).get(`/v1/videos/${await taskA.getAttribute('data-task-id')}`)).body.usage;
    const cost = formatUsdTicks(usage.cost_in_usd_ticks).replace('$', '\\$').replace('.', '\\.');
    assert.match(
      (await taskA.locator('.task-timing').textContent()) ?? '',
      new RegExp(`^2 s video · waited \\d+:\\d\\d · rendered \\d+:\\d\\d · cost ${cost}$`),
    );
    assert.equal(await page.locator('.balance').textContent(), 'Not metered');
    await screenshot(page, 'console-1280x800', { fullPage: false });
    await page.setViewportSize(PHONE);
    assert.equal(await scrollsSideways(page), false, 'no horizontal scroll at 375 px');
    await page.locator('#tasks-title').scrollIntoViewIfNeeded();
    await page.evaluate(() => document.getElementById('tasks-title')?.scrollIntoView());
    await screenshot(page, 'console-375x812', { fullPage: false });
    await page.setViewportSize(DESKTOP);

    const before = await page.locator('li.task').count();
    await taskA.getByRole('button', { name: 'Edit' }).click();
    await taskA.getByLabel('New prompt').fill('the same harbour in black and white');
    await taskA.getByRole('button', { name: 'Submit edit' }).click();
    await page.locator('li.task').nth(before).waitFor();
    assert.equal(await page.locator('li.task').first().locator('.task-model').textContent(), 'vx-imagine-video-edit');
    assert.equal(
      await page.locator('li.task').first().locator('.task-prompt').textContent(),
      'the same harbour in black and white',
    );
    await taskA.getByRole('button', { name: 'Extend' }).click();
    await taskA.getByLabel('What happens next').fill('the camera keeps rising');
    await taskA.getByLabel('Seconds to add').fill('1');
    await taskA.getByRole('button', { name: 'Submit extension' }).click();
    await page
      .locator('li.task')
      .nth(before + 1)
      .waitFor();
    assert.equal(await page.locator('li.task').first().locator('.task-model').textContent(), 'vx-imagine-video-extend');
    await page.locator('li.task[data-phase="pending"]').first().waitFor({ state: 'detached', timeout: 180_000 });
  });

  it('takes a last frame and reference images, and shows a task’s inputs as thumbnails; axe clean, nothing sideways', async () => {
    await page.getByLabel('Model', { exact: true }).selectOption('grok-imagine-video-1.5');
    await page.getByLabel('Prompt').fill('a harbour at dawn, slow push in');
    const png = async (w: number, h: number) => ({ mimeType: 'image/png', buffer: await makeImage(w, h) });
    await page.getByLabel('First frame file').setInputFiles({ name: 'first.png', ...(await png(640, 360)) });
    await page.getByText('Last frame (optional)').click();
    await page.getByLabel('Last frame file').setInputFiles({ name: 'last.png', ...(await png(320, 240)) });
    await page.getByText('Reference images (optional)').click();
    await page.getByLabel('Reference image files').setInputFiles([
      { name: 'ref-1.png', ...(await png(200, 200)) },
      { name: 'ref-2.jpg', mimeType: 'image/jpeg', buffer: await makeImage(300, 200, 'jpeg') },
    ]);
    await page.getByLabel('Duration').fill('1');
    const sent: Array<Record<string, unknown>> = [];
    const record = (request: { url(): string; method(): string; postDataJSON(): unknown }) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/v1/videos/generations')
        sent.push(request.postDataJSON() as Record<string, unknown>);
    };
    page.on('request', record);
    await page.getByRole('button', { name: 'Generate' }).click();
    const task = page.locator('li.task[data-family="A"]').first();
    await task.locator('.task-model', { hasText: 'grok-imagine-video-1.5' }).waitFor();
    page.off('request', record);
    assert.equal(sent.length, 1);
    assert.match(String((sent[0].image as { file_id?: string })?.file_id), /^file-/, 'the first frame uploaded');
    assert.match(String((sent[0].last_frame as { file_id?: string })?.file_id), /^file-/, 'the last frame uploaded');
    assert.equal((sent[0].reference_images as unknown[]).length, 2, 'both reference images sent');
    const thumbs = task.getByRole('list', { name: 'Inputs' }).getByRole('img');
    assert.deepEqual(await thumbs.evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).alt)), [
      'First frame',
      'Last frame',
      'Reference image 1',
      'Reference image 2',
    ]);
    assert.ok(
      await thumbs.first().evaluate((img: HTMLImageElement) => img.complete && img.naturalHeight === 72),
      'the thumbnail is drawn',
    );
    const id = await task.getAttribute('data-task-id');
    await page.locator(`li.task[data-task-id="${id}"][data-phase="succeeded"]`).waitFor({ timeout: 180_000 });
    // A reload keeps them: the tab remembers what it sent, as it remembers the prompt.
    await page.reload();
    const again = page.locator(`li.task[data-task-id="${id}"]`);
    await again.waitFor();
    assert.equal(await again.getByRole('list', { name: 'Inputs' }).getByRole('img').count(), 4);
    assert.deepEqual(await axeProblems(page), [], 'no serious axe violation (desktop)');
    await page.setViewportSize(PHONE);
    await page.getByLabel('Model', { exact: true }).selectOption('grok-imagine-video-1.5');
    await page.getByText('Last frame (optional)').click();
    await page.getByText('Reference images (optional)').click();
    assert.equal(await scrollsSideways(page), false, 'no horizontal scroll at 375 px');
    assert.deepEqual(await axeProblems(page), [], 'no serious axe violation (phone)');
    await page.setViewportSize(DESKTOP);
  });

  it('signs out: the key is gone from the tab and a reload asks for it again', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.length), 0);
    await page.reload();
    await page.getByLabel('API key').waitFor();
    await page.setViewportSize(PHONE);
    assert.equal(await scrollsSideways(page), false, 'no horizontal scroll at 375 px');
    await screenshot(page, 'sign-in-phone');
    assert.deepEqual(browser.problems, [], 'no console errors (CSP violations included)');
  });
});
