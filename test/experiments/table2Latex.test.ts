/**
 * Fair RAG Table 2 in LaTeX (issue 34 items 8f and 9).
 *
 * Cells: by default the quantity the table's (paired) test tests, the per-query paired difference;
 * the paper's unpaired difference of means stays available (`cells: 'paper'`, export
 * latex-table2-paper). Hand-computed on arms written out below (utility raw = normalised, u_max 1):
 *
 *  Constant utility (every arm of a query has its deterministic utility): q1 1, q2 0, q3 0.5;
 *  baseline mean 0.5. [0,.2): q1's arm (1) and q3's (0.5): paper 0.75 − 0.5 = +0.25, paired 0;
 *  [.4,.6): q1 (1), q2 (0): paper 0.00, paired 0; [.8,1): q2 (0): paper −0.50, paired 0.
 *  The paper's cells read +0.25 / −0.50 on a run whose rankings change no utility; paired cells read 0.00.
 *
 *  A small non-constant case in [0,.2): q1 (det 1) arms 0.4 and 1 → mean 0.7, paired −0.3; q2 (det 0)
 *  arm 0.5 → +0.5; paired cell (−0.3 + 0.5)/2 = +0.10; paper mean(0.4, 1, 0.5) − mean(1, 0) = 0.6333 − 0.5 = +0.13.
 *
 * Width: compiled with pdflatex in a two-column article, the table's box (written to the log) is at
 * most \columnwidth, unshrunk for the demo's names, and the caption is at most 3 lines.
 */
import { describe, expect, it } from 'vitest';
import type { FairRagMetrics } from '../../src-main/api/contract/fairRag';
import { table2Latex } from '../../src-main/experiments/fair-rag/exports';
import type { QueryArmMetrics } from '../../src-main/experiments/fair-rag/queryMetrics';
import { escapeLatex } from '../../src-main/core/format/latex';
import { table2, table2Settings, TABLE2_INTERVALS, TABLE2_TESTS } from '../../src-main/experiments/fair-rag/table2';

const oneLine = (text: string) => text.replace(/\s+/g, ' ');
import { compileLatex } from '../support/pdflatex';

type Arm = [queryId: string, policy: 'deterministic' | 'pl', eeDNorm: number, eu: number];

function arm([queryId, policy, eeDNorm, eu]: Arm, retriever = 'bm25', i = 0): QueryArmMetrics {
  return { queryId, retriever, condition: policy === 'pl' ? `${retriever}/alpha=${i}` : `${retriever}/deterministic`, policy, alpha: policy === 'pl' ? i : null, n: 4, m: 2, samples: policy === 'pl' ? 10 : 1, distinctRankings: 1, eeD: 0, eeR: 0, eeL: 0, eeDNorm, eeRNorm: 0, eeLNorm: 0, eu, euRaw: eu, uMax: 1, euNorm: eu, ear: null, eaeD: null, eaeDNorm: null };
}

function metricsOf(arms: Arm[], test: 'paired-t' | 'kim-diaz-unpaired-t' = 'paired-t', retrievers = ['bm25'], generator = 'gen'): FairRagMetrics {
  const spec = { significance: { test, correction: 'holm' as const, alpha: 0.05 }, seeds: { sampling: 1 } } as Parameters<typeof table2Settings>[0];
  const perQuery = retrievers.flatMap((r) => arms.map((a, i) => arm(a, r, i)));
  const rows = table2(perQuery, retrievers, generator, 'raw', { test, correction: 'holm', alpha: 0.05 });
  return { table2: { intervals: TABLE2_INTERVALS.map(([a, b]) => [a, b]), ...table2Settings(spec), alpha: 0.05, utility: 'EU', rows, normalizedRows: rows } } as unknown as FairRagMetrics;
}

const CONSTANT: Arm[] = [
  ['q1', 'deterministic', 1, 1],
  ['q2', 'deterministic', 1, 0],
  ['q3', 'deterministic', 1, 0.5],
  ['q1', 'pl', 0.1, 1],
  ['q1', 'pl', 0.5, 1],
  ['q2', 'pl', 0.5, 0],
  ['q2', 'pl', 0.9, 0],
  ['q3', 'pl', 0.15, 0.5],
  ['q3', 'pl', 1, 0.5],
];

const SMALL: Arm[] = [
  ['q1', 'deterministic', 1, 1],
  ['q2', 'deterministic', 1, 0],
  ['q1', 'pl', 0.1, 0.4],
  ['q1', 'pl', 0.15, 1],
  ['q2', 'pl', 0.1, 0.5],
];

/** The data row of the table (after the \midrule) as its cells. */
function row(tex: string, name: string): string[] {
  const line = tex.split('\n').find((l) => l.startsWith(`${name} (`))!;
  return line.replace(/ \\\\$/, '').split(' & ').map((c) => c.replace('\\hphantom{$^{\\ddagger}$}', ''));
}

describe('Table 2 cells show what the test tests (issue 34 item 8f)', () => {
  it('a run whose rankings change no utility: paired cells 0.00, the paper cells +0.25 and −0.50', () => {
    const m = metricsOf(CONSTANT);
    const cells = m.table2.rows[0]!.cells;
    expect(cells.map((c) => c.pairedDifference)).toEqual([0, null, 0, null, 0]);
    expect(cells.map((c) => c.difference)).toEqual([0.25, null, 0, null, -0.5]);
    const tex = table2Latex(m);
    expect(row(tex, 'bm25')).toEqual(['bm25 (0.500)', '0.00', '--', '0.00', '--', '0.00']);
    expect(tex).toContain('% Cells: paired per-query differences');
    const paper = table2Latex(m, 'raw', { cells: 'paper' });
    expect(row(paper, 'bm25')).toEqual(['bm25 (0.500)', '+0.25', '--', '0.00', '--', '$-$0.50']);
    expect(paper).toContain('unpaired, as the paper');
  });

  it('a hand-computed small case: paired +0.10, paper +0.13', () => {
    const m = metricsOf(SMALL);
    const c = m.table2.rows[0]!.cells[0]!;
    expect(c.pairedDifference).toBeCloseTo(0.1, 12);
    expect(c.difference).toBeCloseTo(1.9 / 3 - 0.5, 12);
    expect(row(table2Latex(m), 'bm25')[1]).toBe('+0.10');
    expect(row(table2Latex(m, 'raw', { cells: 'paper' }), 'bm25')[1]).toBe('+0.13');
  });

  it("the paper's test shows the paper's cells by default (what that test tests); older metrics without paired values fall back to them", () => {
    const m = metricsOf(CONSTANT, 'kim-diaz-unpaired-t');
    expect(row(table2Latex(m), 'bm25')[1]).toBe('+0.25');
    expect(row(table2Latex(m, 'raw', { cells: 'paired' }), 'bm25')[1]).toBe('0.00');
    const old = metricsOf(CONSTANT);
    for (const c of old.table2.rows[0]!.cells) delete (c as { pairedDifference?: unknown }).pairedDifference;
    const tex = table2Latex(old);
    expect(row(tex, 'bm25')[1]).toBe('+0.25');
    expect(tex).toContain("% Cells: the paper's unpaired difference of means.");
  });
});

/** Caption line count and box widths written to the log by the compiled document. */
const MEASURE_PREAMBLE = [
  '\\makeatletter',
  '\\long\\def\\@makecaption#1#2{\\vskip\\abovecaptionskip\\setbox\\@tempboxa\\vbox{\\hsize\\linewidth\\noindent #1: #2\\par\\xdef\\fgcaplines{\\the\\prevgraf}}\\typeout{FG-CAPTION-LINES=\\fgcaplines}\\box\\@tempboxa\\vskip\\belowcaptionskip}',
  '\\makeatother',
  '',
].join('\n');

function measure(tex: string): { captionLines: number; natural: number; final: number; column: number; overfull: number[]; notesLines: number } {
  const probed = tex
    .replace(/^(\\ifdim\\wd0>.*)$/m, '\\typeout{FG-NATURAL=\\the\\wd0}\n$1')
    .replace(/^\\usebox0$/m, '\\usebox0\\typeout{FG-FINAL=\\the\\wd0;FG-COLUMN=\\the\\columnwidth}')
    .replace(/^\\parbox\{\\linewidth\}\{(.*)\}$/m, '\\setbox2\\vbox{\\hsize\\linewidth $1\\par\\xdef\\fgnotelines{\\the\\prevgraf}}\\typeout{FG-NOTES-LINES=\\fgnotelines}\\box2');
  const { log, overfullPt } = compileLatex(`\\section{A}\nText.\n${probed}\nMore text.`, ['booktabs'], { classOptions: 'twocolumn', preamble: MEASURE_PREAMBLE });
  const pt = (key: string) => Number(new RegExp(`${key}=([0-9.]+)pt`).exec(log)![1]);
  return {
    captionLines: Number(/FG-CAPTION-LINES=(\d+)/.exec(log)![1]),
    notesLines: Number(/FG-NOTES-LINES=(\d+)/.exec(log)![1]),
    natural: pt('FG-NATURAL'),
    final: pt('FG-FINAL'),
    column: pt('FG-COLUMN'),
    overfull: overfullPt,
  };
}

describe('Table 2 fits a column (issue 34 item 9)', () => {
  const significant = (m: FairRagMetrics) => {
    // Stars in every cell with a value, the widest a cell can be.
    for (const r of [...m.table2.rows, ...m.table2.normalizedRows]) for (const c of r.cells) if (c.pairedDifference !== null) Object.assign(c, { significant: true, pAdjusted: 0.001 });
    return m;
  };

  it('the demo design (three retrievers, a long generator name, every cell starred): unshrunk, ≤ \\columnwidth, caption ≤ 3 lines, notes below', () => {
    const m = significant(metricsOf(CONSTANT, 'paired-t', ['bm25', 'contriever', 'splade'], 'simulated-reader-strong-primacy'));
    for (const [scale, cells] of [
      ['raw', 'paired'],
      ['normalized', 'paired'],
      ['raw', 'paper'],
    ] as const) {
      const got = measure(table2Latex(m, scale, { cells }));
      console.info(`Table 2 ${scale}/${cells}: natural ${got.natural} pt, set ${got.final} pt, column ${got.column} pt; caption ${got.captionLines} lines, notes ${got.notesLines} lines`);
      expect(got.natural, `${scale}/${cells}`).toBeLessThanOrEqual(got.column);
      expect(got.final).toBe(got.natural);
      expect(got.captionLines, `${scale}/${cells}`).toBeLessThanOrEqual(3);
      expect(got.overfull).toEqual([]);
      expect(got.notesLines).toBeGreaterThan(3); // the long text moved below the table
    }
  });

  it('the notes below the table: at most 12 lines in a column for every test, with the departure, calibration and out-of-range count', () => {
    // The longest notes: the default test's name and departure, a measured calibration, LaMP-3 answers out of range.
    const calibration = { nullRejectionRate: 0.0493, lo: 0.0418, hi: 0.0577, runs: 3000, alpha: 0.05 };
    for (const test of TABLE2_TESTS) {
      const m = significant(metricsOf(CONSTANT, 'paired-t', ['bm25', 'contriever', 'splade'], 'simulated-reader-strong-primacy'));
      const settings = table2Settings({ significance: { test, correction: 'holm', alpha: 0.05 }, seeds: { sampling: 1 } } as Parameters<typeof table2Settings>[0]);
      Object.assign(m.table2, settings, { calibration });
      Object.assign(m, { outOfRangeAnswers: { count: 284, answers: 1136 } });
      for (const [scale, cells] of [
        ['raw', 'paired'],
        ['normalized', 'paired'],
        ['raw', 'paper'],
        ['normalized', 'paper'],
      ] as const) {
        const tex = table2Latex(m, scale, { cells });
        const got = measure(tex);
        console.info(`Table 2 notes, ${test} ${scale}/${cells}: ${got.notesLines} lines`);
        expect(got.notesLines, `${test} ${scale}/${cells}`).toBeLessThanOrEqual(12);
        expect(got.overfull).toEqual([]);
        // Every fact is still there: the test, the correction, the departure, the calibration, the count.
        const notes = oneLine(/Notes\. ([\s\S]*)\}\n\\end\{table\}/.exec(tex)![1]!);
        expect(notes).toContain(oneLine(escapeLatex(settings.test)));
        expect(notes).toContain("Holm over each row's intervals");
        if (settings.departure) expect(notes).toContain(oneLine(escapeLatex(settings.departure)));
        expect(notes).toContain('Measured null rejection rate: 0.049 [0.042, 0.058] (3000 simulated runs).');
        expect(notes).toContain('284 of 1136 answers outside 1--5 score $\\max(0, 4 - |p - g|)$ (unclamped).');
      }
    }
  });

  it('a retriever name too long for the column is shrunk to \\columnwidth', () => {
    const m = significant(metricsOf(CONSTANT, 'paired-t', ['bm25_k1=0.9_b=0.4+rm3_with_10_expansion_terms_and_a_long_tag'], 'gen'));
    const got = measure(table2Latex(m));
    expect(got.natural).toBeGreaterThan(got.column);
    expect(got.final).toBeCloseTo(got.column, 1);
    expect(got.overfull).toEqual([]);
  });
});
