/**
 * The comparison tables of a MoI run (pure: stored items → plain data), after the paper:
 *
 * - Table 1: every method (retriever, baselines, MoI) × answer-quality measure, the mean over the
 *   queries the measure applies to (a query's own metric and the spec's extra metrics);
 * - Table 7: over queries with a gold passage among the N, the MRR of the gold passage in each
 *   method's order (1/rank of the first gold) beside answer quality, with the "gold at j-th" rows;
 * - Table 8: the retriever's and MoI's orders and their reversals (with Random for reference).
 *
 * Each cell but the baseline's carries a two-sided paired test against the retriever order over the
 * queries both have (t-test, or Fisher randomization with the spec's seed), corrected over the
 * methods of the column (Holm by default); `significant` is p_adj ≤ α. With fewer than two paired
 * queries no test is made.
 */
import type { MoiSpec, MoiTable } from '../../api/contract/moi';
import { compareScores } from '../../core/stats/compare';
import { adjustPValues, significantAt } from '../../core/stats/multipleComparisons';
import { LOWER_IS_BETTER } from './answerMetrics';
import type { MoiRunData } from './items';
import { methodLabel } from './plan';

export const BASELINE_METHOD = 'retriever';

/** A method's value for a query on a measure (null: not available). */
export function methodValue(data: MoiRunData, qid: string, method: string, measure: string): number | null {
  const m = data.methods.get(qid)?.get(method);
  if (!m) return null;
  if (measure === 'MRR') return reciprocalRank(data, qid, m.order);
  const values = m.promptHashes.map((h) => data.generations.get(JSON.stringify(['g', qid, h]))?.values[measure]);
  if (values.some((v) => v === undefined)) return null;
  if (method === 'random') return values.reduce((a, b) => a! + b!, 0)! / values.length;
  if (m.chosen) return values[m.chosen.index] ?? null;
  return values[0] ?? null;
}

/** 1/rank of the first gold passage in an order (0 when none is gold; null without gold labels or order). */
export function reciprocalRank(data: MoiRunData, qid: string, order: readonly number[] | null): number | null {
  const q = data.queries.get(qid);
  if (!q || !order || !q.passages.some((p) => p.gold === true)) return null;
  const r = order.findIndex((i) => q.passages[i]?.gold === true);
  return r < 0 ? 0 : 1 / (r + 1);
}

type TestSpec = Pick<MoiSpec, 'significance' | 'seeds'>;

const CORRECTION_TEXT: Record<string, string> = {
  holm: 'Holm-corrected over the methods of each column',
  bonferroni: 'Bonferroni-corrected over the methods of each column',
  bh: 'Benjamini–Hochberg (FDR) over the methods of each column',
  none: 'no multiple-comparison correction',
};

/** The correction in words, as captions and CSV name it ('holm' → 'Holm-corrected over the methods of each column'). */
export function correctionText(correction: string): string {
  return CORRECTION_TEXT[correction] ?? correction;
}

export function buildTable(data: MoiRunData, spec: TestSpec, methods: readonly string[], measures: readonly string[], queriesFor: (measure: string) => string[], note: string): MoiTable {
  const baseline = methods.includes(BASELINE_METHOD) ? BASELINE_METHOD : null;
  const { test, correction, alpha } = spec.significance;
  const columns = measures.map((measure) => ({ measure, higherIsBetter: !LOWER_IS_BETTER.has(measure), queries: queriesFor(measure).length }));
  const cells = methods.map(() => [] as MoiTable['rows'][number]['cells']);
  measures.forEach((measure) => {
    const qids = queriesFor(measure);
    const raw: (number | null)[] = [];
    methods.forEach((method, r) => {
      const values: number[] = [];
      const paired: [number, number][] = [];
      for (const qid of qids) {
        const v = methodValue(data, qid, method, measure);
        if (v === null) continue;
        values.push(v);
        const b = baseline ? methodValue(data, qid, baseline, measure) : null;
        if (b !== null) paired.push([b, v]);
      }
      const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
      let difference: number | null = null;
      let pValue: number | null = null;
      if (baseline && method !== baseline && paired.length > 0) {
        difference = paired.reduce((a, [b, v]) => a + (v - b), 0) / paired.length;
        if (paired.length >= 2) {
          const c = compareScores(
            paired.map(([b]) => b),
            paired.map(([, v]) => v),
            { paired: true, test, alpha, ...(test === 'randomization' ? { seed: spec.seeds.test } : {}) },
          );
          pValue = Number.isFinite(c.pValue) ? c.pValue : null;
        }
      }
      raw.push(pValue);
      cells[r]!.push({ mean, n: values.length, difference, pValue, pAdjusted: null, significant: false });
    });
    const tested = raw.map((p, i) => ({ p, i })).filter((x): x is { p: number; i: number } => x.p !== null);
    const adjusted = adjustPValues(
      tested.map((x) => x.p),
      correction,
    );
    tested.forEach((x, k) => {
      const cell = cells[x.i]![cells[x.i]!.length - 1]!;
      cell.pAdjusted = adjusted[k]!;
      cell.significant = significantAt(adjusted[k]!, alpha);
    });
  });
  const testName = test === 't' ? 'two-sided paired t-test' : 'two-sided paired randomization test';
  return {
    columns,
    rows: methods.map((method, r) => ({ method, label: methodLabel(method), cells: cells[r]! })),
    baseline,
    test: baseline ? `${testName} against ${methodLabel(baseline)} over queries` : 'none',
    correction,
    alpha,
    note,
  };
}
