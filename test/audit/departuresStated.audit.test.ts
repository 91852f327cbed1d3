/**
 * Audit of issue 23 "Done when": "Every departure from a paper (a test replaced as default, a normalisation made
 * comparable) is stated where the number is shown, in the caption and in the manifest". The metrics carry the
 * departures (test/experiments/metrics.test.ts, richrag/metrics.test.ts), but no test read the LaTeX captions or
 * the manifests. Here the bundled Fair RAG and RichRAG demo specs run on the simulated reader (noise 0) and:
 * - Fair RAG Table 2 (default test: the within-query exchange test, not Kim & Diaz's unpaired t-test): the
 *   departure is in the notes under every LaTeX Table 2 (raw and EU̅ scale, paired and paper cells; the caption itself
 *   is one sentence since issue 34 item 9) and in the run's manifest
 *   (evaluation.significance.departure), and so is the test's name;
 * - RichRAG Table 3 (NCOM of every row against one common pool, not each ranker's own pool): the departure is in
 *   the Table 3 caption and in the manifest; with analysis.ncomPool = 'own' (RichRAG's code) the caption says the
 *   rows are not comparable.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeLatex } from '../../src-main/core/format/latex';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { ensureDemoSimReader } from '../../src-main/services/simulation/demoSim';
import { openWorkbench, type Workbench } from '../planted/support';

let wb: Workbench;
const spec = (file: string) => JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', file), 'utf8')) as Record<string, unknown>;

beforeAll(async () => {
  wb = openWorkbench('audit-departures');
  await loadDemoCollection(wb.services);
  ensureDemoSimReader(wb.services);
});
afterAll(async () => wb?.close());

async function run(s: Record<string, unknown>): Promise<number> {
  const { experiment } = wb.services.experiments.upsert(s);
  const r = wb.services.experiments.runToContinue(experiment.id, true).run;
  await wb.services.experiments.executeRun(r.id, { signal: new AbortController().signal, progress: () => {} });
  return r.id;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ');

describe('departures from the papers are stated in the caption and the manifest', () => {
  it('Fair RAG Table 2: the default test’s departure in the notes under both tables and the manifest', async () => {
    const runId = await run(spec('fair-rag.json'));
    const m = wb.services.experiments.metrics(runId) as { table2: { departure: string | null; test: string; testId: string } };
    expect(m.table2.testId).not.toBe('kim-diaz-unpaired-t');
    expect(m.table2.departure).toMatch(/^Departure from Kim & Diaz/);
    for (const format of ['latex-table2', 'latex-table2-normalized', 'latex-table2-paper', 'latex-table2-normalized-paper']) {
      const out = await wb.services.experiments.export(runId, format);
      // Issue 34 item 9: the caption is one sentence; the test, correction and departure are the notes set below the table.
      const caption = oneLine(/\\parbox\{\\linewidth\}\{\\footnotesize\\raggedright Notes\. ([\s\S]*)\}\n\\end\{table\}/.exec(out.file.text)![1]!);
      expect(caption, format).toContain(oneLine(escapeLatex(m.table2.departure!)));
      expect(caption, format).toContain(oneLine(escapeLatex(m.table2.test)));
      const sig = (out.manifest as { evaluation: { significance: { departure?: string; test: string } } }).evaluation.significance;
      expect(sig.departure).toBe(m.table2.departure);
      expect(sig.test).toContain(m.table2.test);
    }
  }, 600_000);

  it('RichRAG Table 3: the common-pool NCOM in the caption and the manifest; RichRAG’s own pools say "not comparable"', async () => {
    const base = spec('richrag.json');
    for (const [name, analysis, phrase] of [
      ['common', {}, 'one common pool per query'],
      ['own', { ncomPool: 'own' }, 'so rows are not comparable'],
    ] as const) {
      const s = { ...base, name: `RichRAG departure ${name}`, analysis: { ...(base.analysis as object), ...analysis } };
      const runId = await run(s);
      const m = wb.services.experiments.metrics(runId) as { table3: { departure: string | null } };
      expect(m.table3.departure).toContain(phrase);
      const out = await wb.services.experiments.export(runId, 'latex-table3');
      expect(oneLine(out.file.text), name).toContain(phrase);
      const sig = (out.manifest as { evaluation: { significance: { departure?: string } } }).evaluation.significance;
      if (name === 'common') expect(sig.departure).toBe(m.table3.departure);
    }
  }, 600_000);
});
