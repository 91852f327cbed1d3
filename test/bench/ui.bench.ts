/**
 * UI rendering at scale (issue 10), in Chromium through browser mode: the app's virtualised
 * DataTable with 100k rows against 1k rows, and its plotly PlotFigure with 10k points against 1k
 * points, each measured in the same run (ratio = time at the large size / time at the small one).
 *
 * The page is a hidden #/bench route of a small bench bundle (test/bench/ui/: the renderer's own
 * components, built here with Vite and served by the browser-mode server with its token, Host
 * checks and CSP), so the renderer itself needs no bench code. Time = from handing the component
 * its rows until two animation frames later (the first paint of the result); the median of 3
 * fresh page loads per size. `--scale` scales the large sizes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Page } from 'playwright-core';
import { startBrowserMode } from '../../src-main/server/browserMode';
import { launchBrowser } from '../support/browser';
import { row, type BenchContext, type BenchRow } from './harness';

const UI_DIR = join(process.cwd(), 'test', 'bench', 'ui');

interface BenchApi {
  render(kind: 'table' | 'plot', n: number): Promise<number>;
  domRows(): number;
}

async function buildBundle(outDir: string): Promise<void> {
  const { build } = await import('vite');
  const { svelte } = await import('@sveltejs/vite-plugin-svelte');
  await build({
    configFile: false,
    root: UI_DIR,
    base: './',
    logLevel: 'warn',
    plugins: [svelte({ configFile: join(process.cwd(), 'src-renderer', 'svelte.config.js') })],
    build: { outDir, emptyOutDir: true, target: 'es2022', chunkSizeWarningLimit: 10_000, sourcemap: false },
  });
}

async function measure(page: Page, url: string, kind: 'table' | 'plot', n: number, repeats = 3): Promise<{ ms: number; domRows: number }> {
  const times: number[] = [];
  let domRows = 0;
  for (let i = 0; i < repeats; i++) {
    await page.goto(url);
    await page.waitForFunction(() => '__bench' in globalThis);
    times.push(await page.evaluate(([k, size]) => (globalThis as unknown as { __bench: BenchApi }).__bench.render(k, size), [kind, n] as const));
    domRows = await page.evaluate(() => (globalThis as unknown as { __bench: BenchApi }).__bench.domRows());
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)]!, domRows };
}

export async function uiBench(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-ui-'));
  const t0 = performance.now();
  await buildBundle(join(dir, 'renderer'));
  ctx.log(`built the bench page in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const app = await startBrowserMode({ workspacePath: join(dir, 'w.fairground'), staticDir: join(dir, 'renderer') });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const url = `${app.server.launchUrl}#/bench`;
    const tableBig = Math.max(1000, Math.round(100_000 * ctx.scale));
    const plotBig = Math.max(1000, Math.round(10_000 * ctx.scale));
    const tSmall = await measure(page, url, 'table', 1000);
    const tBig = await measure(page, url, 'table', tableBig);
    ctx.log(`DataTable: 1k rows ${tSmall.ms.toFixed(0)} ms, ${tableBig} rows ${tBig.ms.toFixed(0)} ms (${tBig.domRows} rows in the DOM)`);
    const pSmall = await measure(page, url, 'plot', 1000);
    const pBig = await measure(page, url, 'plot', plotBig);
    ctx.log(`PlotFigure: 1k points ${pSmall.ms.toFixed(0)} ms, ${plotBig} points ${pBig.ms.toFixed(0)} ms`);
    return [
      row({
        suite: 'ui',
        name: `DataTable (virtualised), ${tableBig.toLocaleString('en-US')} rows, first paint`,
        metric: 'ms',
        better: 'lower',
        baselineLabel: '1k rows',
        candidateLabel: `${tableBig / 1000}k rows`,
        baseline: tSmall.ms,
        candidate: tBig.ms,
        note: `${tBig.domRows} table rows in the DOM at ${tableBig / 1000}k`,
      }),
      row({
        suite: 'ui',
        name: `PlotFigure (plotly scatter, SVG), ${plotBig.toLocaleString('en-US')} points, first paint`,
        metric: 'ms',
        better: 'lower',
        baselineLabel: '1k points',
        candidateLabel: `${plotBig / 1000}k points`,
        baseline: pSmall.ms,
        candidate: pBig.ms,
      }),
    ];
  } finally {
    await browser.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
