/**
 * Table 2's star at the boundary (issue 37 item 4): a cell whose adjusted p equals α exactly is
 * significant, one whose α is just below it is not. Hand-computed p-values:
 * - paired sign-flip test, 2 queries with differences 0.5 and 0.7: of the 4 sign vectors, (+,+) and
 *   (−,−) reach |mean| = 0.6, so p = 2/4 = 0.5 (one tested cell: Holm leaves it 0.5);
 * - within-query exchange with every outcome equal: every exchange ties, mid-p = ½(R + 1)/(R + 1) = 0.5.
 */
import { describe, expect, it } from 'vitest';
import type { QueryArmMetrics } from '../../../src-main/experiments/fair-rag/queryMetrics';
import { table2, type Table2Options } from '../../../src-main/experiments/fair-rag/table2';

function arm(queryId: string, policy: 'pl' | 'deterministic', eu: number): QueryArmMetrics {
  return { queryId, retriever: 'bm25', condition: policy === 'pl' ? 'bm25/alpha=1' : 'bm25/deterministic', policy, alpha: policy === 'pl' ? 1 : null, eeDNorm: policy === 'pl' ? 0.1 : 1, eu, euNorm: eu, uMax: 1 } as QueryArmMetrics;
}

function firstCell(perQuery: QueryArmMetrics[], opts: Table2Options) {
  const row = table2(perQuery, ['bm25'], 'gen', 'raw', opts)[0]!;
  expect(row.cells.slice(1).every((c) => c.pValue === null)).toBe(true);
  return row.cells[0]!;
}

describe('Table 2 significance at p = α', () => {
  it('paired-randomization: p = 0.5 is significant at α = 0.5 and not at α = 0.4999', () => {
    const perQuery = [arm('q1', 'deterministic', 0), arm('q2', 'deterministic', 0), arm('q1', 'pl', 0.5), arm('q2', 'pl', 0.7)];
    const at = firstCell(perQuery, { test: 'paired-randomization', correction: 'holm', alpha: 0.5 });
    expect(at.pValue).toBe(0.5);
    expect(at.pAdjusted).toBe(0.5);
    expect(at.pairedDifference).toBeCloseTo(0.6, 12);
    expect(at.significant).toBe(true);
    expect(firstCell(perQuery, { test: 'paired-randomization', correction: 'holm', alpha: 0.4999 }).significant).toBe(false);
  });

  it('within-query exchange with every outcome tied: mid-p 0.5, significant at α = 0.5 exactly', () => {
    const perQuery = [arm('q1', 'deterministic', 1), arm('q2', 'deterministic', 0), arm('q1', 'pl', 1), arm('q2', 'pl', 0)];
    const samples = new Map<QueryArmMetrics, number[]>([
      [perQuery[0]!, [1]],
      [perQuery[1]!, [0]],
      [perQuery[2]!, [1, 1]],
      [perQuery[3]!, [0, 0]],
    ]);
    const cell = firstCell(perQuery, { test: 'within-query-exchange', correction: 'holm', alpha: 0.5, seed: 7, permutations: 99, sampleUtilities: samples });
    expect(cell.pValue).toBe(0.5);
    expect(cell.significant).toBe(true);
  });
});
