/**
 * End to end: browser mode served from the built renderer, driven in Chromium. Clicks through
 * every screen, runs a background job from the UI and watches the job tray, switches theme, and
 * checks that an API error reaches the error surface (its field path shown as the screen's label).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser, openJobTray, screenshot } from '../support/browser';

/** Runs in the page (a function, not a string: the app's CSP forbids eval). */
const isDarkTheme = () => (globalThis as unknown as { document: { documentElement: { dataset: Record<string, string | undefined> } } }).document.documentElement.dataset.theme === 'dark';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'e2e.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
  await page.goto(app.server.launchUrl);
  await page.getByTestId('workspace-indicator').getByText('e2e.fairground').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('app shell in Chromium (browser mode)', () => {
  it('takes the token out of the address bar', async () => {
    expect(page.url()).not.toContain('token=');
  });

  it('clicks through every screen', async () => {
    for (const [id, heading] of [
      ['collections', 'Collections'],
      ['models', 'Models'],
      ['experiments', 'Experiments'],
      ['results', 'Results'],
      ['conversations', 'Conversations'],
      ['settings', 'Settings'],
    ] as const) {
      await page.locator(`nav a[data-screen="${id}"]`).click();
      await page.getByTestId(`screen-${id}`).waitFor();
      expect(await page.locator('main h1').textContent()).toBe(heading);
      expect(await page.locator(`nav a[data-screen="${id}"]`).getAttribute('aria-current')).toBe('page');
      await screenshot(page, `screen-${id}`);
    }
  });

  it('navigates with the keyboard (Alt+2 → Models)', async () => {
    await page.keyboard.press('Alt+2');
    await page.getByTestId('screen-models').waitFor();
    expect(page.url()).toContain('#/models');
  });

  it('runs a workspace check as a job and shows it finished in the job tray', async () => {
    await page.locator('nav a[data-screen="settings"]').click();
    await page.getByTestId('check-workspace').click();
    await openJobTray(page); // the tray starts collapsed (issue 17 item 1)
    const job = page.getByTestId('job-tray').locator('[data-testid="job"][data-status="succeeded"]').first();
    await job.waitFor({ timeout: 15_000 });
    expect(await job.textContent()).toContain('Check workspace integrity');
    expect(await job.textContent()).toContain('workspace is healthy');
  });

  it('switches to the dark theme and keeps it in the workspace settings', async () => {
    await page.getByTestId('theme-select').selectOption('dark');
    await page.waitForFunction(isDarkTheme);
    await screenshot(page, 'settings-dark');
    expect((await app.services.settings.get()).theme).toBe('dark');
    await page.reload();
    await page.waitForFunction(isDarkTheme);
    await page.getByTestId('theme-select').selectOption('light');
  });

  it('shows a validation error from the API with the field named as on screen', async () => {
    await page.locator('nav a[data-screen="settings"]').click();
    const threads = page.getByTestId('threads-input');
    await threads.fill('9999');
    await threads.press('Tab');
    const err = page.getByTestId('error').first();
    await err.waitFor();
    // The API's message, its field path shown as the screen's label (issue 26: no `threads`, `folders[0]`).
    expect(await err.textContent()).toContain('Threads: Too big: expected number to be <=512');
    expect(await err.textContent()).toContain('Field: Threads');
    await screenshot(page, 'error-surface');
    await err.getByRole('button', { name: 'Dismiss error' }).click();
    expect(await page.getByTestId('error').count()).toBe(0);
  });
});
