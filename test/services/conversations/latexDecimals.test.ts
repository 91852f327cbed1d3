/**
 * Issue 34 item 8g (c): the LaTeX export of a set's evaluation places each measure column by its
 * own scale: GFRC2 means of 0.0012–0.0213 with 3 significant digits of the smallest (5 places),
 * not a fixed 4 places (0.0012: two digits); a column near 0.5 with 3 places. An explicit `digits`
 * still sets every column. Values hand-chosen, compiled with pdflatex.
 */
import { describe, expect, it } from 'vitest';
import { columnDecimals, exportSetEvaluation } from '../../../src-main/services/conversations/evaluationExport';
import type { SetEvaluation } from '../../../src-main/services/conversations/setEvaluation';
import { compileLatex } from '../../support/pdflatex';

const means: Record<string, Record<string, number | null>> = {
  A: { GFRC2: 0.0012345, EGNP: 0.0213, 'EGF(G)': 0.91, GFRC: 0.5, R: 0.123456, 'GF(G)': 12.5 },
  B: { GFRC2: 0.0213, EGNP: 0.0009996, 'EGF(G)': 0.88, GFRC: 0.25, R: 0, 'GF(G)': 3.25 },
};
const measures = Object.keys(means.A!);
const ev: SetEvaluation = {
  setId: 1,
  setName: 'hand',
  L: 1000,
  lMax: 2,
  gluedFirstWord: 'exclude',
  attributeSets: [],
  measures,
  runs: ['A', 'B'],
  topics: ['t1'],
  conversations: [],
  cells: [],
  means: ['A', 'B'].map((run) => ({ run, topics: 1, values: means[run]! })),
  comparisons: [],
  settings: { rVariant: 'eq6', test: 'two-sided paired t-test', correction: 'holm', alpha: 0.05, permutations: null, seed: null, family: 'per measure' },
  dataSha256: '0'.repeat(64),
  notes: [],
};

const rowOf = (tex: string, run: string) => tex.split('\n').find((l) => l.startsWith(`${run} & `))!.replace(/\\textbf\{([^}]*)\}/g, '$1').replace(/ \\\\$/, '').split(' & ').slice(1);

describe('LaTeX places of GFRC measures follow their scale', () => {
  it('columnDecimals: 3 significant digits of the smallest nonzero value, at most 3 decades below the largest', () => {
    expect(columnDecimals([0.0012345, 0.0213])).toBe(5); // 0.00123
    expect(columnDecimals([0.0009996, 0.0213])).toBe(5); // 0.0009996 prints as 0.00100 (1.00e-3)
    expect(columnDecimals([0.0009994, 0.0213])).toBe(6); // 0.000999
    expect(columnDecimals([0.5, 0.25])).toBe(3);
    expect(columnDecimals([0.123456, 0])).toBe(3); // zero has no scale
    expect(columnDecimals([12.5, 3.25])).toBe(2);
    expect(columnDecimals([1e-9, 0.5])).toBe(6); // 0.5/1000 = 5e-4 bounds the scale
    expect(columnDecimals([null, 0])).toBe(3);
    expect(columnDecimals([1234.5])).toBe(0);
  });

  it('the exported table: GFRC2 0.00123 / 0.02130, not 0.0012 / 0.0213; digits still fixes every column', () => {
    const tex = exportSetEvaluation(ev, 'latex').file.content;
    expect(rowOf(tex, 'A')).toEqual(['0.00123', '0.02130', '0.910', '0.500', '0.123', '12.50']);
    expect(rowOf(tex, 'B')).toEqual(['0.02130', '0.00100', '0.880', '0.250', '0.000', '3.25']);
    const fixed = exportSetEvaluation(ev, 'latex', { digits: 4, environment: 'table' }).file.content;
    expect(rowOf(fixed, 'A')).toEqual(['0.0012', '0.0213', '0.9100', '0.5000', '0.1235', '12.5000']);
    expect(compileLatex(tex, ['booktabs', 'graphicx']).overfullPt).toEqual([]);
  });
});
