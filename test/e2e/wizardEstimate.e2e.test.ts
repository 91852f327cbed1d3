/**
 * End to end in Chromium (browser mode, demo workspace): the wizards show what a run will cost
 * before Run (issue 17 item 3). The Fair RAG wizard's review step says the spec must be valid
 * first, then shows the service's numbers for the spec it shows; the MoI wizard's review (the demo's simulated reader, 2 queries) shows the calls, cached and to
 * compute exactly as experiments.estimateSpec returns them for the spec it will create; after the
 * run, the experiment page and the same spec in a new wizard show every call cached.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { DEMO_SIM_NAME } from '../../src-main/services/simulation/demoSim';
import { coveredControls, launchBrowser } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-estimate-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'estimate.fairground') });
  app.services.settings.update({ threads: 1 });
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

const text = async (testId: string) => (await page.getByTestId(testId).textContent())?.trim() ?? '';

/** A MoI wizard on the simulated reader for ma-q1 and ma-q2 (N = 3, no extra baselines), on its review step; returns the spec shown. */
async function fillMoi(name: string): Promise<Record<string, unknown>> {
  await page.getByTestId('new-kind-moi').click();
  await page.getByTestId('moi-wizard').waitFor();
  // The demo's prefill (its collection, the multi-aspect questions) has arrived before the subset is changed.
  await expect.poll(() => page.getByTestId('kw-collection').inputValue()).toBe('Fairground demo');
  await expect.poll(() => page.getByTestId('kw-queries-tasks').isChecked()).toBe(true);
  await page.getByTestId('kw-name').fill(name);
  await page.getByTestId('kw-queries-ids').check();
  for (const id of ['ma-q1', 'ma-q2']) await page.locator(`[data-testid="kw-query-check"][data-query="${id}"]`).check();
  await page.getByTestId('wiz-step-generator').click();
  await expect.poll(() => page.getByTestId('moi-generator').inputValue()).toBe(`model:${DEMO_SIM_NAME}`);
  await page.getByTestId('wiz-step-design').click();
  await page.getByTestId('moi-n').fill('3');
  await page.getByTestId('wiz-step-metrics').click();
  for (const b of ['self-consistency', 'qg', 'retriever-reversed', 'moi-reversed', 'gold-position']) await page.locator(`[data-testid="moi-baseline"][data-baseline="${b}"]`).uncheck();
  await page.getByTestId('wiz-step-review').click();
  return currentSpec();
}

describe('the cost of a run, shown before Run', () => {
  it('the Fair RAG review step waits for a valid spec, then shows the service’s estimate', async () => {
    await page.getByTestId('fair-rag-wizard').waitFor();
    await page.getByTestId('wiz-step-review').click();
    // A new wizard has no name yet: nothing to price, and it says why.
    await page.locator('[data-testid="cost-estimate"][data-state="invalid"]').waitFor();
    // "Checking the spec…" while the validation is pending, then the problems.
    await expect.poll(() => text('cost-estimate-blocked'), { timeout: 15_000 }).toMatch(/problem.*fix/);

    // Named and down to one query, the spec is priced: the numbers are the service's for the spec shown.
    await page.getByTestId('wiz-step-data').click();
    await page.getByTestId('wiz-name').fill('Fair RAG cost e2e');
    await expect.poll(() => page.getByTestId('wiz-collection').inputValue()).toBe('Fairground demo');
    await page.getByTestId('wiz-queries-ids').check();
    await page.locator('[data-testid="wiz-query-check"][data-query="tag-u1"]').check();
    await page.getByTestId('wiz-step-review').click();
    await page.getByTestId('wiz-valid').waitFor({ timeout: 15_000 });
    await page.locator('[data-testid="cost-estimate"][data-state="ready"]').waitFor({ timeout: 60_000 });
    const spec = JSON.parse(await text('wiz-spec-json')) as Record<string, unknown>;
    const expected = await app.services.plans.estimateSpec(spec, new AbortController().signal);
    expect(expected.toCompute).toBeGreaterThan(0);
    expect(await text('cost-estimate-calls')).toBe((expected.fromCache + expected.toCompute).toLocaleString('en-US'));
    expect(await text('cost-estimate-to-compute')).toBe(expected.toCompute.toLocaleString('en-US'));
    await page.goto(`${app.server.launchUrl.split('#')[0]}#/experiments/new`);
  }, 90_000);

  it('the MoI wizard shows the calls, cached and to compute that the service estimates', async () => {
    const spec = await fillMoi('MoI cost e2e');
    const expected = await app.services.plans.estimateSpec(spec, new AbortController().signal);
    // The demo's simulated reader has answered nothing yet: every call is to compute.
    expect(expected.fromCache).toBe(0);
    expect(expected.toCompute).toBeGreaterThan(0);
    await page.locator('[data-testid="cost-estimate"][data-state="ready"]').waitFor({ timeout: 30_000 });
    expect(await text('cost-estimate-calls')).toBe(String(expected.fromCache + expected.toCompute));
    expect(await text('cost-estimate-cached')).toBe('0');
    expect(await text('cost-estimate-to-compute')).toBe(String(expected.toCompute));
    const chars = expected.lines.reduce((a, l) => a + l.promptChars, 0);
    expect(await text('cost-estimate-tokens')).toBe(`≈ ${Math.round(chars / 4).toLocaleString('en-US')}`);
    const lines = page.getByTestId('cost-estimate-line');
    expect(await lines.count()).toBe(expected.lines.length);
    expect(await lines.first().getAttribute('data-model')).toBe(expected.lines[0]!.model);
    // Nothing covers the wizard's controls with the estimate shown, at the smallest supported window.
    await page.setViewportSize({ width: 1366, height: 768 });
    expect(await page.evaluate(coveredControls)).toEqual([]);
    await page.setViewportSize({ width: 1366, height: 900 });
    // MoI's later stages (scoring the generated answers) are priced once those answers exist: the wizard says so.
    if (!expected.complete) expect(await text('cost-estimate-note')).toMatch(/^Not complete: /);

    // A change of the spec is priced again: N = 4 asks for more calls.
    await page.getByTestId('wiz-step-design').click();
    await page.getByTestId('moi-n').fill('4');
    await page.getByTestId('wiz-step-review').click();
    const more = await app.services.plans.estimateSpec(await currentSpec(), new AbortController().signal);
    expect(more.toCompute).toBeGreaterThan(expected.toCompute);
    await expect.poll(() => text('cost-estimate-to-compute'), { timeout: 30_000 }).toBe(String(more.toCompute));
    // The estimate left nothing behind (its throwaway experiment is gone).
    expect(app.services.experiments.list().map((e) => e.name)).not.toContain(expect.stringContaining('cost estimate'));
    await page.getByTestId('wiz-step-design').click();
    await page.getByTestId('moi-n').fill('3');
    await page.getByTestId('wiz-step-review').click();
    await expect.poll(() => text('cost-estimate-to-compute'), { timeout: 30_000 }).toBe(String(expected.toCompute));
  }, 120_000);

  it('after the run, the experiment page and the same spec in a new wizard show every call cached', async () => {
    const spec = await currentSpec();
    await page.getByTestId('wiz-create-run').press('Enter');
    await page.getByTestId('experiment-name').waitFor();
    await page.locator('[data-testid="run-row"][data-status="succeeded"]').waitFor({ timeout: 60_000 });
    // Every stage has run now: the service prices the whole spec, all from the cache.
    const after = await app.services.plans.estimateSpec(spec, new AbortController().signal);
    expect(after).toMatchObject({ toCompute: 0, complete: true, etaSeconds: 0 });
    const total = String(after.fromCache);
    await expect.poll(() => text('experiment-cost-to-compute'), { timeout: 30_000 }).toBe('0');
    expect(await text('experiment-cost-cached')).toBe(total);
    expect(await text('experiment-cost-eta')).toBe('none: all cached');

    await page.goto(`${app.server.launchUrl.split('#')[0]}#/experiments/new`);
    await page.getByTestId('fair-rag-wizard').waitFor();
    await fillMoi('MoI cost e2e, again');
    await page.locator('[data-testid="cost-estimate"][data-state="ready"]').waitFor({ timeout: 30_000 });
    await expect.poll(() => text('cost-estimate-to-compute'), { timeout: 30_000 }).toBe('0');
    expect(await text('cost-estimate-cached')).toBe(total);
    expect(await text('cost-estimate-note')).toContain('Every call is in the cache');
  }, 180_000);
});

/** The valid spec the review step shows. */
async function currentSpec(): Promise<Record<string, unknown>> {
  await expect.poll(() => text('wiz-status'), { timeout: 15_000 }).toBe('Valid');
  await page.getByTestId('wiz-valid').waitFor({ timeout: 15_000 });
  return JSON.parse(await text('wiz-spec-json')) as Record<string, unknown>;
}
