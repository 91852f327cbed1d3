/**
 * End to end in Chromium (browser mode, demo workspace, the generated tiny model, one thread): the
 * "New experiment" flow chooses the kind first; the MoI wizard's five steps (2 queries, N = 3, random 3N,
 * 8 new tokens, a field error on the way, the spec JSON on the review) create and run an experiment whose
 * run shows the position-bias plot; the RichRAG wizard's (2 queries, golden sub-aspects, k = 2) create and
 * run one whose run opens a query's coverage view.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { launchBrowser } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-wiz-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'wizards.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(app.server.launchUrl);
  await page.locator('nav a[data-screen="experiments"]').click();
  await page.getByTestId('screen-experiments').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function pickQueries(ids: string[]): Promise<void> {
  await page.getByTestId('kw-queries-ids').check();
  for (const id of ids) await page.locator(`[data-testid="kw-query-check"][data-query="${id}"]`).check();
  await expect.poll(() => page.getByTestId('kw-query-count').textContent()).toContain(`${ids.length} queries selected`);
}

/** Next (it waits for the step to be checked; Playwright waits while it is aria-disabled). */
async function next(title: RegExp): Promise<void> {
  await page.getByTestId('wiz-next').click();
  await expect.poll(() => page.getByTestId('wiz-step-title').textContent()).toMatch(title);
}

async function createAndRun(): Promise<void> {
  await expect.poll(() => page.getByTestId('wiz-status').textContent(), { timeout: 10_000 }).toBe('Valid');
  // Keyboard: the job tray of an earlier run may cover the button's corner.
  await page.getByTestId('wiz-create-run').press('Enter');
  await page.getByTestId('experiment-name').waitFor();
  await page.locator('[data-testid="run-row"][data-status="succeeded"]').waitFor({ timeout: 60_000 });
  await page.getByTestId('run-link').first().click();
}

describe('Experiments: the MoI and RichRAG wizards', () => {
  it('chooses the kind first and runs a MoI experiment from its wizard', async () => {
    await page.getByTestId('experiment-new').click();
    await page.getByTestId('fair-rag-wizard').waitFor();
    await page.getByTestId('new-kind-moi').click();
    const wizard = page.getByTestId('moi-wizard');
    await wizard.waitFor();
    // Prefilled from the demo spec: the demo collection, the simulated reader, N = 4.
    // The collection list arrives asynchronously: poll, as for the generator.
    await expect.poll(() => page.getByTestId('kw-collection').inputValue()).toBe('Fairground demo');
    // The name is required: its problem shows once Next is pressed, not before.
    expect(await page.getByTestId('issue-name').count()).toBe(0);
    await page.getByTestId('wiz-next').press('Enter');
    await page.getByTestId('issue-name').waitFor();
    await page.getByTestId('kw-name').fill('MoI wizard e2e');
    await page.getByTestId('issue-name').waitFor({ state: 'detached' });
    await pickQueries(['ma-q1', 'ma-q2']);
    await next(/^2\. Generator/);
    // The simulated reader of the demo collection is the default generator (issue 26); this test runs the tiny model.
    await expect.poll(() => page.getByTestId('moi-generator').inputValue()).toBe('model:Simulated reader (lost in the middle)');
    await page.getByTestId('moi-generator').selectOption('model:fairground-tiny');
    await page.getByTestId('moi-max-tokens').fill('8');
    await next(/^3\. Design/);
    await expect.poll(() => page.getByTestId('moi-n').inputValue()).toBe('4');
    // L > N is a field error at the permutations.
    await page.getByTestId('moi-set').selectOption('pruned');
    await page.getByTestId('moi-length').fill('9');
    await expect.poll(() => page.getByTestId('issue-permutations').textContent()).toMatch(/at most N/);
    await page.getByTestId('moi-set').selectOption('random3n');
    await page.getByTestId('issue-permutations').waitFor({ state: 'detached' });
    await page.getByTestId('moi-n').fill('3');
    await next(/^4\. Metrics & tests/);
    for (const b of ['self-consistency', 'qg', 'retriever-reversed', 'moi-reversed', 'gold-position']) await page.locator(`[data-testid="moi-baseline"][data-baseline="${b}"]`).uncheck();
    await next(/^5\. Review/);
    await expect.poll(async () => JSON.parse((await page.getByTestId('wiz-spec-json').textContent()) ?? '{}') as Record<string, unknown>).toMatchObject({
      kind: 'moi',
      queries: ['ma-q1', 'ma-q2'],
      n: 3,
      permutations: { set: 'random3n' },
      baselines: ['random', 'bayes-saliency'],
      decoding: { maxTokens: 8 },
    });
    await createAndRun();
    await page.getByTestId('moi-run').waitFor();
    // The tiny model's fits may detect no position effect: then Fig. 6 says why there is no curve.
    await page.getByTestId('moi-fig6').and(page.locator('[data-ready="true"]')).or(page.getByTestId('moi-fig6-empty')).first().waitFor();
    const labels = await page.getByTestId('moi-table1').locator('tbody tr td:first-child').allInnerTexts();
    expect(labels).toEqual(['Retriever', 'Random', 'Bayes saliency', 'MoI']);
  });

  it("runs a RichRAG experiment from its wizard and opens a query's coverage view", async () => {
    await page.goto(`${app.server.launchUrl.split('#')[0]}#/experiments/new`);
    await page.getByTestId('new-kind-richrag').click();
    await page.getByTestId('richrag-wizard').waitFor();
    await page.getByTestId('kw-name').fill('RichRAG wizard e2e');
    await pickQueries(['ma-q1', 'ma-q3']);
    await next(/^2\. Generator/);
    // The simulated reader of the demo collection is the default generator (issue 26); this test runs the tiny model.
    await expect.poll(() => page.getByTestId('rr-generator').inputValue()).toBe('model:Simulated reader (lost in the middle)');
    await page.getByTestId('rr-generator').selectOption('model:fairground-tiny');
    await page.getByTestId('rr-max-tokens').fill('8');
    await next(/^3\. Design/);
    await page.getByTestId('rr-settings-golden').check();
    for (const f of ['closed-book', 'listwise']) await page.locator(`[data-testid="rr-framework"][data-framework="${f}"]`).uncheck();
    // The window must exceed k: a field error next to the window, though only k was changed.
    await page.getByTestId('rr-k').fill('6');
    await expect.poll(() => page.getByTestId('issue-ranker').textContent()).toMatch(/larger than k/);
    await page.getByTestId('rr-k').fill('2');
    await page.getByTestId('issue-ranker').waitFor({ state: 'detached' });
    await next(/^4\. Metrics & tests/);
    await page.getByTestId('rr-preferences').uncheck();
    await next(/^5\. Review/);
    await createAndRun();
    await page.getByTestId('richrag-run').waitFor();
    expect(await page.getByTestId('richrag-table1').locator('tbody tr td:first-child').allInnerTexts()).toEqual(['retriever', 'golden/no-ranker', 'golden/rag-fusion (baseline)', 'golden/coverage']);
    await page.getByTestId('richrag-query-select').selectOption('ma-q3');
    await page.getByTestId('richrag-query').waitFor();
    await page.getByTestId('richrag-condition-select').selectOption('golden/coverage');
    await expect.poll(() => page.getByTestId('richrag-chosen').locator('li').count()).toBe(2);
    expect(await page.getByTestId('richrag-pool').locator('tbody tr').count()).toBeGreaterThan(2);
    await page.locator('[data-testid="richrag-coverage-plot"][data-ready="true"]').waitFor();
  });
});
