/**
 * End to end (issue 17 item 5): Settings → Workspace creates a new workspace and opens the first one
 * again from the recent list, in the running app, without restarting the server.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-ws-'));
  // A recent list of this test's own (other test files share the run's scratch config folder).
  process.env.FAIRGROUND_CONFIG_DIR = join(dir, 'config');
  app = await startBrowserMode({ workspacePath: join(dir, 'first.fairground') });
  app.services.collections.repo.create('only in first');
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(app.server.launchUrl);
  await page.getByTestId('workspace-indicator').getByText('first.fairground').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('workspaces in Chromium', () => {
  it('creates a new workspace from Settings and switches to it without a restart', async () => {
    await page.locator('nav a[data-screen="settings"]').click();
    await page.getByTestId('workspace-switcher').waitFor();
    await expect.poll(() => page.getByTestId('recent-workspace').count()).toBe(1);
    const target = join(dir, 'second.fairground');
    await page.getByTestId('workspace-new-path').fill(target);
    await page.getByTestId('workspace-create').click();
    await page.getByTestId('workspace-indicator').getByText('second.fairground').waitFor({ timeout: 30_000 });
    expect(existsSync(target)).toBe(true);
    expect(app.services.workspace.path).toBe(target);
    await page.locator('nav a[data-screen="collections"]').click();
    await expect.poll(() => page.getByText('only in first').count()).toBe(0);
  });

  it('opens the first workspace again from the recent list, with its collection', async () => {
    await page.locator('nav a[data-screen="settings"]').click();
    const first = page.locator('[data-testid="recent-workspace"][data-name="first"]');
    await first.getByTestId('recent-open').click();
    await page.getByTestId('workspace-indicator').getByText('first.fairground').waitFor({ timeout: 30_000 });
    await page.locator('nav a[data-screen="collections"]').click();
    await page.getByText('only in first').first().waitFor();
  });

  it('shows why a path is refused, at the form, and stays where it is', async () => {
    await page.locator('nav a[data-screen="settings"]').click();
    await page.getByTestId('workspace-new-path').fill(join(tmpdir(), 'outside-allowed', 'x.fairground'));
    await page.getByTestId('workspace-create').click();
    await expect.poll(() => page.getByTestId('workspace-switch-error').textContent()).toMatch(/no such folder|outside the folders/);
    await page.getByTestId('workspace-indicator').getByText('first.fairground').waitFor();
  });
});
