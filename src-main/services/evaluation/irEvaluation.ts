/**
 * Evaluate several TREC runs against one qrels file: trec_eval-semantics measures per query,
 * means with 95% intervals by the measure's declared scale (binary measures such as Success@k and
 * P@1: Wilson; continuous bounded ones: t clipped to [0, 1]; a column of equal values: "no variance
 * (n = …)" and no interval; each naming its method), and paired significance tests of every run against a baseline with
 * a multiple-comparison correction over all run × measure tests (PyTerrier's defaults: paired
 * t-test, Holm). Everything numeric comes from core; this file only orchestrates.
 */
import { createHash } from 'node:crypto';
import type { IrEvaluation, IrEvaluationRequest } from '../../api/contract/evaluation';
import { ApiFailure } from '../../api/router';
import { evaluateRun } from '../../core/ir/evaluateRun';
import { isCountMeasure, parseMeasure } from '../../core/ir/measureSpec';
import { compareScores } from '../../core/stats/compare';
import { measureMeanInterval } from '../../core/stats/boundedInterval';
import { adjustPValues, significantAt } from '../../core/stats/multipleComparisons';
import { parseQrels, parseRun } from '../../io/trec/index';

/** Measures where a lower value is better (none of the IR measures today; kept explicit for tables). */
const LOWER_IS_BETTER = new Set<string>();

export function evaluateIrRuns(req: IrEvaluationRequest): IrEvaluation {
  const names = req.runs.map((r) => r.name);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new ApiFailure('validation', `two runs are named '${dup}'; give each run a distinct name`, 'runs');
  const baseline = req.baseline ?? names[0]!;
  if (!names.includes(baseline)) throw new ApiFailure('validation', `baseline '${baseline}' is not one of the runs`, 'baseline');

  const qrels = parseQrels(req.qrels.text, req.qrels.name);
  const notes: string[] = [];
  const evaluations = req.runs.map((r) => {
    const rows = parseRun(r.text, r.name);
    const ev = evaluateRun(rows, qrels, req.measures, { runSource: r.name, qrelsSource: req.qrels.name });
    if (ev.missingFromRun.length) notes.push(`${r.name}: ${ev.missingFromRun.length} qrels queries have no results and count as 0 (trec_eval -c)`);
    if (ev.notInQrels.length) notes.push(`${r.name}: ${ev.notInQrels.length} run queries have no qrels and are ignored`);
    return { name: r.name, ev };
  });
  const measures = evaluations[0]!.ev.measures;
  const qids = evaluations[0]!.ev.queries;

  const systems = evaluations.map(({ name, ev }) => {
    const means: Record<string, number> = {};
    const ci: Record<string, [number, number]> = {};
    const ciMethod: Record<string, string> = {};
    const ciClipped: Record<string, boolean> = {};
    const perQuery: Record<string, Record<string, number>> = {};
    const trecEvalAll: Record<string, number> = {};
    for (const m of measures) {
      trecEvalAll[m] = ev.all.get(m) ?? 0;
      const values = qids.map((q) => ev.perQuery.get(m)?.get(q) ?? 0);
      // The per-query mean for every measure, count measures included (trec_eval's `all` sums those):
      // the column's CI and delta are of this mean (issue 34 item 5).
      means[m] = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
      perQuery[m] = Object.fromEntries(qids.map((q, i) => [q, values[i]!]));
      if (values.length >= 2) {
        // By the declared scale (core/stats/boundedInterval): binary → Wilson, continuous bounded → t clipped, equal values → no variance.
        const interval = measureMeanInterval(m, values);
        ci[m] = [interval.lower, interval.upper];
        ciMethod[m] = interval.method;
        ciClipped[m] = interval.clipped;
      } else {
        ci[m] = [means[m]!, means[m]!];
        ciMethod[m] = 'none (fewer than 2 queries)';
        ciClipped[m] = false;
      }
    }
    return { name, means, trecEvalAll, ci, ciMethod, ciClipped, perQuery, missingFromRun: ev.missingFromRun };
  });

  const base = systems.find((s) => s.name === baseline)!;
  const raw: Omit<IrEvaluation['comparisons'][number], 'pAdjusted' | 'significant'>[] = [];
  if (qids.length >= 2) {
    for (const sys of systems) {
      if (sys.name === baseline) continue;
      for (const m of measures) {
        const a = qids.map((q) => base.perQuery[m]![q]!);
        const b = qids.map((q) => sys.perQuery[m]![q]!);
        const c = compareScores(a, b, {
          paired: true,
          test: req.test,
          alpha: req.alpha,
          ...(req.test === 'randomization' ? { permutations: req.permutations, seed: req.seed } : {}),
        });
        raw.push({
          system: sys.name,
          measure: m,
          delta: c.meanDifference,
          ciLow: c.ci.lower,
          ciHigh: c.ci.upper,
          pValue: c.pValue,
          wins: c.winTieLoss?.wins ?? 0,
          ties: c.winTieLoss?.ties ?? 0,
          losses: c.winTieLoss?.losses ?? 0,
        });
      }
    }
  } else if (systems.length > 1) {
    notes.push('significance needs at least two queries; no tests were run');
  }
  const adjusted = adjustPValues(
    raw.map((r) => r.pValue),
    req.correction,
  );
  const comparisons = raw.map((r, i) => ({ ...r, pAdjusted: adjusted[i]!, significant: significantAt(adjusted[i]!, req.alpha) }));

  return {
    measures,
    countMeasures: measures.filter(isCountMeasureName),
    higherIsBetter: Object.fromEntries(measures.map((m) => [m, !LOWER_IS_BETTER.has(m)])),
    qids,
    baseline,
    systems,
    comparisons,
    settings: {
      test: req.test === 't' ? 'two-sided paired t-test' : 'two-sided paired randomization test',
      correction: req.correction,
      alpha: req.alpha,
      permutations: req.test === 'randomization' ? req.permutations : null,
      seed: req.test === 'randomization' ? req.seed : null,
    },
    inputs: [
      ...req.runs.map((r) => ({ name: r.name, role: 'run' as const, sha256: sha256(r.text) })),
      { name: req.qrels.name, role: 'qrels' as const, sha256: sha256(req.qrels.text) },
    ],
    notes,
  };
}

/** Whether `measure` (a canonical ir_measures name) is a count trec_eval sums over queries (NumRet, NumRel, NumQ …). */
export function isCountMeasureName(measure: string): boolean {
  try {
    return isCountMeasure(parseMeasure(measure));
  } catch {
    return false;
  }
}

/** The column header of a measure's mean: count measures say that it is the per-query mean (trec_eval prints their sum). */
export function meanHeader(measure: string, countMeasures: readonly string[] | undefined): string {
  return (countMeasures ?? []).includes(measure) ? `${measure} (mean per query)` : measure;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
