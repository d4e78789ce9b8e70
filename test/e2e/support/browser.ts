import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`); override for other systems. */
export const CHROMIUM_PATH = process.env.VIDGEN_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(process.cwd(), 'test-output', 'screenshots');

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 375, height: 812 };

/** Why browser tests cannot run here, or undefined when they can; throws under CI=true instead of a reason. */
export function browserUnavailable(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const reason = `Chromium not found at ${CHROMIUM_PATH}: install it (apt-get install -y chromium) or set VIDGEN_TEST_CHROMIUM`;
  // CI installs Chromium (.ci/run): there a missing browser is a failure, never a skip.
  if (process.env.CI === 'true') throw new Error(`${reason} (CI=true: a missing service is a failure)`);
  return reason;
}

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab; every console message of type error and every uncaught exception lands in `problems`. */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** Errors the pages reported (CSP violations show up here too), except HTTP 4xx answers. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Headless Chromium with a fresh profile, so no cache, storage or permission leaks between
 * runs; background services are off so the browser makes no requests of its own.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'vidgen-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: DESKTOP,
  });
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('console', (msg) => {
      // Chromium logs every 4xx answer; the refusals the tests provoke are checked by the tests themselves.
      if (
        msg.type() === 'error' &&
        !/^Failed to load resource: the server responded with a status of 4\d\d/.test(msg.text())
      ) {
        problems.push(`console: ${msg.text()}`);
      }
    });
    page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  };
  context.on('page', watch);
  return {
    context,
    problems,
    async newPage(viewport = DESKTOP) {
      const page = await context.newPage();
      await page.setViewportSize(viewport);
      return page;
    },
    async close() {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page (or with `fullPage: false`, the viewport's) screenshot as `test-output/screenshots/<name>.png`. */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage, animations: 'disabled' });
  return path;
}

/** True when the page is wider than its viewport (a phone would scroll sideways). */
export function scrollsSideways(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
}

/** Chromium with a desktop-sized page, once the service answers the console at `/`. */
export async function openConsole(serviceUrl: string): Promise<{ browser: TestBrowser; page: Page }> {
  const root = await fetch(`${serviceUrl}/`);
  if (root.status === 404)
    throw new Error('the console is not served: GET / answered 404 (registerConsoleRoutes in app.ts)');
  const browser = await launchBrowser();
  return { browser, page: await browser.newPage(DESKTOP) };
}

/** Signs in to the console at `url` with an API key and waits until it shows the signed-in page. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * The page header's items (brand, balance, Sign out) whose text takes more than one line, as "text: N lines". Lines
 * are counted from where the item's text boxes sit, so a tall button with one line of text is one line.
 */
export function headerItemsOnSeveralLines(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('header.top .brand, header.top #session > *')].flatMap((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const tops = [...range.getClientRects()].filter((r) => r.width > 0).map((r) => r.top);
      const lineHeight = Number.parseFloat(getComputedStyle(el).lineHeight) || 16;
      const lines = new Set(tops.map((top) => Math.round(top / (lineHeight / 2)))).size;
      return lines > 1 ? [`${el.textContent?.trim()}: ${lines} lines`] : [];
    }),
  );
}

/**
 * What fails to name a form control: a `<label>` with no text of its own (beside the control it wraps) or tied to
 * no control, and any control the accessibility tree (Chromium's, as screen readers get it) gives no name.
 */
export async function unnamedFormParts(page: Page): Promise<string[]> {
  const labels = await page.evaluate(() =>
    [...document.querySelectorAll('label')].flatMap((label) => {
      const own = [...label.childNodes]
        .filter((n) => !(n instanceof Element && n.matches('input, select, textarea')))
        .map((n) => n.textContent ?? '')
        .join('')
        .trim();
      if (!own) return [`label without text: ${label.outerHTML}`];
      return label.control ? [] : [`label "${own}" names no control`];
    }),
  );
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
      nodes: { ignored: boolean; role?: { value: string }; name?: { value: string } }[];
    };
    const controls = ['textbox', 'combobox', 'checkbox', 'spinbutton', 'radio', 'slider', 'searchbox', 'button'];
    const unnamed = nodes
      .filter((n) => !n.ignored && controls.includes(n.role?.value ?? '') && !n.name?.value?.trim())
      .map((n) => `a ${n.role?.value} without an accessible name`);
    return [...labels, ...unnamed];
  } finally {
    await cdp.detach();
  }
}
