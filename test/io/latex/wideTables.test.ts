/**
 * Issue 26 item 4: a wide table (9 columns, as Fair RAG's per-query table with all its measures)
 * fits the page. Every LaTeX writer (io/latex booktabs, Fair RAG's Table 2, the renderer's tables)
 * sets a table of WIDE_TABLE_COLUMNS or more columns in a box shrunk to \linewidth only when wider;
 * compiled with pdflatex (article class, \linewidth 345 pt), the log has no overfull box. The same
 * table without the box is measured too, so the test shows what it guards against.
 */
import { describe, expect, it } from 'vitest';
import type { FairRagMetrics } from '../../../src-main/api/contract/fairRag';
import { fitTabular, WIDE_TABLE_COLUMNS } from '../../../src-main/core/format/latex';
import { table2Latex } from '../../../src-main/experiments/fair-rag/exports';
import { formatBooktabsTable } from '../../../src-main/io/latex/booktabs';
import { latexTable } from '../../../src-renderer/src/screens/experiments/latex';
import { compileLatex } from '../../support/pdflatex';

/** The fragment with the fitting box taken out again (the tabular as written before the fix). */
function unboxed(tex: string): string {
  return tex
    .split('\n')
    .filter((l) => !l.startsWith('\\sbox0{%') && !l.startsWith('\\ifdim\\wd0'))
    .map((l) => (l === '\\end{tabular}}%' ? '\\end{tabular}' : l))
    .join('\n');
}

function fits(tex: string): { before: number } {
  expect(tex).toContain('\\sbox0{%');
  expect(tex).toContain('\\usepackage{graphicx}');
  const after = compileLatex(tex);
  expect(after.overfullPt).toEqual([]);
  const before = compileLatex(unboxed(tex), ['booktabs']);
  console.info(`unboxed: ${Math.max(0, ...before.overfullPt)} pt too wide; boxed: fits`);
  return { before: Math.max(0, ...before.overfullPt) };
}

const MEASURES = ['EE-D̄', 'EE-R', 'EE-L', 'EU', 'EU̅', 'AR'];

describe('wide LaTeX tables fit the page', () => {
  it("the renderer's 9-column per-query table: 190 pt too wide unboxed, none now", () => {
    const tex = latexTable({
      caption: 'Per-query metrics.',
      label: 'tab:per-query',
      header: ['Query', 'Arm', 'n', 'm', ...MEASURES].slice(0, 9),
      align: 'llrrrrrrr',
      rows: [
        ['head-u1-weather-forecast', 'bm25 alpha=2 (stochastic, 100 samples)', 100, 20, 0.1234, 0.4567, 0.8901, 0.2345],
        ['tail-u7-long-query-name', 'dense phi (deterministic)', 1, 20, 0.5, 0.25, 0.125, 0.0625],
      ].map((r) => [...r, 0.9876]),
    });
    const { before } = fits(tex);
    expect(before).toBeGreaterThan(100);
  });

  it('io/latex booktabs with 8 measures (MoI / RichRAG / IR evaluation writers)', () => {
    const columns = ['nDCG@10', 'nDCG@20', 'AP', 'RR', 'P@5', 'P@10', 'Recall@100', 'EE-D̄'].map((label) => ({ label }));
    const tex = formatBooktabsTable({
      systems: ['bm25_k1=0.9_b=0.4 + rm3 (10 terms)', 'dense e5-small (cosine)'],
      columns,
      values: [columns.map((_, i) => 0.1 * i + 0.0123), columns.map((_, i) => 0.05 * i + 0.0456)],
      significance: { markers: { style: 'baseline', baseline: 0, pValues: [columns.map(() => null), columns.map((_, i) => (i % 2 ? 0.001 : 0.2))] }, test: 'two-sided paired t-test', correction: 'holm', alpha: 0.05 },
    });
    const { before } = fits(tex);
    expect(before).toBeGreaterThan(50);
  });

  it("Fair RAG's Table 2 with 8 disparity intervals", () => {
    const intervals = Array.from({ length: 8 }, (_, i) => [i / 8, (i + 1) / 8]);
    const cell = (d: number) => ({ lower: 0, upper: 0.1, runs: 3, meanUtility: 0.5, difference: d, pValue: 0.2, significant: false });
    const metrics = {
      table2: {
        intervals,
        test: "unpaired Student's t-test (pooled variance, two-sided)",
        alpha: 0.05,
        utility: 'EU',
        rows: [{ retriever: 'bm25_long_retriever_name', generator: 'simulated-reader-strong-primacy', baseline: 0.41, baselineQueries: 10, cells: intervals.map((_, i) => cell(-0.01 * i)), excludedAtOne: 0 }],
      },
    } as unknown as FairRagMetrics;
    const { before } = fits(table2Latex(metrics));
    expect(before).toBeGreaterThan(20);
  });

  it('a wide table that fits is not scaled (and compiles without graphicx); narrow tables are written as before', () => {
    const tex = latexTable({ caption: 'Small.', label: 'tab:s', header: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], align: 'lrrrrrr', rows: [[1, 2, 3, 4, 5, 6, 7]] });
    expect(tex).toContain('\\sbox0{%');
    // Compiled with booktabs only: \resizebox is never reached, so the missing graphicx does not matter.
    const plain = tex.split('\n').filter((l) => !l.startsWith('%')).join('\n');
    expect(compileLatex(plain, ['booktabs']).overfullPt).toEqual([]);
    const narrow = ['\\begin{tabular}{lrr}', '\\end{tabular}'];
    expect(fitTabular(narrow, WIDE_TABLE_COLUMNS - 1)).toBe(narrow);
    expect(latexTable({ caption: 'c', label: 'l', header: ['a', 'b'], align: 'lr', rows: [[1, 2]] })).not.toContain('sbox');
  });
});
