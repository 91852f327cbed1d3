/**
 * End to end in Chromium (browser mode): import the RichRAG demo spec on the Experiments screen, run
 * it (the demo collection and the generated tiny model, one thread), open the run, read Table 1 and
 * Table 3, open a query's coverage view (sub-aspects, the pool with aspect tags, the chosen list, the
 * coverage bar chart, the answer), and export the preference JSONL and the tables (CSV and LaTeX),
 * each with its manifest.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import { downloadFiles, launchBrowser, screenshot } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

const SPEC = readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'richrag.json'), 'utf8');

const CONDITIONS = [
  'closed-book',
  'retriever',
  'predicted/no-ranker',
  'predicted/rag-fusion (baseline)',
  'predicted/coverage',
  'predicted/listwise',
  'golden/no-ranker',
  'golden/rag-fusion',
  'golden/coverage',
  'golden/listwise',
];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-richrag-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'richrag.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
  await page.goto(app.server.launchUrl);
  await page.locator('nav a[data-screen="experiments"]').click();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function download(testId: string): Promise<{ name: string; body: string }[]> {
  return (await downloadFiles(page, testId)).map((f) => ({ name: f.name, body: f.body.toString('utf8') }));
}

describe('Experiments → RichRAG run', () => {
  it('imports the demo spec, runs it and opens the run view with Table 1 and Table 3', async () => {
    await page.getByTestId('experiment-import').click();
    await page.getByTestId('spec-text').fill(SPEC);
    await page.getByTestId('spec-valid').waitFor();
    await page.getByTestId('spec-save').click();
    await page.getByTestId('experiment-run').click();
    await page.locator('[data-testid="run-row"][data-status="succeeded"]').waitFor({ timeout: 80_000 });
    await page.getByTestId('run-link').first().click();
    await page.getByTestId('richrag-run').waitFor();
    // How each step's output was constrained, as the manifest says it (issue 35 item 6: 'auto' differs by engine).
    const constraints = await page.getByTestId('run-constraints').innerText();
    for (const step of ['explorer', 'ranker', 'judge']) expect(constraints).toContain(`${step}: GBNF grammar (the output is an option) (auto, on a local engine)`);
    const table1 = page.getByTestId('richrag-table1');
    await table1.waitFor();
    expect(await table1.locator('tbody tr td:first-child').allInnerTexts()).toEqual(CONDITIONS);
    expect(await table1.locator('thead th').allInnerTexts()).toEqual(['Condition', 'Queries', 'F1', 'R2', 'RL', 'CR2', 'CRL']);
    const table3 = page.getByTestId('richrag-table3');
    expect(await table3.locator('thead th').allInnerTexts()).toEqual(['Condition', 'Queries', 'MAP', 'nDCG@1', 'nDCG@3', 'NCOM']);
    expect(await table3.locator('tbody tr').count()).toBe(CONDITIONS.length - 1);
    await expect.poll(() => page.getByTestId('richrag-preferences').innerText()).toMatch(/16 lists for 4 queries/);
  });

  it("opens a query's coverage view: sub-aspects, pool with aspect tags, chosen list, coverage chart, answer", async () => {
    await page.getByTestId('richrag-query-select').selectOption('ma-q3');
    const view = page.getByTestId('richrag-query');
    await view.waitFor();
    expect(await view.locator('h4').innerText()).toContain('How do I start composting at home?');
    expect(await page.getByTestId('richrag-golden').locator('li').count()).toBe(4);
    expect(await page.getByTestId('richrag-condition-select').inputValue()).toBe('predicted/listwise');
    await page.getByTestId('richrag-condition-select').selectOption('golden/coverage');
    expect(await page.getByTestId('richrag-chosen').locator('li').count()).toBe(3);
    const pool = page.getByTestId('richrag-pool');
    const rows = pool.locator('tbody tr');
    expect(await rows.count()).toBeGreaterThan(3);
    // Every pooled document carries the golden sub-aspects that retrieved it.
    const tags = await rows.first().locator('.tag').allInnerTexts();
    expect(tags.length).toBeGreaterThan(0);
    for (const t of tags) expect(['ingredients', 'exclusions', 'bins', 'using it']).toContain(t);
    expect(await pool.locator('tr.chosen').count()).toBe(3);
    await page.locator('[data-testid="richrag-coverage-plot"][data-ready="true"]').waitFor();
    expect(await page.locator('[data-testid="richrag-coverage-plot"] .xtick').count()).toBe(4);
    await page.getByTestId('richrag-answer').waitFor();
    expect(await page.getByTestId('richrag-scores').innerText()).toMatch(/CR2 \d\.\d{3}/);
    await page.getByTestId('richrag-chosen').scrollIntoViewIfNeeded();
    await screenshot(page, 'richrag-query');
  });

  it('exports the preference JSONL and the tables, each with a manifest', async () => {
    // The simulated reader ranks deterministically at any temperature: every sampled list equals the greedy
    // one, so there is no pair — and no empty file is offered as a download (issue 34 item 9).
    const button = page.getByTestId('richrag-export-preferences');
    expect(await page.getByTestId('richrag-preferences').textContent()).toContain('0 pairs with |Δ reward| > μ = 0.02');
    expect(await button.textContent()).toBe('Preference JSONL (0 pairs)');
    expect(await button.isDisabled()).toBe(true);
    expect(await button.getAttribute('title')).toBe("No preference pair: no sampled list's reward differs from the greedy list's by more than μ = 0.02");

    const tex = await download('richrag-export-latex-table1');
    const latex = tex.find((f) => f.name.endsWith('.table1.tex'))!.body;
    expect(latex).toContain('\\toprule');
    expect(latex).toContain('predicted/rag-fusion');
    expect(tex.some((f) => f.name.endsWith('.table1.tex.manifest.json'))).toBe(true);

    const csv = await download('richrag-export-tables-csv');
    const text = csv.find((f) => f.name.endsWith('.tables.csv'))!.body;
    expect(text.split('\r\n')[0]).toBe('table,condition,framework,setting,measure,queries,mean,delta_vs_baseline,p_value,p_adjusted,significant,baseline,test,correction');
    expect(text).toContain('table3,golden/coverage,coverage,golden,NCOM,4,1,');
  });
});
