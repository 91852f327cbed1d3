/**
 * Issue 34 item 5 on the Results screen: a count measure's column (NumRet, NumRel, NumQ: per-query
 * means, as their intervals and tests are) reads "M (mean per query)", the header the CSV, table
 * and LaTeX exports use; other measures keep their name.
 */
import { describe, expect, it } from 'vitest';
import { isCountMeasureName, meanHeader } from '../../src-main/services/evaluation/irEvaluation';
import { measureLabel } from '../../src-renderer/src/screens/results/measureLabel';

describe('measureLabel', () => {
  const measures = ['NumRet', 'NumRel', 'NumQ', 'NumRet(rel=1)', 'AP', 'nDCG@10', 'P@5', 'RR'];
  const counts = measures.filter(isCountMeasureName);

  it('labels the count measures as per-query means, and only them', () => {
    expect(counts).toEqual(['NumRet', 'NumRel', 'NumQ', 'NumRet(rel=1)']);
    expect(measures.map((m) => measureLabel(m, counts))).toEqual([
      'NumRet (mean per query)',
      'NumRel (mean per query)',
      'NumQ (mean per query)',
      'NumRet(rel=1) (mean per query)',
      'AP',
      'nDCG@10',
      'P@5',
      'RR',
    ]);
    expect(measureLabel('NumRet', undefined)).toBe('NumRet');
  });

  it('is the exports’ header', () => {
    for (const m of measures) expect(measureLabel(m, counts)).toBe(meanHeader(m, counts));
  });
});
