/**
 * End to end in Chromium (browser mode, demo workspace): the simulated reader registered by the demo
 * beside the tiny GGUF is offered in the generator list of the MoI wizard; choosing it creates and
 * runs an experiment whose run shows the position-bias plot and names the simulated reader; the
 * experiment page's power panel simulates the study and shows its table (captioned simulated).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { DEMO_SIM_NAME } from '../../src-main/services/simulation/demoSim';
import { launchBrowser } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-sim-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'sim.fairground') });
  await ensureDemo(app.services);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(`${app.server.launchUrl.split('#')[0]}#/experiments/new`);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the simulated reader in a wizard', () => {
  it('is chosen as the MoI generator, runs, and the experiment page simulates the study’s power', async () => {
    await page.getByTestId('new-kind-moi').click();
    await page.getByTestId('moi-wizard').waitFor();
    // The tiny GGUF stays the default; the simulated reader is one option away.
    await expect.poll(() => page.getByTestId('moi-generator').inputValue()).toBe('model:fairground-tiny');
    await page.getByTestId('moi-generator').selectOption(`model:${DEMO_SIM_NAME}`);
    await page.getByTestId('kw-name').fill('MoI on the simulated reader');
    await page.getByTestId('kw-queries-ids').check();
    for (const id of ['ma-q1', 'ma-q2']) await page.locator(`[data-testid="kw-query-check"][data-query="${id}"]`).check();
    for (const b of ['self-consistency', 'qg', 'retriever-reversed', 'moi-reversed', 'gold-position']) await page.locator(`[data-testid="moi-baseline"][data-baseline="${b}"]`).uncheck();
    await page.getByTestId('kw-show-json').check();
    await expect.poll(async () => JSON.parse((await page.getByTestId('kw-spec-json').textContent()) ?? '{}') as Record<string, unknown>).toMatchObject({ kind: 'moi', generator: { model: DEMO_SIM_NAME } });
    await expect.poll(() => page.getByTestId('kw-status').textContent(), { timeout: 10_000 }).toBe('Valid');
    await page.getByTestId('kw-create-run').press('Enter');
    await page.getByTestId('experiment-name').waitFor();
    await page.locator('[data-testid="run-row"][data-status="succeeded"]').waitFor({ timeout: 60_000 });

    // The power panel on the experiment page (2 runs per cell keeps the test short).
    await page.getByTestId('power-effects').fill('0, 1');
    await page.getByTestId('power-reps').fill('2');
    await page.getByTestId('power-run').click();
    await page.getByTestId('power-table').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('power-table').locator('tbody tr').count()).toBe(2);
    expect(await page.getByTestId('power-test').textContent()).toContain('Simulated reader');
    await page.locator('[data-testid="power-plot"][data-ready="true"]').waitFor();

    await page.getByTestId('run-link').first().click();
    await page.getByTestId('moi-run').waitFor();
    await page.getByTestId('moi-fig6').and(page.locator('[data-ready="true"]')).waitFor();
    expect(await page.getByTestId('moi-run').textContent()).toContain('Simulated reader');
  }, 180_000);
});
