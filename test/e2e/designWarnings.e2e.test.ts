/**
 * End to end in Chromium (browser mode, demo workspace, 1366×768): designs that cannot answer are caught
 * before Run (issue 23 item 5). The Fair RAG wizard's defaults on the bundled demo collection (queries
 * with 4–5 candidates) give a study without design warnings; k = 5 (≥ every query's candidates: all arms
 * identical) and an under-powered design (N = 20 for α 0, 1, 2, 4, 8) get warnings in the review step
 * naming the cause and the fix, exactly those the service computes for the spec shown; a run of the
 * k = 5 design on one query shows that warning and the one-query warning at the top of its results.
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
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-design-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'design.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
  await page.goto(`${app.server.launchUrl.split('#')[0]}#/experiments/new`);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const text = async (testId: string) => (await page.getByTestId(testId).textContent())?.trim() ?? '';

/** The review step's spec once the estimate for it is ready, with the service's design warnings for it. */
async function reviewed(): Promise<{ spec: Record<string, unknown>; codes: string[] }> {
  await page.getByTestId('wiz-step-review').click();
  await page.getByTestId('wiz-valid').waitFor({ timeout: 15_000 });
  await page.locator('[data-testid="cost-estimate"][data-state="ready"]').waitFor({ timeout: 60_000 });
  const spec = JSON.parse(await text('wiz-spec-json')) as Record<string, unknown>;
  const warnings = await app.services.experiments.designWarnings(spec);
  return { spec, codes: warnings.map((w) => w.code) };
}

async function shownCodes(testId: string): Promise<string[]> {
  return page.locator(`[data-testid="${testId}-item"]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-code') ?? ''));
}


/** A k ≥ candidates design on one query (both warnings hold), as a Fair RAG spec. */
function oneQueryDesign(name: string): Record<string, unknown> {
  return {
    kind: 'fair-rag',
    name,
    collection: 'Fairground demo',
    queries: ['tag-u1'],
    retrievers: [{ name: 'bm25', method: 'bm25' }],
    generator: { model: DEMO_SIM_NAME },
    k: 5,
    samples: 5,
    alphas: [0, 8],
  };
}
describe('design warnings before Run', () => {
  it('the Fair RAG wizard defaults on the demo collection can show an effect: k below the candidates, no warning', async () => {
    await page.getByTestId('fair-rag-wizard').waitFor();
    await page.getByTestId('wiz-name').fill('Design e2e');
    await expect.poll(() => page.getByTestId('wiz-collection').inputValue()).toBe('Fairground demo');
    await page.getByTestId('wiz-step-generator').click();
    await page.getByTestId('wiz-generator').selectOption(`model:${DEMO_SIM_NAME}`);
    // The design step says why its sampling defaults are not the paper's k = 5.
    await page.getByTestId('wiz-step-design').click();
    await expect.poll(() => text('wiz-sampling-adapted'), { timeout: 15_000 }).toMatch(/as few as 4 candidates.*k = 5 would show every arm the same documents/);
    expect(await page.getByTestId('wiz-k').inputValue()).toBe('2');
    const { spec, codes } = await reviewed();
    expect(spec).toMatchObject({ k: 2, samples: 200, alphas: [0, 1, 8] });
    expect(codes).toEqual([]);
    await page.getByTestId('cost-estimate-design-ok').waitFor();
    expect(await page.getByTestId('cost-estimate-warnings').count()).toBe(0);
  }, 120_000);

  it('k ≥ the candidate count of every query (k = 5 on 4–5 candidates): all arms identical, fix named', async () => {
    await page.getByTestId('wiz-step-design').click();
    await page.getByTestId('wiz-k').fill('5');
    const { codes } = await reviewed();
    expect(codes).toContain('k-covers-candidates');
    await expect.poll(() => shownCodes('cost-estimate-warnings'), { timeout: 30_000 }).toEqual(codes);
    const item = page.locator('[data-testid="cost-estimate-warnings-item"][data-code="k-covers-candidates"]');
    const shown = (await item.textContent()) ?? '';
    expect(shown).toMatch(/k = 5 is at least the number of candidates of every query/);
    expect(shown).toMatch(/all α arms, the oracle and the deterministic ranking are identical/);
    expect(shown).toMatch(/Fix: choose k below the smallest candidate count \(k ≤ 3\)/);
    expect(await page.evaluate(coveredControls)).toEqual([]);
  }, 120_000);

  it('an under-powered design (N = 20 for α 0, 1, 2, 4, 8): the samples cannot separate the arms, fix named', async () => {
    await page.getByTestId('wiz-step-design').click();
    await page.getByTestId('wiz-k').fill('2');
    await page.getByTestId('wiz-samples').fill('20');
    await page.getByTestId('wiz-alphas').fill('0, 1, 2, 4, 8');
    const { codes } = await reviewed();
    expect(codes).toEqual(['samples-too-few']);
    await expect.poll(() => shownCodes('cost-estimate-warnings'), { timeout: 30_000 }).toEqual(['samples-too-few']);
    const shown = (await page.locator('[data-testid="cost-estimate-warnings-item"]').textContent()) ?? '';
    expect(shown).toMatch(/N = 20 samples per arm cannot separate α = \d from α = \d/);
    expect(shown).toMatch(/Fix: (raise samples to at least \d+|drop α = \d)/);
    expect(await page.evaluate(coveredControls)).toEqual([]);
  }, 120_000);

  it('a run of a k ≥ candidates design on one query shows both warnings at the top of its results', async () => {
    const spec = oneQueryDesign('Design e2e run');
    const { experiment } = app.services.experiments.upsert(spec);
    const run = app.services.experiments.runToContinue(experiment.id, true).run;
    await app.services.experiments.executeRun(run.id, { signal: new AbortController().signal, progress: () => {} });
    await page.goto(`${app.server.launchUrl.split('#')[0]}#/experiments/${experiment.id}/runs/${run.id}`);
    await page.getByTestId('run-title').waitFor();
    await expect.poll(() => shownCodes('run-design-warnings'), { timeout: 30_000 }).toEqual(['k-covers-candidates', 'too-few-queries']);
    expect(await text('run-design-warnings')).toMatch(/k = 5 is at least the number of candidates of every query.*Fix: /s);
    // One query: no test can reject (a t-test needs two), and it says how many are needed.
    expect(await text('run-design-warnings')).toMatch(/1 query cannot give a significant result.*Fix: use at least \d+ queries/s);
    expect(await page.evaluate(coveredControls)).toEqual([]);
  }, 120_000);

  it('a run started as `fairground run` starts it (warnings stored with the run) shows each warning once (issue 34)', async () => {
    const spec = oneQueryDesign('Design e2e run (CLI)');
    const { experiment } = app.services.experiments.upsert(spec);
    const run = app.services.experiments.runToContinue(experiment.id, true).run;
    // What `fairground run` does before computing: the design warnings are stored with the run, and its metrics list them as notes.
    const stored = await app.services.experiments.recordDesignWarnings(run.id);
    expect(stored.map((w) => w.code)).toEqual(['k-covers-candidates', 'too-few-queries']);
    await app.services.experiments.executeRun(run.id, { signal: new AbortController().signal, progress: () => {} });
    expect(app.services.experiments.summary(run.id).warnings?.filter((w) => w.startsWith('design warning ['))).toHaveLength(2);
    await page.goto(`${app.server.launchUrl.split('#')[0]}#/experiments/${experiment.id}/runs/${run.id}`);
    await page.getByTestId('run-title').waitFor();
    await expect.poll(() => shownCodes('run-design-warnings'), { timeout: 30_000 }).toEqual(['k-covers-candidates', 'too-few-queries']);
    await expect.poll(() => page.getByText('Loading the results…').count(), { timeout: 30_000 }).toBe(0);
    const notes = await page.locator('[data-testid="run-warnings"] li').allInnerTexts();
    expect(notes.filter((n) => n.startsWith('design warning ['))).toEqual([]);
  }, 120_000);
});
