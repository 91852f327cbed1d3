/**
 * End to end in Chromium (browser mode, 1366×768): what a MoI fit's certificate says is shown where its
 * numbers are (issue 23 item 1), on runs whose truth is planted by simulated readers:
 * - a uniform planted bias (no position effect): Fig. 6 says "no position effect detected" instead of
 *   a curve, and so do the queries table and the drill-down;
 * - the demo's U-shaped bias on full-length random-3N prompts: the orientation is labelled as chosen
 *   by the rule, not the data (in the fit status, the queries table and the drill-down), and the run's
 *   design warnings name the mirror symmetry (moi-orientation);
 * - a recency bias on random prefix-pruned prompts: the data identify the orientation, no by-rule label,
 *   no orientation warning; the MoI wizard offers that design with its explanation, and its review
 *   (cost estimate) shows the orientation warning for full-length prompts only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { DEMO_SIM_NAME, DEMO_SIM_PROFILE } from '../../src-main/services/simulation/demoSim';
import { launchBrowser, screenshot } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;
const UNIFORM = 'Simulated reader (uniform, e2e)';
const RECENCY = 'Simulated reader (recency, e2e)';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-moilabels-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'moilabels.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  app.services.models.addSim({ name: UNIFORM, profile: { ...DEMO_SIM_PROFILE, bias: 'uniform' } });
  app.services.models.addSim({ name: RECENCY, profile: { ...DEMO_SIM_PROFILE, bias: 'recency' } });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const base = () => app.server.launchUrl.split('#')[0]!;
const text = async (testId: string) => (await page.getByTestId(testId).first().textContent())?.trim() ?? '';

async function runAndOpen(name: string, generator: string, permutations: Record<string, unknown>): Promise<void> {
  const { experiment } = app.services.experiments.upsert({
    kind: 'moi',
    name,
    collection: 'Fairground demo',
    queries: ['ma-q1', 'ma-q3'],
    n: 4,
    permutations,
    generator: { model: generator },
    decoding: { maxTokens: 16 },
    prompt: { passage: '[{{index}}] {{text}}' },
    baselines: ['random'],
  });
  const run = app.services.experiments.runToContinue(experiment.id, true).run;
  await app.services.experiments.executeRun(run.id, { signal: new AbortController().signal, progress: () => {} });
  await page.goto(`${base()}#/experiments/${experiment.id}/runs/${run.id}`);
  await page.getByTestId('moi-run').waitFor({ timeout: 30_000 });
  await page.getByTestId('moi-table1').waitFor();
}

async function drill(queryId: string) {
  await page.getByTestId('moi-queries').locator('tbody tr', { hasText: queryId }).click();
  await page.getByTestId('moi-drilldown').getByRole('heading', { name: `Query ${queryId}` }).waitFor();
  await page.getByTestId('moi-fit-checks').waitFor();
}

const column = async (label: string) => {
  const headers = await page.getByTestId('moi-queries').locator('thead th').allInnerTexts();
  const i = headers.findIndex((h) => h.trim() === label);
  expect(i).toBeGreaterThanOrEqual(0);
  return page.getByTestId('moi-queries').locator(`tbody tr td:nth-child(${i + 1})`).allInnerTexts();
};

describe('MoI: the fit certificate where the numbers are shown', () => {
  it('a planted uniform bias: Fig. 6 says "no position effect detected" instead of drawing a curve', async () => {
    await runAndOpen('MoI uniform e2e', UNIFORM, { set: 'random3n' });
    await page.getByTestId('moi-fig6-empty').waitFor();
    expect(await text('moi-fig6-empty')).toMatch(/^No curve: no position effect detected in any fit/);
    expect(await page.getByTestId('moi-fig6').count()).toBe(0);
    expect(await text('moi-fig6-notes')).toContain('no position effect detected in 2 of 2 fits');
    expect(await text('moi-fit-status')).toMatch(/no position effect detected in 2 of 2 fits \(ma-q1, ma-q3\)/);
    expect(await column('Position effect')).toEqual([expect.stringMatching(/^no position effect detected/), expect.stringMatching(/^no position effect detected/)]);
    await drill('ma-q3');
    expect(await text('moi-fit-effect')).toMatch(/^no position effect detected/);
    expect(await text('moi-fit-caveats')).toContain('no position effect detected');
    await screenshot(page, 'moi-no-position-effect');
  });

  it('the demo U-shaped bias on full-length prompts: orientation labelled as chosen by the rule, and the design warning', async () => {
    await runAndOpen('MoI full-length e2e', DEMO_SIM_NAME, { set: 'random3n' });
    await page.getByTestId('moi-fig6').waitFor();
    expect(await text('moi-fit-status')).toMatch(/2 of 2 fits certified/);
    expect(await text('moi-fit-status')).toMatch(/orientation chosen by the rule, not the data in 2 of 2 fits/);
    expect(await text('moi-fig6-notes')).toMatch(/set by the rule 'bias-non-increasing', not by the data/);
    expect(await column('Orientation')).toEqual([expect.stringMatching(/\(orientation chosen by the rule, not the data\)$/), expect.stringMatching(/\(orientation chosen by the rule, not the data\)$/)]);
    expect(await column('Position effect')).toEqual([expect.stringMatching(/^detected/), expect.stringMatching(/^detected/)]);
    expect(await column('Fit certificate')).toEqual([expect.stringMatching(/^certified \(exact fit; /), expect.stringMatching(/^certified \(exact fit; /)]);
    await expect.poll(() => page.locator('[data-testid="run-design-warnings-item"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-code'))), { timeout: 30_000 }).toContain('moi-orientation');
    await drill('ma-q1');
    expect(await text('moi-fit-orientation')).toMatch(/orientation chosen by the rule, not the data 'bias-non-increasing'/);
    expect(await text('moi-fit-certificate')).toMatch(/^certified \(exact fit; \d+ distinct optim(um|a) among \d+ starts?\)$/);
    await screenshot(page, 'moi-orientation-by-rule');
  });

  it('a recency bias on random prefix-pruned prompts: the data identify the orientation, no by-rule label', async () => {
    await runAndOpen('MoI pruned e2e', RECENCY, { set: 'random-pruned', length: 2 });
    await page.getByTestId('moi-fig6').waitFor();
    expect(await text('moi-fit-status')).not.toContain('orientation chosen by the rule');
    expect(await column('Orientation')).toEqual(['identified (by the data: prefix-pruned prompts)', 'identified (by the data: prefix-pruned prompts)']);
    await drill('ma-q3');
    expect(await text('moi-fit-orientation')).toBe('identified (by the data: prefix-pruned prompts)');
    await page.waitForTimeout(500);
    const codes = await page.locator('[data-testid="run-design-warnings-item"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-code')));
    expect(codes).not.toContain('moi-orientation');
  });

  it('the MoI wizard offers the prefix-pruned design with one sentence why, and its review warns for full-length prompts only', async () => {
    await page.goto(`${base()}#/experiments/new`);
    await page.getByTestId('new-kind-moi').click();
    await page.getByTestId('moi-wizard').waitFor();
    await expect.poll(() => page.getByTestId('kw-collection').inputValue()).toBe('Fairground demo');
    await page.getByTestId('kw-name').fill('MoI wizard design e2e');
    await page.getByTestId('kw-queries-ids').check();
    for (const id of ['ma-q1', 'ma-q2']) await page.locator(`[data-testid="kw-query-check"][data-query="${id}"]`).check();
    await page.getByTestId('wiz-step-design').click();
    expect(await page.getByTestId('moi-set').locator('option').allInnerTexts()).toContain('random 3N, prefix-pruned: L-prefixes (learns the orientation)');
    // Full-length (the default random 3N): the review's estimate carries the orientation warning.
    await expect.poll(() => text('moi-set-hint')).toMatch(/mirror equally well: the orientation rule below decides/);
    const codes = () => page.locator('[data-testid="cost-estimate-warnings-item"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-code')));
    await page.getByTestId('wiz-step-review').click();
    await page.locator('[data-testid="cost-estimate"][data-state="ready"]').waitFor({ timeout: 60_000 });
    await expect.poll(codes, { timeout: 30_000 }).toContain('moi-orientation');
    // Prefix-pruned: the sentence says why, and the warning is gone.
    await page.getByTestId('wiz-step-design').click();
    await page.getByTestId('moi-set').selectOption('random-pruned');
    expect(await text('moi-set-hint')).toMatch(/^Prompts of only the first L < N passages break the mirror symmetry/);
    await page.getByTestId('wiz-step-review').click();
    await page.locator('[data-testid="cost-estimate"][data-state="ready"]').waitFor({ timeout: 60_000 });
    await expect.poll(codes, { timeout: 30_000 }).not.toContain('moi-orientation');
    expect(JSON.parse(await text('wiz-spec-json'))).toMatchObject({ permutations: { set: 'random-pruned' } });
    await screenshot(page, 'moi-wizard-pruned');
  });
});
