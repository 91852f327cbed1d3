/**
 * Debian's Chromium driven by playwright-core (no browser download). Flags follow what works on
 * these machines: no sandbox as root, no background networking (the network is closed).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Download, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { filesOf } from './zip';

export function chromiumPath(): string {
  const path = process.env.CHROME_PATH ?? '/usr/bin/chromium';
  if (!existsSync(path)) throw new Error(`Chromium not found at ${path}: install Debian's chromium or set CHROME_PATH`);
  return path;
}

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
  // On a busy shared machine the first load (parsing the bundle, plotly included) can pass 30 s:
  // give navigations two minutes so a slow machine is not a failed test.
  const newPage = browser.newPage.bind(browser);
  browser.newPage = async (...args: Parameters<Browser['newPage']>) => {
    const page = await newPage(...args);
    page.setDefaultNavigationTimeout(120_000);
    return page;
  };
  return browser;
}

export const SCREENSHOT_DIR = join(process.cwd(), 'test', 'e2e', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/** Expand the job tray (it starts collapsed and stays so when jobs start). */
export async function openJobTray(page: Page): Promise<void> {
  const toggle = page.getByTestId('job-tray-toggle');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
}

/**
 * Runs in the page: scrolls every visible control (button, link styled as one, form field) into
 * view and hit-tests its centre. Returns one line per control that something else covers, naming
 * the control and what covers it. (A function, not a string: the app's CSP forbids eval.)
 */
export const coveredControls = (): string[] => {
  interface El {
    tagName: string;
    textContent: string | null;
    getAttribute(n: string): string | null;
    getBoundingClientRect(): { left: number; top: number; width: number; height: number };
    scrollIntoView(o: object): void;
    contains(o: unknown): boolean;
    closest(s: string): El | null;
    className: unknown;
  }
  const g = globalThis as unknown as {
    document: { querySelectorAll(s: string): ArrayLike<El>; elementFromPoint(x: number, y: number): El | null };
    getComputedStyle(e: El): { visibility: string; display: string; pointerEvents: string };
    innerWidth: number;
    innerHeight: number;
  };
  const name = (e: El | null): string => {
    if (!e) return 'nothing';
    const id = e.closest('[data-testid]')?.getAttribute('data-testid');
    const text = (e.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    return `${e.tagName.toLowerCase()}${typeof e.className === 'string' && e.className ? '.' + e.className.split(' ')[0] : ''}${id ? `[${id}]` : ''} "${text}"`;
  };
  const out: string[] = [];
  const all = Array.from(g.document.querySelectorAll('button, a.button-link, select, input:not([type="hidden"]), textarea, summary'));
  for (const el of all) {
    const r0 = el.getBoundingClientRect();
    if (r0.width < 2 || r0.height < 2) continue;
    const style = g.getComputedStyle(el);
    if (style.visibility === 'hidden' || style.pointerEvents === 'none') continue;
    if (el.closest('dialog:not([open])')) continue;
    // Content of a closed <details> is laid out but not rendered (content-visibility); its summary is shown.
    const closed = el.closest('details:not([open])');
    if (closed && !(el.tagName === 'SUMMARY' && el.closest('details') === closed)) continue;
    el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2;
    const y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= g.innerWidth || y >= g.innerHeight) {
      out.push(`${name(el)} cannot be scrolled into the window`);
      continue;
    }
    const hit = g.document.elementFromPoint(x, y);
    if (!hit || !(hit === el || el.contains(hit))) out.push(`${name(el)} is covered by ${name(hit)}`);
  }
  return out;
};

/**
 * Clicks `testId` and returns the files of the download it starts (a .zip unpacked). One click, one download
 * (issue 26 item 6): an export with its manifest comes as one .zip, so a second download fails the test.
 */
export async function downloadFiles(page: Page, testId: string): Promise<{ name: string; body: Buffer }[]> {
  const got: Download[] = [];
  const onDownload = (d: Download) => got.push(d);
  page.on('download', onDownload);
  await page.getByTestId(testId).click();
  await expect.poll(() => got.length, { timeout: 10_000 }).toBeGreaterThan(0);
  await page.waitForTimeout(300);
  page.off('download', onDownload);
  if (got.length > 1) throw new Error(`one click gave ${got.length} downloads`);
  const files = await Promise.all(got.map(async (d) => filesOf(d.suggestedFilename(), readFileSync((await d.path())!))));
  return files.flat();
}
