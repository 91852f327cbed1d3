/**
 * End to end: evaluate two TREC runs in the Results screen, read the table, and export CSV,
 * LaTeX, SVG and a 300-dpi PNG, checking each downloaded file's content.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { downloadFiles, launchBrowser, screenshot } from '../support/browser';
import { compileLatex } from '../support/pdflatex';

const qrels = ['q1 0 d1 1', 'q1 0 d2 0', 'q1 0 d3 1', 'q2 0 d4 1', 'q3 0 d5 1', 'q3 0 d6 1'].join('\n');
const runA = ['q1 Q0 d2 1 3.0 A', 'q1 Q0 d1 2 2.0 A', 'q1 Q0 d3 3 1.0 A', 'q2 Q0 d4 1 1.0 A', 'q3 Q0 d7 1 1.0 A'].join('\n');
const runB = ['q1 Q0 d1 1 3.0 B', 'q1 Q0 d3 2 2.0 B', 'q3 Q0 d5 1 2.0 B', 'q3 Q0 d6 2 1.0 B'].join('\n');

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-eval-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'e.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
  await page.goto(app.server.launchUrl);
  await page.locator('nav a[data-screen="results"]').click();
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const download = (testId: string) => downloadFiles(page, testId);

describe('Results → Evaluate TREC runs', () => {
  it('evaluates two runs and shows means with the best in bold', async () => {
    await page.getByTestId('eval-source-files').check(); // stored runs of a collection are the default
    await page.getByTestId('eval-runs').setInputFiles([
      { name: 'A.run', mimeType: 'text/plain', buffer: Buffer.from(runA) },
      { name: 'B.run', mimeType: 'text/plain', buffer: Buffer.from(runB) },
    ]);
    await page.getByTestId('eval-qrels').setInputFiles({ name: 'test.qrels', mimeType: 'text/plain', buffer: Buffer.from(qrels) });
    await page.getByTestId('eval-measures').fill('P@2 RR');
    await page.getByTestId('eval-go').click();
    const table = page.getByTestId('eval-table');
    await table.waitFor();
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual(['A.run 0.3333 0.5000', 'B.run 0.6667 0.6667']);
    expect(await table.locator('td.strong').allInnerTexts()).toEqual(['0.6667', '0.6667']);
    await page.getByTestId('eval-plot').and(page.locator('[data-ready="true"]')).waitFor();
    await screenshot(page, 'evaluate-runs');
  });

  it('labels a count measure as the per-query mean it shows (issue 34 item 5)', async () => {
    await page.getByTestId('eval-measures').fill('NumRet P@2');
    await page.getByTestId('eval-go').click();
    const table = page.getByTestId('eval-table');
    await expect.poll(async () => (await table.locator('thead th').allInnerTexts()).map((t) => t.trim())).toEqual(['Run', 'NumRet (mean per query)', 'P@2']);
    // A.run retrieves 3, 1, 1 documents for q1, q2, q3; B.run 2, 0, 2 (the qrels' 3 queries): means 5/3 and 4/3.
    const rows = await table.locator('tbody tr').allInnerTexts();
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual(['A.run 1.6667 0.3333', 'B.run 1.3333 0.6667']);
    expect((await page.getByTestId('eval-ci-table').locator('thead th').allInnerTexts()).map((t) => t.trim())).toContain('NumRet (mean per query)');
    // Back to the measures the next tests export.
    await page.getByTestId('eval-measures').fill('P@2 RR');
    await page.getByTestId('eval-go').click();
    await expect.poll(async () => (await table.locator('thead th').allInnerTexts()).map((t) => t.trim())).toEqual(['Run', 'P@2', 'RR']);
  });

  it('exports the per-query CSV and LaTeX, each with a manifest', async () => {
    const csv = await download('export-csv-per-query');
    expect(csv.map((f) => f.name).sort()).toEqual(['evaluation-per-query.csv', 'evaluation-per-query.csv.manifest.json']);
    const text = csv.find((f) => f.name.endsWith('.csv'))!.body.toString();
    expect(text.split('\n')).toContain('A.run,P@2,q1,0.5');
    const manifest = JSON.parse(csv.find((f) => f.name.endsWith('.json'))!.body.toString());
    expect(manifest.evaluation.measures).toEqual(['P@2', 'RR']);
    expect(manifest.data.qrels.sha256).toMatch(/^[0-9a-f]{64}$/);

    const tex = await download('export-latex');
    const latex = tex.find((f) => f.name === 'evaluation.tex')!.body.toString();
    expect(latex).toContain('\\toprule');
    expect(latex).toContain('\\textbf{0.667}');
    compileLatex(latex); // issue 17 item 7: the file as downloaded compiles with pdflatex
  });

  it('exports the figure as SVG and as a 300-dpi PNG', async () => {
    const [svg] = await download('eval-plot-svg');
    expect(svg!.name).toBe('per-query-P@2.svg');
    expect(svg!.body.toString()).toMatch(/^<svg[\s\S]*<\/svg>$/);
    const [png] = await download('eval-plot-png');
    expect(png!.body.subarray(1, 4).toString()).toBe('PNG');
    // 720 × 420 CSS px at scale 300/96 → 2250 × 1312.5, which plotly truncates to 1312 px (7.5 × 4.375 in at 300 dpi)
    expect(png!.body.readUInt32BE(16)).toBe(2250);
    expect(png!.body.readUInt32BE(20)).toBe(1312);
    const [data] = await download('eval-plot-csv');
    expect(data!.body.toString().split('\n')[0]).toBe('run,qid,P@2');
  });
});
