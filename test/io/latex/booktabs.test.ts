import { describe, expect, it } from 'vitest';
import { formatBooktabsTable } from '../../../src-main/io/latex/booktabs';
import { escapeLatex } from '../../../src-main/io/latex/escape';

describe('escapeLatex', () => {
  it('escapes the ten special characters once', () => {
    expect(escapeLatex('a\\b{c}$&#%_^~z')).toBe(String.raw`a\textbackslash{}b\{c\}\$\&\#\%\_\textasciicircum{}\textasciitilde{}z`);
    // Non-ASCII becomes macros so the file compiles with plain pdflatex (issue 17 item 7; compile.test.ts).
    expect(escapeLatex('plain text, ünïcode')).toBe('plain text, \\"{u}n\\"{i}code');
  });
});

describe('formatBooktabsTable', () => {
  it('letters style: bold best per direction, ranx letters with full-width \\hphantom, escaped names', () => {
    const out = formatBooktabsTable({
      systems: ['BM25', 'BM25 + RM3', 'monoT5_base'],
      columns: [{ label: 'nDCG@10' }, { label: 'EE-D', higherIsBetter: false, digits: 4 }],
      values: [
        [0.4123, 0.2456],
        [0.4367, 0.2311],
        [0.5012, 0.2399],
      ],
      significance: {
        test: 'two-sided paired t-test',
        correction: 'holm',
        alpha: 0.05,
        markers: {
          style: 'letters',
          // pValues[column][i][j], symmetric
          pValues: [
            [
              [null, 0.2, 0.001],
              [0.2, null, 0.01],
              [0.001, 0.01, null],
            ],
            [
              [null, 0.03, 0.5],
              [0.03, null, 0.04],
              [0.5, 0.04, null],
            ],
          ],
        },
      },
    });
    expect(out).toBe(
      [
        String.raw`% Requires \usepackage{booktabs} in the preamble.`,
        String.raw`\begin{table}[ht]`,
        String.raw`\centering`,
        String.raw`\caption{Overall effectiveness of the systems. The best value per measure is in bold. Superscript letters mark a significant improvement over the system with that letter (two-sided paired t-test, Holm correction, $p \le 0.05$).}`,
        String.raw`\label{tab:results}`,
        String.raw`\begin{tabular}{clrr}`,
        String.raw`\toprule`,
        String.raw`\# & System & nDCG@10 & EE-D \\`,
        String.raw`\midrule`,
        String.raw`a & BM25 & 0.412\hphantom{$^{abc}$} & 0.2456\hphantom{$^{abc}$} \\`,
        String.raw`b & BM25 + RM3 & 0.437\hphantom{$^{abc}$} & \textbf{0.2311}$^{ac}$\hphantom{$^{b}$} \\`,
        String.raw`c & monoT5\_base & \textbf{0.501}$^{ab}$\hphantom{$^{c}$} & 0.2399\hphantom{$^{abc}$} \\`,
        String.raw`\bottomrule`,
        String.raw`\end{tabular}`,
        String.raw`\end{table}`,
        '',
      ].join('\n'),
    );
  });

  it('baseline style: † at α, ‡ at 0.01, phantoms elsewhere; table*, label, digits, escaped caption', () => {
    const out = formatBooktabsTable({
      systems: ['BM25', 'Fair-PL (α=2)', 'RAG-Fusion'],
      columns: [{ label: 'EU' }, { label: 'EE_R' }],
      values: [
        [0.512, 0.7],
        [0.498, 0.813],
        [0.6, 0.74],
      ],
      digits: 2,
      environment: 'table*',
      label: 'tab:fair-rag',
      placement: 't',
      caption: 'Runs on TREC_Fair & LaMP (50% sample).',
      significance: {
        test: 'Fisher randomization test (10,000 permutations)',
        correction: 'bonferroni',
        alpha: 0.05,
        markers: {
          style: 'baseline',
          baseline: 0,
          pValues: [
            [null, null],
            [0.03, 0.2],
            [0.004, 0.049],
          ],
        },
      },
    });
    expect(out).toBe(
      [
        String.raw`% Requires \usepackage{booktabs} in the preamble.`,
        String.raw`\begin{table*}[t]`,
        String.raw`\centering`,
        String.raw`\caption{Runs on TREC\_Fair \& LaMP (50\% sample). The best value per measure is in bold. $^{\dagger}$ marks a significant difference from BM25 (Fisher randomization test (10,000 permutations), Bonferroni correction, $p \le 0.05$; $^{\ddagger}$: $p \le 0.01$).}`,
        String.raw`\label{tab:fair-rag}`,
        String.raw`\begin{tabular}{lrr}`,
        String.raw`\toprule`,
        String.raw`System & EU & EE\_R \\`,
        String.raw`\midrule`,
        String.raw`BM25 & 0.51\hphantom{$^{\ddagger}$} & 0.70\hphantom{$^{\ddagger}$} \\`,
        String.raw`Fair-PL (\ensuremath{\alpha}=2) & 0.50$^{\dagger}$ & \textbf{0.81}\hphantom{$^{\ddagger}$} \\`,
        String.raw`RAG-Fusion & \textbf{0.60}$^{\ddagger}$ & 0.74$^{\dagger}$ \\`,
        String.raw`\bottomrule`,
        String.raw`\end{tabular}`,
        String.raw`\end{table*}`,
        '',
      ].join('\n'),
    );
  });

  it('without significance: no marker column, bold ties after rounding, -- for missing, no negative zero', () => {
    const out = formatBooktabsTable({
      systems: ['x', 'y', 'z'],
      columns: [{ label: 'P@5' }, { label: 'delta' }],
      values: [
        [0.4121, -0.0001],
        [0.4124, null],
        [0.3, -0.25],
      ],
    });
    const body = out.split('\n').slice(6, 12);
    expect(body).toEqual([
      String.raw`\toprule`,
      String.raw`System & P@5 & delta \\`,
      String.raw`\midrule`,
      String.raw`x & \textbf{0.412} & \textbf{0.000} \\`,
      String.raw`y & \textbf{0.412} & -- \\`,
      String.raw`z & 0.300 & -0.250 \\`,
    ]);
    expect(out).toContain(String.raw`\caption{Overall effectiveness of the systems. The best value per measure is in bold.}`);
    expect(formatBooktabsTable({ systems: ['x'], columns: [{ label: 'm' }], values: [[0.5]], boldBest: false })).toContain('x & 0.500 \\\\');
  });

  it('rejects malformed tables', () => {
    const base = { systems: ['a'], columns: [{ label: 'm' }], values: [[0.1]] };
    expect(() => formatBooktabsTable({ ...base, values: [[0.1], [0.2]] })).toThrow(RangeError);
    expect(() => formatBooktabsTable({ ...base, values: [[Number.NaN]] })).toThrow(/finite/);
    expect(() => formatBooktabsTable({ ...base, label: 'tab:{x}' })).toThrow(/label/);
    expect(() => formatBooktabsTable({ ...base, digits: 2.5 })).toThrow(/digits/);
    expect(() =>
      formatBooktabsTable({ ...base, significance: { test: 't', correction: 'none', alpha: 0.05, markers: { style: 'baseline', baseline: 3, pValues: [[null]] } } }),
    ).toThrow(/baseline/);
  });
});
