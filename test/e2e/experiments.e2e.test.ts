/**
 * End to end in Chromium (browser mode, demo workspace, the generated tiny model, one thread): set
 * up a small Fair RAG experiment in the wizard (2 queries, k = 3, N = 5, α ∈ {0, 2, 8} + oracle,
 * 8 new tokens) with a field error on the way and a live prompt preview, run it, wait for the job,
 * open Fig. 4 with Table 1 and Table 2, drill down from a Table 2 cell to one sample's prompt and
 * output, and export CSV, LaTeX and an SVG figure, checking each downloaded file and its manifest.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { ensureDemo } from '../../src-main/services/demoSetup';
import type { FairRagMetrics } from '../../src-main/api/contract/fairRag';
import { filesOf } from '../support/zip';
import { launchBrowser, openJobTray, screenshot } from '../support/browser';

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-exp-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'w', 'e2e.fairground') });
  app.services.settings.update({ threads: 1 });
  await ensureDemo(app.services);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1440, height: 950 }, acceptDownloads: true });
  await page.goto(app.server.launchUrl);
  await page.locator('nav a[data-screen="experiments"]').click();
  await page.getByTestId('screen-experiments').waitFor();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function download(testId: string, count = 1): Promise<{ name: string; body: string }[]> {
  const got: Download[] = [];
  const onDownload = (d: Download) => got.push(d);
  page.on('download', onDownload);
  await page.getByTestId(testId).first().click();
  await expect.poll(() => got.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  page.off('download', onDownload);
  // One click, one download (issue 26 item 6): an export with its manifest comes as one .zip.
  const files = await Promise.all(got.map(async (d) => filesOf(d.suggestedFilename(), readFileSync((await d.path())!))));
  if (files.length > 1) throw new Error(`one click gave ${files.length} downloads`);
  return files.flat().map((f) => ({ name: f.name, body: f.body.toString('utf8') }));
}

/** Next: it waits for the service to check what was just typed, then the next step's title shows. */
async function next(): Promise<void> {
  const before = await page.getByTestId('wiz-step-title').textContent();
  await page.getByTestId('wiz-next').click();
  await expect.poll(() => page.getByTestId('wiz-step-title').textContent(), { timeout: 15_000 }).not.toBe(before);
}

describe('Experiments: the Fair RAG wizard, a run and its analysis views', () => {
  it('sets up the experiment in the wizard with field errors and a live prompt preview', async () => {
    await page.getByTestId('experiment-new').click();
    await page.getByTestId('fair-rag-wizard').waitFor();
    // The name is required: its problem shows once Next is pressed (not before anything is typed), at the field and on the step.
    await expect.poll(() => page.getByTestId('wiz-status').textContent(), { timeout: 15_000 }).toBe('Not complete yet');
    expect(await page.getByTestId('issue-name').count()).toBe(0);
    await page.getByTestId('wiz-next').press('Enter');
    await page.getByTestId('issue-name').waitFor();
    expect(await page.getByTestId('wiz-step-data').locator('[aria-label="1 problem"]').count()).toBe(1);
    await page.getByTestId('wiz-name').fill('e2e fair rag');
    await page.getByTestId('issue-name').waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('wiz-collection').inputValue()).toBe('Fairground demo');
    await page.getByTestId('wiz-queries-ids').check();
    await page.locator('[data-testid="wiz-query-check"][data-query="tag-u1"]').check();
    await page.locator('[data-testid="wiz-query-check"][data-query="head-u1"]').check();
    expect(await page.getByTestId('wiz-min-useful-2').isChecked()).toBe(true);
    await expect.poll(() => page.getByTestId('wiz-query-count').textContent()).toContain('2 queries selected');

    await next(); // generator (step 2 in every kind's flow, issue 26): the demo's simulated reader by default; this test runs the tiny model
    await expect.poll(() => page.getByTestId('wiz-generator').inputValue()).toBe('model:Simulated reader (lost in the middle)');
    await page.getByTestId('wiz-generator').selectOption('model:fairground-tiny');
    await page.getByTestId('wiz-max-tokens').fill('8');
    // The prompt, on the generator's step: the preview renders a real query with BM25's top k.
    await page.getByTestId('wiz-preview-prompt').waitFor({ timeout: 15_000 });
    const prompt = await page.getByTestId('wiz-preview-prompt').textContent();
    expect(prompt).toContain('Which tag does this movie relate to');

    await next(); // the design: retrievers (the default BM25, rank_bm25 as Fair-RAG) and sampling
    expect(await page.getByTestId('wiz-retriever').count()).toBe(1);
    await page.getByTestId('wiz-k').fill('0');
    await page.getByTestId('issue-k').waitFor();
    expect(await page.getByTestId('issue-k').textContent()).toMatch(/at least 1/);
    expect(await page.getByTestId('wiz-step-design').locator('[aria-label="1 problem"]').count()).toBe(1);
    await page.getByTestId('wiz-k').fill('3');
    await page.getByTestId('wiz-samples').fill('5');
    await page.getByTestId('wiz-alphas').fill('0, 2, 8');
    expect(await page.getByTestId('wiz-oracle').isChecked()).toBe(true);
    await page.getByTestId('issue-k').waitFor({ state: 'detached' });
    await screenshot(page, 'experiments-wizard-sampling');
    await next(); // metrics & tests (utility & attribution): defaults
    await next(); // review
    await page.getByTestId('wiz-valid').waitFor();
    const spec = JSON.parse((await page.getByTestId('wiz-spec-json').textContent())!);
    expect(spec).toMatchObject({ kind: 'fair-rag', name: 'e2e fair rag', queries: ['tag-u1', 'head-u1'], minUseful: 2, k: 3, samples: 5, alphas: [0, 2, 8], oracle: true, decoding: { maxTokens: 8 } });
    await page.getByTestId('wiz-save').click();
    await page.getByTestId('experiment-notice').waitFor();
    expect(await page.getByTestId('experiment-notice').textContent()).toBe('Created e2e fair rag (version 1).');
  });

  it('runs it as a job and lists the run with its status', async () => {
    await page.getByTestId('experiment-run').click();
    const row = page.locator('[data-testid="run-row"][data-status="succeeded"]');
    await row.waitFor({ timeout: 60_000 });
    await openJobTray(page); // the tray starts collapsed (issue 17 item 1)
    await page.getByTestId('job-tray').locator('[data-testid="job"][data-status="succeeded"]', { hasText: 'e2e fair rag' }).waitFor();
    await screenshot(page, 'experiments-experiment-page');
    await row.getByTestId('run-link').click();
    await page.getByTestId('fair-rag-view').waitFor();
    expect(await page.getByTestId('run-status').textContent()).toBe('succeeded');
    expect(await page.getByTestId('run-stats').textContent()).toMatch(/Queries\s*2\b/);
    expect(await page.getByTestId('fr-summary').locator('tbody tr').count()).toBe(5);
    await screenshot(page, 'experiments-run-summary');
  });

  it('shows Fig. 4 with Table 1 and Table 2', async () => {
    await page.getByTestId('fr-tab-fig4').click();
    for (const id of ['fr-fig4a', 'fr-fig4b', 'fr-fig4c']) await page.locator(`[data-testid="${id}"][data-ready="true"]`).waitFor();
    const table1 = page.getByTestId('fr-table1');
    expect(await table1.locator('tbody tr').first().textContent()).toContain('bm25');
    expect(await page.getByTestId('fr-table1-interpolation').textContent()).toContain('trapezoid');
    await screenshot(page, 'experiments-fig4');

    await page.getByTestId('fr-tab-table2').click();
    const table2 = page.getByTestId('fr-table2');
    await table2.waitFor();
    const rows = await table2.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('bm25+fairground-tiny');
    // The cells show what the test tests (the paired per-query difference), labelled; the paper's unpaired difference on request (issue 34 item 8f).
    const run = app.services.experiments.listRuns(app.services.experiments.repo.experiments().find((x) => x.name === 'e2e fair rag')!.id)[0]!.id;
    const t2 = (app.services.experiments.metrics(run) as FairRagMetrics).table2;
    const cellsLabel = page.getByTestId('fr-table2-cells-label');
    expect(await cellsLabel.getAttribute('data-cells')).toBe('paired');
    expect(await cellsLabel.textContent()).toContain('Paired by query (what the test tests)');
    expect((await table2.locator('caption').innerText()).replace(/\s+/g, ' ')).toMatch(/^Paired difference by query of utility from the deterministic baseline/);
    const shownCells = async () => (await table2.locator('tbody tr').first().locator('td').allInnerTexts()).slice(2, 2 + t2.intervals.length).map((t) => t.replace(/\s*\(n=.*$/s, '').replace(/[†‡]/g, '').trim());
    const expected = (v: number | null | undefined) => (v === null || v === undefined ? '–' : `${v > 0 ? '+' : v < 0 ? '−' : ''}${Math.abs(v).toFixed(3)}`);
    const cells = t2.rows[0]!.cells;
    expect(cells.some((c) => c.pairedDifference !== null)).toBe(true);
    expect(await shownCells()).toEqual(cells.map((c) => expected(c.pairedDifference)));
    await page.getByTestId('fr-table2-cells').selectOption('paper');
    await expect.poll(() => cellsLabel.getAttribute('data-cells')).toBe('paper');
    expect(await cellsLabel.textContent()).toContain("The paper's unpaired difference");
    expect(await shownCells()).toEqual(cells.map((c) => expected(c.difference)));
    await page.getByTestId('fr-table2-cells').selectOption('paired');
    await expect.poll(() => cellsLabel.getAttribute('data-cells')).toBe('paired');
    await screenshot(page, 'experiments-table2');
  });

  it('drills down from a Table 2 cell to one sample with its prompt and output', async () => {
    // An interval cell with runs in it ("(n=…)", columns 3..7) lists them; one opens its query under its arm.
    await page.getByTestId('fr-table2').locator('tbody td:nth-child(n+3)', { hasText: '(n=' }).first().click();
    await page.getByTestId('fr-table2-runs').waitFor();
    await page.getByTestId('fr-table2-open').first().click();
    const drill = page.getByTestId('fr-drill');
    await drill.waitFor();
    const samples = page.getByTestId('fr-drill-samples').locator('tbody tr');
    await samples.first().waitFor();
    expect(await samples.count()).toBe(5);
    await samples.nth(1).click();
    await expect.poll(() => page.getByTestId('fr-drill-sample').locator('h4').textContent()).toMatch(/^Sample 1/);
    // The keyboard way to the same: the sample list.
    await page.getByTestId('fr-drill-sample-select').selectOption({ label: '2' });
    await expect.poll(() => page.getByTestId('fr-drill-sample').locator('h4').textContent()).toMatch(/^Sample 2/);
    await page.getByTestId('fr-drill-sample-select').selectOption({ label: '1' });
    await expect.poll(() => page.getByTestId('fr-drill-sample').locator('h4').textContent()).toMatch(/^Sample 1/);
    const shownPrompt = await page.getByTestId('fr-drill-prompt').textContent();
    expect(shownPrompt).toMatch(/Documents:[\s\S]*Question:/);
    expect((await page.getByTestId('fr-drill-output').textContent())!.length).toBeGreaterThan(0);
    const queryId = (await page.getByTestId('fr-drill-query').textContent())!;
    expect(await page.getByTestId('fr-drill-query-link').getAttribute('href')).toMatch(new RegExp(`^#/collections/\\d+/queries/${queryId}$`));
    await screenshot(page, 'experiments-drilldown');
  });

  it('exports Table 2 as LaTeX and CSV, the per-query CSV and Fig. 4 as SVG, each with its manifest', async () => {
    await page.getByTestId('fr-tab-table2').click();
    // Files are named by the run's id (an estimate in flight when the run started may have taken the number before it).
    const run = app.services.experiments.listRuns(app.services.experiments.repo.experiments().find((x) => x.name === 'e2e fair rag')!.id)[0]!.id;
    const tex = await download('fr-table2-export-latex');
    const latex = tex.find((f) => f.name.endsWith('.table2.tex'))!;
    expect(latex.name).toBe(`e2e_fair_rag-run${run}.table2.tex`);
    expect(latex.body).toContain('\\toprule');
    // One generator per run: rows name the retriever, the notes the generator (issue 34 item 9).
    expect(latex.body).toMatch(/^bm25 \(\d\.\d{3}\) & /m);
    expect(latex.body).toContain('generator fairground-tiny');
    const texManifest = JSON.parse(tex.find((f) => f.name === `${latex.name}.manifest.json`)!.body);
    expect(texManifest.export.file).toBe(latex.name);
    expect(texManifest.seeds).toBeDefined();

    const csv = await download('fr-table2-export-csv');
    const t2 = csv.find((f) => f.name.endsWith('.table2.csv'))!;
    expect(t2.body.split('\n')[0]).toMatch(/^retriever,generator,baseline,baseline_queries,diff_0_0.2,/);
    expect(t2.body.split('\n')[1]).toMatch(/^bm25,fairground-tiny,/);
    // The paired difference the test tests, added as columns at the end (the existing ones unchanged).
    const t2Header = t2.body.split('\n')[0]!.split(',');
    const t2Metrics = (app.services.experiments.metrics(run) as FairRagMetrics).table2;
    expect(t2Header.slice(-5)).toEqual(t2Metrics.intervals.map(([lo, hi]) => `paired_difference_${lo}_${hi}`));
    const t2Fields = t2.body.split('\n')[1]!.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((f) => f.replace(/,$/, '')).slice(0, -1);
    expect(t2Fields.slice(-5)).toEqual(t2Metrics.rows[0]!.cells.map((c) => (c.pairedDifference === null || c.pairedDifference === undefined ? '' : String(c.pairedDifference))));
    const t2Manifest = JSON.parse(csv.find((f) => f.name.endsWith('.table2.csv.manifest.json'))!.body);
    expect(t2Manifest.export.file).toBe(t2.name);
    expect(t2Manifest.export.sha256).toMatch(/^[0-9a-f]{64}$/);

    await page.getByTestId('fr-tab-exports').click();
    // The paper's cells in LaTeX, next to the default Table 2 export.
    const paperTex = (await download('fr-export-latex-table2-paper')).find((f) => f.name.endsWith('.tex'))!;
    expect(paperTex.name).toBe(`e2e_fair_rag-run${run}.table2-paper.tex`);
    expect(paperTex.body).toContain("% Cells: the paper's unpaired difference of means.");
    const paperNormTex = (await download('fr-export-latex-table2-normalized-paper')).find((f) => f.name.endsWith('.tex'))!;
    expect(paperNormTex.name).toBe(`e2e_fair_rag-run${run}.table2-normalized-paper.tex`);
    expect(paperNormTex.body).toContain('\\label{tab:fair-rag-table2-normalized}');
    const perQuery = await download('fr-export-per-query-csv');
    const pq = perQuery.find((f) => f.name.endsWith('.per-query.csv'))!;
    const lines = pq.body.trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/^query_id,retriever,condition,policy,alpha,/);
    // 2 queries × (3 α + deterministic) + 2 oracle rows
    expect(lines).toHaveLength(1 + 2 * 4 + 2);
    expect(new Set(lines.slice(1).map((l) => l.split(',')[0]))).toEqual(new Set(['tag-u1', 'head-u1']));

    await page.getByTestId('fr-tab-fig4').click();
    await page.locator('[data-testid="fr-fig4a"][data-ready="true"]').waitFor();
    const [svg] = await download('fr-fig4a-svg', 1);
    expect(svg!.name).toBe(`e2e_fair_rag-run${run}.fig4a.svg`);
    expect(svg!.body).toMatch(/^<svg[\s\S]*<\/svg>$/);
    expect(svg!.body).toContain('ranking quality vs disparity');
  });
});
