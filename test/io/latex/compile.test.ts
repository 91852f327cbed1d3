/**
 * Issue 17 item 7: every LaTeX file the app exports compiles with plain pdflatex (article +
 * booktabs, no inputenc, no amsmath) and is pure ASCII: Greek letters, relations, dashes, accents
 * and the combining bar of EE-D̄ become macros. Covers each writer: io/latex booktabs (MoI, RichRAG,
 * IR evaluation, GFRC evaluation exports), Fair RAG's Table 2 and the renderer's tables.
 */
import { describe, expect, it } from 'vitest';
import { IrEvaluationRequest } from '../../../src-main/api/contract/evaluation';
import type { FairRagMetrics } from '../../../src-main/api/contract/fairRag';
import { table2Latex } from '../../../src-main/experiments/fair-rag/exports';
import { formatBooktabsTable } from '../../../src-main/io/latex/booktabs';
import { escapeLatex, unicodeToLatex } from '../../../src-main/io/latex/escape';
import { evaluateIrRuns } from '../../../src-main/services/evaluation/irEvaluation';
import { exportIrEvaluation } from '../../../src-main/services/evaluation/irEvaluationExport';
import { latexTable } from '../../../src-renderer/src/screens/experiments/latex';
import { compileLatex } from '../../support/pdflatex';

 
const ASCII = /^[\x00-\x7f]*$/;

function compiles(tex: string): void {
  expect(tex).toMatch(ASCII);
  const r = compileLatex(tex);
  expect(r.missingCharacters).toEqual([]);
  expect(r.pdfBytes).toBeGreaterThan(1000);
}

describe('LaTeX text: Unicode becomes macros', () => {
  it('maps Greek, relations, dashes, accents and combining bars, leaves ASCII alone', () => {
    expect(escapeLatex('BM25 α=2 ≥ φ')).toBe('BM25 \\ensuremath{\\alpha}=2 \\ensuremath{\\geq} \\ensuremath{\\phi}');
    expect(escapeLatex('EE-D̄ — café')).toBe('EE-\\ensuremath{\\bar{\\mbox{D}}} --- caf\\\'{e}');
    expect(escapeLatex('Søren_1 & 10%')).toBe('S\\o{}ren\\_1 \\& 10\\%');
    expect(unicodeToLatex('$p \\le 0.05$')).toBe('$p \\le 0.05$');
    expect(unicodeToLatex('中')).toBe('?');
  });

  it('a text with every mapped kind of character compiles', () => {
    compiles(`${escapeLatex('α β γ δ ε φ ω Δ Σ Ω ≤ ≥ ≠ ≈ ± × · − – — … † ‡ ° µ ² café naïve Müller Søren Łódź ŷ EE-D̄ EU̅ “quoted” ‘x’ 中')}\n\n$x ${unicodeToLatex('≤ α')}$`);
  });
});

describe('every LaTeX export compiles with pdflatex', () => {
  const names = ['BM25 (α = 2)', 'dense_φ ≥ 0.5', 'RRF — k=60 & 10%'];

  it('booktabs tables with letter markers (GFRC evaluation, ranx style)', () => {
    compiles(
      formatBooktabsTable({
        systems: names,
        columns: [{ label: 'nDCG@10' }, { label: 'EE-D̄', higherIsBetter: false, digits: 4 }],
        values: [
          [0.41, 0.12],
          [0.52, 0.1],
          [null, 0.3],
        ],
        significance: { markers: { style: 'letters', pValues: [[[null, 0.01, 0.2], [0.01, null, 0.5], [0.2, 0.5, null]], [[null, 0.3, 0.001], [0.3, null, 0.02], [0.001, 0.02, null]]] }, test: 'two-sided paired t-test', correction: 'holm', alpha: 0.05 },
        caption: 'Means per run (α = 0.05, Holm).',
        environment: 'table*',
      }),
    );
  });

  it('booktabs tables with † / ‡ against a baseline (MoI Tables 1/7/8, RichRAG Tables 1/3)', () => {
    compiles(
      formatBooktabsTable({
        systems: names,
        columns: [{ label: 'Acc' }, { label: 'ROUGE-L' }, { label: 'NCOM' }],
        values: [
          [0.5, 0.3, 0.2],
          [0.6, 0.31, 0.25],
          [0.7, 0.2, 0.3],
        ],
        significance: { markers: { style: 'baseline', baseline: 0, pValues: [[null, null, null], [0.03, 0.2, 0.004], [0.001, 0.04, null]] }, test: 'paired t-test', correction: 'bonferroni', alpha: 0.05 },
      }),
    );
  });

  it('the IR evaluation export (runs named with Greek letters)', () => {
    const qrels = ['q1 0 d1 1', 'q1 0 d2 0', 'q1 0 d3 1', 'q2 0 d4 1', 'q3 0 d5 1', 'q3 0 d6 1'].join('\n');
    const runA = ['q1 Q0 d2 1 3.0 A', 'q1 Q0 d1 2 2.0 A', 'q1 Q0 d3 3 1.0 A', 'q2 Q0 d4 1 1.0 A', 'q3 Q0 d7 1 1.0 A'].join('\n');
    const runB = ['q1 Q0 d1 1 3.0 B', 'q1 Q0 d3 2 2.0 B', 'q3 Q0 d5 1 2.0 B', 'q3 Q0 d6 2 1.0 B'].join('\n');
    const ev = evaluateIrRuns(
      IrEvaluationRequest.parse({
        runs: [
          { name: 'bm25 α=1', text: runA },
          { name: 'dense φ', text: runB },
        ],
        qrels: { name: 'test.qrels', text: qrels },
        measures: ['P@2', 'RR', 'nDCG@10'],
      }),
    );
    compiles(exportIrEvaluation(ev, 'latex', { digits: 3, environment: 'table' }).file.content);
  });

  it("Fair RAG's Table 2", () => {
    const cell = (difference: number | null, pValue: number | null) => ({ lower: 0, upper: 0.2, runs: 3, meanUtility: 0.5, difference, pValue, significant: pValue !== null && pValue < 0.05 });
    const metrics = {
      table2: {
        intervals: [
          [0, 0.2],
          [0.2, 0.4],
        ],
        test: "unpaired Student's t-test (pooled variance, two-sided)",
        alpha: 0.05,
        utility: 'EU',
        rows: [{ retriever: 'bm25_α', generator: 'tiny—q8', baseline: 0.41, baselineQueries: 10, cells: [cell(0.05, 0.001), cell(-0.1, 0.03)], excludedAtOne: 0 }],
      },
    } as unknown as FairRagMetrics;
    compiles(table2Latex(metrics));
  });

  it("the renderer's tables (Fair RAG summary, Fig. 3 tests, per query): EE-D̄, α, −, – and amsmath's \\text", () => {
    compiles(
      latexTable({
        caption:
          'Paired two-sided t-tests of $\\overline{\\mathrm{EE\\text{-}D}}$ between fairness control parameters $\\alpha$ (per query). $^{\\dagger}$: $p_{\\mathrm{Holm}} < 0.05$.',
        label: 'tab:fig3',
        header: ['Retriever', 'Pair', 'EE-D̄', 'EU̅', 'p (Holm)'],
        align: 'llrrr',
        rows: [
          ['bm25', { latex: '$\\alpha$ 1 vs 2' }, { text: '−0.120 [−0.2, –]' }, 0.5, { text: '0.004', marker: '‡' }],
          ['dense', { latex: '$\\alpha$ 2 vs 4' }, { text: '0.010' }, null, { text: '0.300', marker: '' }],
        ],
        markers: ['†', '‡'],
      }),
    );
  });
});
