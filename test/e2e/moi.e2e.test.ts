/**
 * End to end in Chromium (browser mode): import a MoI spec on the Experiments screen, start a run
 * (the demo collection and the generated tiny model, one thread), open it, read the Table 1-style
 * table, see the Fig. 6 position-bias plot, drill down into a query (permutations with their
 * scores, the fitted a and u), and export the table as CSV and LaTeX (each with its manifest) and
 * the plot as SVG.
 */
import { mkdtempSync, rmSync } from 'node:fs';
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

const SPEC = {
  kind: 'moi',
  name: 'MoI e2e',
  collection: 'Fairground demo',
  queries: ['ma-q1', 'ma-q2'],
  n: 3,
  generator: { model: 'fairground-tiny' },
  decoding: { maxTokens: 4 },
  baselines: ['random', 'self-consistency', 'bayes-saliency', 'gold-position'],
  selfConsistency: { samples: 3 },
  qg: { prompt: 'shared' },
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-e2e-moi-'));
  app = await startBrowserMode({ workspacePath: join(dir, 'moi.fairground') });
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

describe('Experiments → MoI run', () => {
  it('imports a MoI spec, runs it and opens the run view', async () => {
    await page.getByTestId('experiment-import').click();
    await page.getByTestId('spec-text').fill(JSON.stringify(SPEC, null, 2));
    await page.getByTestId('spec-valid').waitFor();
    await page.getByTestId('spec-save').click();
    await page.getByTestId('experiment-run').click();
    await page.locator('[data-testid="run-row"][data-status="succeeded"]').waitFor({ timeout: 60_000 });
    await page.getByTestId('run-link').first().click();
    await page.getByTestId('moi-run').waitFor();
    const table = page.getByTestId('moi-table1');
    await table.waitFor();
    const labels = await table.locator('tbody tr td:first-child').allInnerTexts();
    expect(labels).toEqual(['Retriever', 'Random', 'Self-consistency', 'Bayes saliency', 'MoI']);
    expect(await table.locator('thead th').allInnerTexts()).toEqual(['Ranking', 'rougeL']);
  });

  it('shows the Fig. 6 position-bias plot and exports it as SVG, or says why there is no curve', async () => {
    // Fig. 6 leaves out fits with no detected position effect (issue 23 item 1), and the tiny random-weight model's
    // fits may show none: then the view says so instead of drawing. Which one must follow the queries table's fits.
    await page.getByTestId('moi-fig6').or(page.getByTestId('moi-fig6-empty')).first().waitFor({ timeout: 30_000 });
    const effects = await page.getByTestId('moi-queries').locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.textContent ?? ''));
    const anyEffect = effects.some((t) => /\bdetected \(/.test(t) && !/no position effect detected/.test(t));
    if (!anyEffect) {
      expect(await page.getByTestId('moi-fig6').count()).toBe(0);
      expect(await page.getByTestId('moi-fig6-empty').textContent()).toMatch(/No curve: no position effect detected in any fit/);
      return;
    }
    await page.getByTestId('moi-fig6').and(page.locator('[data-ready="true"]')).waitFor();
    const [svg] = await download('moi-fig6-svg');
    expect(svg!.name).toMatch(/^moi-run\d+-position-bias\.svg$/);
    expect(svg!.body).toMatch(/^<svg[\s\S]*<\/svg>$/);
    const [data] = await download('moi-fig6-csv');
    const lines = data!.body.trim().split('\n');
    expect(lines[0]).toBe('length,position,mean_a,sd,min,max,queries,uniform');
    expect(lines).toHaveLength(4); // N = 3 positions
  });

  it('drills down into a query: permutations, their scores, the fitted a and u', async () => {
    await page.getByTestId('moi-queries').locator('tbody tr', { hasText: 'ma-q2' }).click();
    const drill = page.getByTestId('moi-drilldown');
    await drill.getByRole('heading', { name: 'Query ma-q2' }).waitFor();
    // N = 3 < 3N: all 3! = 6 orderings are scored
    await expect.poll(() => drill.getByTestId('moi-permutations').locator('tbody tr[style]').count()).toBe(6);
    expect(await drill.getByTestId('moi-fit-a').locator('tbody td.num').count()).toBe(3);
    expect(await drill.getByTestId('moi-fit-facts').innerText()).toMatch(/orientation (kept|mirrored|degenerate)/);
    expect(await drill.getByTestId('moi-passages').locator('tbody tr').count()).toBe(3);
    const methods = await drill.getByTestId('moi-methods').locator('tbody tr td:first-child').allInnerTexts();
    expect(methods).toEqual(expect.arrayContaining(['Retriever', 'MoI', 'Self-consistency', 'Gold at 1st', 'Gold at 3rd']));
    await screenshot(page, 'moi-run-drilldown');
  });

  it('exports Table 1 as CSV and LaTeX, each with its manifest', async () => {
    const csv = await download('moi-export-table1-csv');
    expect(csv.map((f) => f.name).sort()).toEqual([expect.stringMatching(/^MoI_e2e-run\d+-table1\.csv$/), expect.stringMatching(/^MoI_e2e-run\d+-table1\.csv\.manifest\.json$/)]);
    const text = csv.find((f) => f.name.endsWith('.csv'))!.body;
    expect(text.split('\r\n')[0]).toBe('method,label,measure,mean,n,difference_vs_baseline,p,p_adjusted,significant,test,correction');
    expect(text).toContain('moi,MoI,rougeL,');
    const manifest = JSON.parse(csv.find((f) => f.name.endsWith('.json'))!.body) as { export: { sha256: string }; parameters: { n: number } };
    expect(manifest.parameters.n).toBe(3);
    expect(manifest.export.sha256).toMatch(/^[0-9a-f]{64}$/);
    const tex = await download('moi-export-table1-latex');
    const latex = tex.find((f) => f.name.endsWith('.tex'))!.body;
    expect(latex).toContain('\\toprule');
    expect(latex).toContain('Self-consistency &');
  });
});
