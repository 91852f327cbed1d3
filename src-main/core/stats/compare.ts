/**
 * One comparison of system b against system a on per-query scores: means, the mean difference
 * b − a with its t-based CI, a significance test (t-test or Fisher randomization), win/tie/loss
 * and an effect size. This is the record behind `fairground stats compare`, the compare view and
 * the significance markers of LaTeX tables; multiple-comparison correction is applied by the
 * caller over a family of these (multipleComparisons.ts).
 */
import { DataError } from '../errors';
import type { Alternative } from './alternative';
import { mean } from './descriptive';
import { cohensDPaired, cohensDUnpaired } from './effectSize';
import { DEFAULT_PERMUTATIONS, pairedRandomizationTest, unpairedRandomizationTest, type TwoSidedRule } from './randomization';
import { oneSidedTInterval, pairedTTest, studentTTest, welchTTest, type ConfidenceInterval, type TTestKind, type TTestResult } from './tTest';
import { winTieLoss, type WinTieLoss } from './winTieLoss';

export type CompareTest = 't' | 'randomization';

export interface CompareOptions {
  test?: CompareTest;
  paired: boolean;
  /** Unpaired t-test: Welch (true) or Student's pooled variance (false, default, scipy's default). */
  welch?: boolean;
  alternative?: Alternative;
  /** Randomization test: number of permutations (default 10,000). */
  permutations?: number;
  /** Randomization test: required seed. */
  seed?: number | string;
  /** Unpaired two-sided randomization test: how p is formed (default `absolute`; see TwoSidedRule). */
  twoSided?: TwoSidedRule;
  /** Significance level; `significant` is p ≤ alpha. Default 0.05. */
  alpha?: number;
  /** Win/tie/loss tie tolerance (default 0). */
  tieTolerance?: number;
  /** CI level (default 0.95). */
  confidence?: number;
}

export interface Comparison {
  test: TTestKind | 'paired-randomization' | 'unpaired-randomization';
  paired: boolean;
  alternative: Alternative;
  nA: number;
  nB: number;
  meanA: number;
  meanB: number;
  /** mean(b) − mean(a), which equals mean(b − a) when paired. */
  meanDifference: number;
  /** t-based CI of the mean difference (from the paired, Student or Welch t-test); two-sided. */
  ci: ConfidenceInterval;
  /** With a one-sided alternative: the one-sided t interval that matches it ([lo, +∞) for greater, (−∞, hi] for less); null when two-sided. */
  ciOneSided: ConfidenceInterval | null;
  ciMethod: TTestKind;
  /** t for t-tests (may be ±Infinity); the observed mean difference for randomization tests. */
  statistic: number;
  statisticName: 't' | 'mean difference';
  /** Degrees of freedom of the t-test; null for randomization tests. */
  df: number | null;
  pValue: number;
  alpha: number;
  significant: boolean;
  permutations: number | null;
  seed: number | string | null;
  pValueFormula: string | null;
  /** Paired only. */
  winTieLoss: WinTieLoss | null;
  tieTolerance: number | null;
  effectSize: number;
  effectSizeName: 'cohens_dz' | 'cohens_d';
  degenerate?: 'no-difference' | 'zero-variance';
}

export function compareScores(a: readonly number[], b: readonly number[], opts: CompareOptions): Comparison {
  const test = opts.test ?? 't';
  const alpha = opts.alpha ?? 0.05;
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  const alternative = opts.alternative ?? 'two-sided';
  const tOpts = { alternative, confidence: opts.confidence ?? 0.95 };
  if (opts.paired && a.length < 2) throw new DataError(`a paired comparison needs at least 2 queries, got ${a.length}`);

  const t: TTestResult = opts.paired ? pairedTTest(a, b, tOpts) : opts.welch ? welchTTest(a, b, tOpts) : studentTTest(a, b, tOpts);
  const base = {
    paired: opts.paired,
    alternative,
    nA: a.length,
    nB: b.length,
    meanA: mean(a),
    meanB: mean(b),
    meanDifference: t.estimate,
    ci: t.ci,
    ciOneSided: alternative === 'two-sided' ? null : oneSidedTInterval(t.estimate, t.standardError, t.df, alternative, tOpts.confidence),
    ciMethod: t.test,
    alpha,
    winTieLoss: opts.paired ? winTieLoss(a, b, opts.tieTolerance ?? 0) : null,
    tieTolerance: opts.paired ? (opts.tieTolerance ?? 0) : null,
    effectSize: opts.paired ? cohensDPaired(a, b) : cohensDUnpaired(a, b),
    effectSizeName: opts.paired ? ('cohens_dz' as const) : ('cohens_d' as const),
    ...(t.degenerate ? { degenerate: t.degenerate } : {}),
  };

  if (test === 't') {
    return {
      ...base,
      test: t.test,
      statistic: t.statistic,
      statisticName: 't',
      df: t.df,
      pValue: t.pValue,
      significant: t.pValue <= alpha,
      permutations: null,
      seed: null,
      pValueFormula: null,
    };
  }
  if (opts.seed === undefined) throw new RangeError('a randomization test needs an explicit seed');
  const rOpts = { seed: opts.seed, permutations: opts.permutations ?? DEFAULT_PERMUTATIONS, alternative, ...(opts.twoSided ? { twoSided: opts.twoSided } : {}) };
  const r = opts.paired ? pairedRandomizationTest(a, b, rOpts) : unpairedRandomizationTest(a, b, rOpts);
  return {
    ...base,
    test: r.test,
    statistic: r.statistic,
    statisticName: 'mean difference',
    df: null,
    pValue: r.pValue,
    significant: r.pValue <= alpha,
    permutations: r.permutations,
    seed: opts.seed,
    pValueFormula: r.pValueFormula,
  };
}
