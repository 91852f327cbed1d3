/**
 * End to end (issue 17 item 7): in the Results screen, means of bounded measures show intervals
 * that stay in [0, 1] and say how they were made; a figure exports as vector PDF — a click on
 * its PDF button downloads a valid PDF drawn with paths and text (no image) that carries the
 * evaluation's reproducibility manifest as an attached file — and its SVG and PNG exports carry
 * the same manifest inside the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type BrowserMode } from '../../src-main/server/browserMode';
import { manifestOfPng, manifestOfSvg } from '../../src-renderer/src/components/figureExport/manifest';
import { checkPdfStructure, hasPoppler, poppler } from '../io/figures/pdfCheck';
import { launchBrowser } from '../support/browser';
import { compileLatex } from '../support/pdflatex';
import { filesOf } from '../support/zip';

const qrels = ['q1 0 d1 1', 'q1 0 d2 0', 'q1 0 d3 1', 'q2 0 d4 1', 'q3 0 d5 1', 'q3 0 d6 1'].join('\n');
const runA = ['q1 Q0 d2 1 3.0 A', 'q1 Q0 d1 2 2.0 A', 'q1 Q0 d3 3 1.0 A', 'q2 Q0 d4 1 1.0 A', 'q3 Q0 d7 1 1.0 A'].join('\n');
const runB = ['q1 Q0 d1 1 3.0 B', 'q1 Q0 d3 2 2.0 B', 'q3 Q0 d5 1 2.0 B', 'q3 Q0 d6 2 1.0 B'].join('\n');

let dir: string;
let app: BrowserMode;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-figpdf-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'f.fairground') });
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1366, height: 768 }, acceptDownloads: true });
  await page.goto(app.server.launchUrl);
  await page.locator('nav a[data-screen="results"]').click();
  await page.getByTestId('eval-source-files').check();
  await page.getByTestId('eval-runs').setInputFiles([
    { name: 'A.run', mimeType: 'text/plain', buffer: Buffer.from(runA) },
    { name: 'B.run', mimeType: 'text/plain', buffer: Buffer.from(runB) },
  ]);
  await page.getByTestId('eval-qrels').setInputFiles({ name: 'test.qrels', mimeType: 'text/plain', buffer: Buffer.from(qrels) });
  await page.getByTestId('eval-measures').fill('P@2 RR');
  await page.getByTestId('eval-go').click();
  await page.getByTestId('eval-plot').and(page.locator('[data-ready="true"]')).waitFor({ timeout: 60_000 });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function download(testId: string): Promise<{ name: string; body: Buffer }> {
  const [d] = await Promise.all([page.waitForEvent('download', { timeout: 60_000 }), page.getByTestId(testId).click()]);
  return { name: (d as Download).suggestedFilename(), body: readFileSync((await (d as Download).path())!) };
}

describe('Results → intervals of bounded measures', () => {
  it('shows each mean with its 95% interval by the measure’s declared scale (P@2 and RR are continuous: t clipped to [0, 1]), and says which', async () => {
    const table = page.getByTestId('eval-ci-table');
    const rows = (await table.locator('tbody tr').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
    // A: P@2 = .5, .5, 0 → 1/3 ± 4.3027·√(1/12)/√3 = [−0.384, 1.050] → [0, 1]; RR = .5, 1, 0 → [−0.742, 1.742] → [0, 1].
    // B: P@2 = RR = 1, 0, 1: continuous measures whose values happen to be 0/1 (issue 23 item 4: no longer Wilson)
    // → 2/3 ± 4.3027·√(1/3)/√3 = [−0.768, 2.101] → [0, 1].
    expect(rows).toEqual(['A.run 0.3333 [0.0000, 1.0000]* 0.5000 [0.0000, 1.0000]*', 'B.run 0.6667 [0.0000, 1.0000]* 0.6667 [0.0000, 1.0000]*']);
    expect((await table.locator('caption').innerText()).replace(/\s+/g, ' ')).toBe(
      "Means with 95% confidence intervals. 95% CIs: Student t clipped to the measure's range [0, 1] (4 of 4 clipped). * clipped to the measure's range [0, 1].",
    );
  });

  it('the summary CSV carries the same intervals and names their method in its last column', async () => {
    // One download (issue 26: one click, one download): a .zip of the CSV and its manifest by default.
    const got: Download[] = [];
    const onDownload = (d: Download) => got.push(d);
    page.on('download', onDownload);
    await page.getByTestId('export-csv-summary').click();
    await expect.poll(() => got.length, { timeout: 60_000 }).toBe(1);
    await new Promise((r) => setTimeout(r, 1500));
    page.off('download', onDownload);
    expect(got.length).toBe(1);
    const files = filesOf(got[0]!.suggestedFilename(), readFileSync((await got[0]!.path())!));
    expect(got[0]!.suggestedFilename()).toBe('evaluation-summary.csv.zip');
    expect(files.length).toBe(2);
    expect(files[0]!.name).toBe('evaluation-summary.csv');
    expect(files[1]!.name).toMatch(/manifest.*\.json$/);
    expect((JSON.parse(files[1]!.body.toString('utf8')) as { evaluation: { measures: string[] } }).evaluation.measures).toEqual(['P@2', 'RR']);
    const lines = files.find((f) => f.name === 'evaluation-summary.csv')!.body.toString('utf8').trim().split('\n');
    expect(lines[0]!.endsWith(',ci_method,test,correction,aggregate,trec_eval_all')).toBe(true);
    expect(lines.find((l) => l.startsWith('A.run,P@2,'))).toMatch(/^A\.run,P@2,0\.333333333333,0,1,.*,"t, clipped to \[0, 1\] \(clipped\)",,,mean per query,[0-9.]+$/);
    const b = lines.find((l) => l.startsWith('B.run,P@2,'))!;
    expect(b.split(',').slice(3, 5).map(Number).map((v) => v.toFixed(4))).toEqual(['0.0000', '1.0000']);
    expect(b).toMatch(/,"t, clipped to \[0, 1\] \(clipped\)",two-sided paired (t-test|randomization test),(holm|bonferroni|bh|none),mean per query,[0-9.]+$/);
  });
});

describe('Results figure → PDF', () => {
  let pdfFile: string | undefined;
  it('the PDF button downloads a vector PDF of the figure with the evaluation manifest attached', async () => {
    const pdf = await download('eval-plot-pdf');
    expect(pdf.name).toBe('per-query-P@2.pdf');
    expect(pdf.body.subarray(0, 8).toString('latin1')).toBe('%PDF-1.7');
    const s = checkPdfStructure(pdf.body);
    const all = [...s.bodies.values()].join('\n');
    expect(all).toContain('/MediaBox [0 0 540 315]'); // 720 × 420 px at 0.75 pt/px
    expect(all).not.toMatch(/\/XObject|\/Image/);
    expect(all).toContain('(P@2 per query) Tj');
    for (const q of ['q1', 'q2', 'q3', 'A.run', 'B.run']) expect(all).toContain(`(${q}) Tj`);
    // Bars: P@2 of A is 0.5 / 0.5 / 0, of B 1 / 0 / 1: four non-empty bars drawn as filled paths.
    expect(all.split('\n').filter((l) => l === 'f').length).toBeGreaterThanOrEqual(4);

    const embedded = [...s.bodies.values()].find((b) => b.includes('/Type /EmbeddedFile'))!;
    const json = Buffer.from(embedded.slice(embedded.indexOf('stream\n') + 7, embedded.lastIndexOf('\nendstream')), 'latin1').toString('utf8');
    const manifest = JSON.parse(json);
    expect(manifest.evaluation.measures).toEqual(['P@2', 'RR']);
    expect(manifest.data.qrels.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.export.file).toBe('per-query-P@2.pdf');
    expect(manifest.export.format).toBe('PDF (vector: paths and text)');
    expect(manifest.export.plottedDataSha256).toMatch(/^[0-9a-f]{64}$/);

    const file = join(dir, 'figure.pdf');
    writeFileSync(file, pdf.body);
    compileLatex(`\\includegraphics[width=\\linewidth]{${file}}`, ['graphicx']);
    pdfFile = file;
  });

  // A separate test, so a machine without poppler counts it as skipped (issue 26 item 4).
  it.skipIf(!hasPoppler())('poppler reads the downloaded PDF: one page, the title as text, the manifest attached, no images', () => {
    expect(pdfFile, 'the PDF test above wrote no file').toBeDefined();
    const file = pdfFile!;
    expect(poppler('pdfinfo', [file])).toMatch(/Pages:\s+1\n/);
    expect(poppler('pdftotext', [file, '-'])).toContain('P@2 per query');
    expect(poppler('pdfdetach', ['-list', file])).toContain('per-query-P@2.manifest.json');
    expect(poppler('pdfimages', ['-list', file]).trim().split('\n')).toHaveLength(2);
  });

  it('SVG and PNG carry the same manifest inside the file', async () => {
    const svg = await download('eval-plot-svg');
    expect(svg.name).toBe('per-query-P@2.svg');
    const fromSvg = JSON.parse(manifestOfSvg(svg.body.toString('utf8'))!);
    expect(fromSvg.evaluation.measures).toEqual(['P@2', 'RR']);
    expect(fromSvg.export.file).toBe('per-query-P@2.svg');
    const png = await download('eval-plot-png');
    expect(png.body.readUInt32BE(16)).toBe(2250);
    const fromPng = JSON.parse(manifestOfPng(png.body)!);
    expect(fromPng.export.file).toBe('per-query-P@2.png');
    expect(fromPng.data.qrels.sha256).toBe(fromSvg.data.qrels.sha256);
  });
});
