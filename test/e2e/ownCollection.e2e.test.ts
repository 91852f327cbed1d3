/**
 * End to end at 1366×768 (issue 26 item 3): on a collection of one's own, "Label utility" offers to
 * add a simulated reader for this collection (the demo's reader cannot label it and is not offered);
 * a BM25 run says which scorer scored which queries (in-memory Okapi k1 1.5 over candidates vs
 * FTS5 k1 1.2 Porter over the collection); Settings → Recent reopens a workspace in another folder,
 * and the user's allowed folders follow to the other workspace.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { launchBrowser, screenshot } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let mineId: number;
let demoId: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-own-'));
  for (const d of ['projA', 'projB', 'data']) mkdirSync(join(dir, d));
  // This test's own config folder (recent list, allowed folders): other files share the run's.
  process.env.FAIRGROUND_CONFIG_DIR = join(dir, 'config');
  app = await startBrowserMode({ workspacePath: join(dir, 'projA', 'a.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  demoId = app.services.collections.repo.byName('Fairground demo')!.id;
  mineId = app.services.collections.repo.create('my papers').id;
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  page.setDefaultTimeout(20_000);
  await page.goto(app.server.launchUrl);
  await page.getByTestId('screen-collections').waitFor();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function visit(hash: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
}

describe('a collection of one’s own', () => {
  it('Label utility offers a simulated reader for this collection, not the demo’s, and selects it once added', async () => {
    await visit(`#/collections/${mineId}`);
    await page.getByTestId('collection-name').waitFor();
    await page.getByTestId('label-utility-open').click();
    await page.getByTestId('label-utility-dialog').waitFor();
    const offer = page.getByTestId('label-sim-offer');
    await offer.waitFor();
    const options = async () => page.getByTestId('label-generator').locator('option').allTextContents();
    await expect.poll(options).toContain('fairground-tiny');
    expect(await options()).not.toContain('Simulated reader (lost in the middle)');
    await screenshot(page, 'label-sim-offer');
    await page.getByTestId('label-add-sim').click();
    await expect.poll(async () => page.getByTestId('label-generator').locator('option:checked').textContent()).toBe('Simulated reader of my papers');
    expect(await page.getByTestId('label-sim-note').textContent()).toContain('is a simulated reader, not a language model');
    expect(await offer.count()).toBe(0);
    const added = app.services.models.list().find((m) => m.name === 'Simulated reader of my papers');
    expect(added).toMatchObject({ kind: 'sim' });
    expect((added!.metadata.profile as { collection: string }).collection).toBe('my papers');
    await page.keyboard.press('Escape');
  });

  it('a BM25 run names both scorers and how many queries each scored', async () => {
    await visit(`#/collections/${demoId}/runs`);
    await page.getByTestId('runs-tab').waitFor();
    expect(await page.getByTestId('run-method').locator('option[value="bm25"]').textContent()).toBe(
      "BM25 (Okapi k1 1.5 over a query's candidates; FTS5 k1 1.2, Porter, over the collection otherwise)",
    );
    await page.getByTestId('run-name').fill('bm25 own');
    await page.getByTestId('run-start').click();
    const row = page.locator('[data-testid="stored-run"]', { hasText: 'bm25 own' });
    await row.waitFor();
    // The demo: 8 LaMP-style queries with candidate profiles, 4 multi-aspect queries over the whole collection.
    expect(await row.getByTestId('run-method-label').textContent()).toBe(
      'BM25: Okapi BM25 in memory, k1 1.5, b 0.75, word tokens, no stemming (8 queries over their candidates); SQLite FTS5 bm25(), k1 1.2, b 0.75, Porter (4 queries over the collection)',
    );
    const box = await row.getByTestId('run-method-label').boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(1366);
    await screenshot(page, 'bm25-scorers');
  });

  it('Recent reopens a workspace in another folder; the allowed folders follow', async () => {
    app.services.paths.setAllowedFolders([join(dir, 'projB'), join(dir, 'data')]);
    await visit('#/settings');
    await page.getByTestId('workspace-switcher').waitFor();
    await page.getByTestId('workspace-new-path').fill(join(dir, 'projB', 'b.fairground'));
    await page.getByTestId('workspace-create').click();
    await page.getByTestId('workspace-indicator').getByText('b.fairground').waitFor({ timeout: 30_000 });
    expect(app.services.paths.allowedFolders().userFolders).toEqual([join(dir, 'projB'), join(dir, 'data')]);
    await visit('#/settings');
    const first = page.locator('[data-testid="recent-workspace"][data-name="a"]');
    await first.getByTestId('recent-open').click();
    await page.getByTestId('workspace-indicator').getByText('a.fairground').waitFor({ timeout: 30_000 });
    expect(app.services.workspace.path).toBe(join(dir, 'projA', 'a.fairground'));
    await expect.poll(() => page.getByTestId('workspace-switch-error').count()).toBe(0);
  });
});
