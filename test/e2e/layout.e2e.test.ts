/**
 * End to end (issue 17 item 1): nothing covers the work. At 1366×768 and 1440×900, on every screen,
 * with a running job with a long title, a failed job and an error toast present, and with the job
 * tray collapsed and expanded, every visible control is hit-tested (scrolled into view, its centre
 * must hit itself). Toasts are scoped to the screen that raised them; notices dismiss themselves.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { coveredControls, launchBrowser, openJobTray, screenshot } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
let collectionId: number;
let release: () => void = () => {};

const LONG_TITLE = `Import corpus 'a collection with a very long name that keeps going ${'and going '.repeat(8)}' from /data/corpora/msmarco-passage-v2/collection.tsv`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-layout-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'e2e.fairground') });
  collectionId = (await loadDemoCollection(app.services)).collectionId;
  const failed = app.services.jobs.start('test.fail', 'Import qrels into Weather', {}, () => Promise.reject(new Error('broken.qrels:2: columns: expected 4 columns, got 3')));
  await app.services.jobs.wait(failed.id);
  app.services.jobs.start('test.long', LONG_TITLE, {}, (ctx) => {
    ctx.progress(10, 1000, 'reading');
    return new Promise<void>((resolve) => (release = resolve));
  });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  page.setDefaultTimeout(60_000); // the 2-core test machine is shared: parsing the bundle can take 20 s
  await page.goto(app.server.launchUrl, { timeout: 120_000 });
  await page.getByTestId('screen-collections').waitFor();
}, 180_000);

afterAll(async () => {
  release();
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ROUTES = (): [string, string][] => [
  ['collections', '#/collections'],
  ['collections', `#/collections/${collectionId}`],
  ['collections', `#/collections/${collectionId}/queries`],
  ['collections', `#/collections/${collectionId}/queries/head-u1`],
  ['collections', `#/collections/${collectionId}/runs`],
  ['models', '#/models'],
  ['experiments', '#/experiments'],
  ['experiments', '#/experiments/new'],
  ['experiments', '#/experiments/new/moi'],
  ['experiments', '#/experiments/new/richrag'],
  ['results', '#/results'],
  ['results', `#/results/stored/${collectionId}`],
  ['conversations', '#/conversations'],
  ['settings', '#/settings'],
];

async function visit(screen: string, hash: string): Promise<void> {
  await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
  await page.getByTestId(`screen-${screen}`).waitFor();
  await page.waitForTimeout(400); // let the screen's data arrive and lay out
}

describe('nothing covers the work', () => {
  it('the tray starts collapsed with a badge of running and failed jobs, the latest title ellipsised', async () => {
    const tray = page.getByTestId('job-tray');
    expect(await page.getByTestId('job-tray-toggle').getAttribute('aria-expanded')).toBe('false');
    await expect.poll(() => page.getByTestId('badge-running').textContent()).toBe('1 running');
    expect(await page.getByTestId('badge-failed').textContent()).toBe('1 failed');
    expect(await tray.locator('[data-testid="job"]').count()).toBe(0);
    // The tray is one line high and sits below the screen, not over it.
    const trayBox = (await tray.boundingBox())!;
    const mainBox = (await page.locator('main').boundingBox())!;
    expect(trayBox.height).toBeLessThan(48);
    expect(trayBox.y).toBeGreaterThanOrEqual(mainBox.y + mainBox.height - 1);
  });

  it('an error toast shows on the screen that raised it only, in its own row above the screen', async () => {
    await visit('experiments', '#/experiments/987654');
    const toast = page.getByTestId('error').first();
    await toast.waitFor();
    const toastBox = (await toast.boundingBox())!;
    const mainBox = (await page.locator('main').boundingBox())!;
    expect(toastBox.y + toastBox.height).toBeLessThanOrEqual(mainBox.y + 1);
    await visit('models', '#/models');
    expect(await page.getByTestId('error').count()).toBe(0);
    await visit('experiments', '#/experiments');
    expect(await page.getByTestId('error').count()).toBeGreaterThan(0);
  });

  for (const [width, height] of [
    [1366, 768],
    [1440, 900],
  ] as const) {
    for (const trayOpen of [false, true]) {
      it(`at ${width}×${height} with the tray ${trayOpen ? 'expanded' : 'collapsed'}, no visible control on any screen is covered`, async () => {
        await page.setViewportSize({ width, height });
        if (trayOpen) await openJobTray(page);
        else if ((await page.getByTestId('job-tray-toggle').getAttribute('aria-expanded')) === 'true') await page.getByTestId('job-tray-toggle').click();
        const problems: string[] = [];
        for (const [screen, hash] of ROUTES()) {
          await visit(screen, hash);
          // Keep the experiments screen's error toast on screen while hit-testing it.
          for (const p of await page.evaluate(coveredControls)) problems.push(`${hash}: ${p}`);
        }
        await screenshot(page, `layout-${width}x${height}-${trayOpen ? 'tray-open' : 'tray-closed'}`);
        expect(problems).toEqual([]);
      }, 120_000);
    }
  }

  it('the expanded tray keeps Resume visible beside an ellipsised long title', async () => {
    await page.setViewportSize({ width: 1366, height: 768 });
    await openJobTray(page);
    const running = page.getByTestId('job-tray').locator('[data-testid="job"][data-status="running"]').first();
    const title = running.locator('.job-title');
    const overflow = await title.evaluate((e) => {
      const el = e as unknown as { scrollWidth: number; clientWidth: number };
      return el.scrollWidth > el.clientWidth;
    });
    expect(overflow).toBe(true); // ellipsised, not wrapped over several lines
    expect(await running.getByRole('button', { name: 'Cancel' }).isVisible()).toBe(true);
  });
});
