/**
 * The README's screenshots of the bundled demo (issue 23 item 6), regenerated:
 *
 *   node scripts/build.mjs --renderer-only && npx tsx scripts/screenshots.ts [--out resources/readme]
 *
 * A fresh workspace in a scratch folder gets the demo (collection, simulated readers, tiny model); the three demo specs
 * (resources/demo/experiments/moi.json, fair-rag.json, richrag.json — all on the simulated reader) are run through
 * the job runner as the app runs them; then the app is served in browser mode and Debian's Chromium
 * (playwright-core, /usr/bin/chromium or CHROME_PATH) opens each run at 1366×768 and takes a viewport
 * screenshot with the view scrolled to:
 *
 *   demo-moi-table1.png       MoI Table 1 (the ordering methods against the retriever order)
 *   demo-fair-rag-fig4.png    Fair RAG Fig. 4 (c): EU̅ against EE-D̄ per retriever, 95% bands
 *   demo-fair-rag-table2.png  Fair RAG Table 2 (utility minus the deterministic baseline per disparity interval)
 *   demo-richrag-table3.png   RichRAG Table 3 (ranking quality; NCOM against one common pool per query)
 *
 * Each file is checked to be under 200 KB. The numbers are those of the demo specs (seeded, noise 0), so a rerun
 * gives the same pictures unless the app's rendering changed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Locator } from 'playwright-core';
import { startBrowserMode } from '../src-main/server/browserMode';
import { ensureDemo } from '../src-main/services/demoSetup';

const { values } = parseArgs({ options: { out: { type: 'string', default: join('resources', 'readme') } } });
const out = resolve(values.out!);
const MAX_BYTES = 200 * 1024;

const specFile = (name: string) => JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', name), 'utf8')) as Record<string, unknown>;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-screenshots-'));
  const app = await startBrowserMode({ workspacePath: join(dir, 'demo.fairground') });
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  try {
    const s = app.services;
    s.settings.update({ threads: 1 });
    await ensureDemo(s, (m) => console.log(m));
    const runs: Record<string, { experimentId: number; runId: number }> = {};
    for (const name of ['moi', 'fair-rag', 'richrag']) {
      const { experiment } = s.experiments.upsert(specFile(`${name}.json`));
      const job = s.experiments.startRun(experiment.id);
      const done = await s.jobs.wait(job.id);
      if (done.status !== 'succeeded') throw new Error(`the ${name} demo run ended ${done.status}: ${done.error ?? ''}`);
      const run = s.experiments.listRuns(experiment.id).at(-1)!;
      runs[name] = { experimentId: experiment.id, runId: run.id };
      console.log(`${name}: experiment ${experiment.id}, run ${run.id}`);
    }
    const page = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    page.setDefaultTimeout(120_000);
    const base = app.server.launchUrl.split('#')[0]!;
    await page.goto(app.server.launchUrl);
    const open = async (name: string) => {
      const r = runs[name]!;
      await page.goto(`${base}#/experiments/${r.experimentId}/runs/${r.runId}`);
    };
    mkdirSync(out, { recursive: true });
    /** Scroll `anchor` to the top of the app's scrolling pane, pointer off the plots (no plotly mode bar), then shoot. */
    const shoot = async (file: string, anchor: Locator) => {
      await anchor.waitFor();
      await anchor.evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await page.mouse.move(1, 1);
      // Let plotly finish drawing and the scroll settle.
      await page.waitForTimeout(800);
      const path = join(out, file);
      await page.screenshot({ path, fullPage: false });
      const bytes = statSync(path).size;
      console.log(`${path}: ${bytes} bytes`);
      if (bytes >= MAX_BYTES) throw new Error(`${file} is ${bytes} bytes, not under ${MAX_BYTES}`);
    };

    await open('moi');
    await page.getByTestId('moi-table1').waitFor();
    await shoot('demo-moi-table1.png', page.getByRole('heading', { name: 'Answer quality (Table 1)' }));

    await open('fair-rag');
    await page.getByTestId('fr-tab-fig4').click();
    await page.locator('[data-testid="fr-fig4c"] .main-svg').first().waitFor();
    await shoot('demo-fair-rag-fig4.png', page.getByTestId('fr-fig4c'));
    await page.getByTestId('fr-tab-table2').click();
    await page.getByTestId('fr-table2-wrap').waitFor();
    await shoot('demo-fair-rag-table2.png', page.getByRole('heading', { name: /^Table 2/ }));

    await open('richrag');
    await page.getByTestId('richrag-table3').waitFor();
    await shoot('demo-richrag-table3.png', page.getByRole('heading', { name: 'Rankings (Table 3)' }));
  } finally {
    await browser.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
  process.exitCode = 1;
});
