/**
 * `fairground stats compare`: significance of system B against system A from two per-query score
 * files, printed as one JSON object (means, mean difference b − a with its 95% CI, test statistic,
 * df, p-value, win/tie/loss, effect size). The statistics live in core/stats/compare.ts.
 */
import { DataError } from '../../core/errors';
import { ALTERNATIVES, type Alternative } from '../../core/stats/alternative';
import { compareScores } from '../../core/stats/compare';
import { TWO_SIDED_RULES } from '../../core/stats/randomization';
import { readLines } from '../../io/lines';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { inputFile, placesOption, roundedJson } from './evalInputs';

const TESTS = ['t', 'randomization'] as const;
const MISSING = ['error', 'drop', 'zero'] as const;
type Missing = (typeof MISSING)[number];
const DEFAULT_SEED = 42;

const help = `Usage: fairground stats compare --a SCORES --b SCORES [--paired] [--test t|randomization]
                                [--permutations N] [--seed S] [--alpha A] [--alternative two-sided|greater|less]
                                [--welch] [--tie-tolerance T] [--missing error|drop|zero]
                                [--two-sided absolute|doubled] [-m MEASURE] [-p N]

Tests whether system B differs from system A on per-query scores. The difference is always b − a.

SCORES files hold one 'qid value' per line (whitespace separated); blank lines and lines starting
with '#' are skipped. A query id may appear only once per file. With -m MEASURE they are
'fairground eval ir -q' (or trec_eval -q) output instead: the 'MEASURE qid value' lines of that
measure are read, its 'all' line skipped. Either file may be '-' (standard input) or FILE.gz.

Options:
  --a FILE, --b FILE   per-query scores of the baseline (a) and the system (b)
  --paired             pair the scores by query id (the usual IR comparison); without it the two
                       files are independent samples
  --test T             t (default): paired t-test, or Student's t-test when unpaired (--welch: Welch's);
                       randomization: Fisher randomization test (sign flips when paired, relabelling
                       when unpaired), p = (count + 1)/(permutations + 1)
  --permutations N     randomization test permutations (default 10000)
  --seed S             randomization seed, an integer (default ${DEFAULT_SEED}); printed in the output
  --alpha A            significance level; "significant" is p <= A (default 0.05)
  --alternative H      two-sided (default), greater (b > a) or less (b < a)
  --welch              unpaired t-test without assuming equal variances
  --tie-tolerance T    paired win/tie/loss: |b − a| <= T is a tie (default 0)
  --missing M          paired, queries in only one file: error (default; lists them), drop (use the
                       queries in both files), zero (score the missing side 0, as trec_eval -c)
  --two-sided R        unpaired two-sided randomization p: absolute (default; the share of
                       permutations with |b − a| >= |observed|, as Fisher and ranx count) or
                       doubled (twice the smaller one-sided p, capped at 1, as
                       scipy.stats.permutation_test); they differ up to 2x when the group sizes
                       differ. Printed as two_sided_rule.
  -m, --measure M      read eval ir -q output, the lines of measure M
  -p, --places N       round every number of the output to N decimals (default: full precision)

Prints one JSON object: test, paired, alternative, difference ("b - a"), n, n_a, n_b, mean_a, mean_b,
mean_difference, ci95 {lower, upper} (t-based, also for the randomization test; with --alternative
greater the one-sided [lower, inf) and upper null, with less (-inf, upper] and lower null), ci95_text
(e.g. "[0.0031, inf)"), ci_sides, ci95_two_sided (one-sided alternatives only), ci_method,
statistic (t, or the mean difference for randomization), statistic_name, df (null for randomization),
p_value, alpha, significant, permutations, seed, p_value_formula, two_sided_rule, wins, ties, losses (paired),
tie_tolerance, effect_size (Cohen's d_z when paired, pooled-sd d when unpaired), effect_size_name,
missing, dropped_queries, zero_filled, notes. Infinite values (zero variance) are printed as null with a note.

Example:
  fairground stats compare --a bm25.ndcg10.txt --b rerank.ndcg10.txt --paired --test randomization --seed 7
`;

export const statsCompareCommand: CliCommand = {
  path: ['stats', 'compare'],
  summary: 'paired or unpaired t / randomization test of two per-query score files',
  help,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      a: { type: 'string' },
      b: { type: 'string' },
      paired: { type: 'boolean' },
      test: { type: 'string' },
      permutations: { type: 'string' },
      seed: { type: 'string' },
      alpha: { type: 'string' },
      alternative: { type: 'string' },
      welch: { type: 'boolean' },
      'tie-tolerance': { type: 'string' },
      missing: { type: 'string' },
      'two-sided': { type: 'string' },
      measure: { type: 'string', short: 'm' },
      places: { type: 'string', short: 'p' },
    });
    const fileA = requireOption(values.a, 'a');
    const fileB = requireOption(values.b, 'b');
    const paired = values.paired ?? false;
    const test = choice(values.test, TESTS, 'test') ?? 't';
    const alternative: Alternative = choice(values.alternative, ALTERNATIVES, 'alternative') ?? 'two-sided';
    const permutations = numberOption(values.permutations, 'permutations', { integer: true, min: 1, max: 100_000_000 }) ?? 10_000;
    const seed = numberOption(values.seed, 'seed', { integer: true, min: 0, max: 0xffffffff }) ?? DEFAULT_SEED;
    const alpha = numberOption(values.alpha, 'alpha') ?? 0.05;
    if (!(alpha > 0 && alpha < 1)) throw new CliError(`--alpha: must be between 0 and 1 (exclusive), got ${alpha}`);
    const tieTolerance = numberOption(values['tie-tolerance'], 'tie-tolerance', { min: 0 }) ?? 0;
    const missing = choice(values.missing, MISSING, 'missing') ?? 'error';
    const welch = values.welch ?? false;
    if (welch && paired) throw new CliError('--welch applies to unpaired tests only');
    if (!paired && values.missing !== undefined) throw new CliError('--missing applies to --paired comparisons only');
    const twoSided = choice(values['two-sided'], TWO_SIDED_RULES, 'two-sided');
    if (twoSided !== undefined && (paired || test !== 'randomization')) throw new CliError('--two-sided applies to the unpaired randomization test only');
    const places = placesOption(values.places);
    if (fileA === '-' && fileB === '-') throw new CliError('only one of --a and --b can be standard input (-)');

    const scoresA = await readScores(io, fileA, values.measure);
    const scoresB = await readScores(io, fileB, values.measure);
    const notes: string[] = [];
    let a: number[];
    let b: number[];
    let dropped: number | null = null;
    let zeroFilled: { a: number; b: number } | null = null;
    if (paired) {
      const pairs = pairScores(scoresA, scoresB, fileA, fileB, missing);
      ({ a, b } = pairs);
      if (missing === 'drop') {
        dropped = pairs.onlyA.length + pairs.onlyB.length;
        if (dropped > 0) notes.push(`${dropped} queries found in only one file were left out`);
      }
      if (missing === 'zero') {
        zeroFilled = { a: pairs.onlyB.length, b: pairs.onlyA.length };
        if (pairs.onlyA.length + pairs.onlyB.length > 0) notes.push(`queries missing from a file were scored 0 for it (a: ${zeroFilled.a}, b: ${zeroFilled.b})`);
      }
      if (a.length < 2) throw new DataError(`a paired comparison needs at least 2 queries in both ${fileA} and ${fileB}, found ${a.length}`);
    } else {
      a = inIdOrder(scoresA);
      b = inIdOrder(scoresB);
      for (const [values, file] of [
        [a, fileA],
        [b, fileB],
      ] as const) {
        if (values.length < 2) throw new DataError(`an unpaired comparison needs at least 2 scores in each file, found ${values.length}`, { file });
      }
    }

    const c = compareScores(a, b, { test, paired, welch, alternative, permutations, seed, alpha, tieTolerance, ...(twoSided ? { twoSided } : {}) });
    if (c.degenerate === 'no-difference') notes.push('every difference is 0 (zero variance): statistic 0 and p = 1 by convention');
    if (c.degenerate === 'zero-variance') {
      notes.push(
        test === 't'
          ? 'zero variance with a non-zero mean difference: the t statistic and effect size are infinite (printed as null) and p is their limit'
          : 'zero variance with a non-zero mean difference: the effect size is infinite (printed as null) and the CI has zero width',
      );
    }

    const out = {
      test: c.test,
      paired,
      alternative,
      difference: 'b - a',
      n: paired ? a.length : a.length + b.length,
      n_a: c.nA,
      n_b: c.nB,
      mean_a: c.meanA,
      mean_b: c.meanB,
      mean_difference: c.meanDifference,
      // A one-sided test gets the one-sided interval that matches it (issue 34 item 5): [lo, ∞) for
      // greater, (−∞, hi] for less; the infinite end prints as null, ci95_text says it in words.
      ci95: c.ciOneSided ? { lower: finite(c.ciOneSided.lower), upper: finite(c.ciOneSided.upper) } : { lower: c.ci.lower, upper: c.ci.upper },
      ci95_text: intervalText(c.ciOneSided ?? c.ci, places),
      ci_sides: c.ciOneSided ? `one-sided (${alternative})` : 'two-sided',
      ...(c.ciOneSided ? { ci95_two_sided: { lower: c.ci.lower, upper: c.ci.upper } } : {}),
      ci_method: c.ciMethod,
      statistic: finite(c.statistic),
      statistic_name: c.statisticName,
      df: c.df,
      p_value: c.pValue,
      alpha,
      significant: c.significant,
      permutations: c.permutations,
      seed: c.seed,
      p_value_formula: c.pValueFormula,
      two_sided_rule: !paired && test === 'randomization' && alternative === 'two-sided' ? (twoSided ?? 'absolute') : null,
      wins: c.winTieLoss?.wins ?? null,
      ties: c.winTieLoss?.ties ?? null,
      losses: c.winTieLoss?.losses ?? null,
      tie_tolerance: c.tieTolerance,
      effect_size: finite(c.effectSize),
      effect_size_name: c.effectSizeName,
      missing: paired ? missing : null,
      dropped_queries: dropped,
      zero_filled: zeroFilled,
      notes,
    };
    io.stdout.write(`${places === undefined ? JSON.stringify(out) : roundedJson(out, places)}\n`);
    return 0;
  },
};

function finite(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a `qid value` file (or, with `measure`, the `measure qid value` lines of eval ir -q output)
 * into a map in file order. Errors name the file as the user wrote it and the line.
 */
export async function readScores(io: Pick<CliIo, 'cwd' | 'stdin'>, given: string, measure?: string): Promise<Map<string, number>> {
  const lines = await inputFile(given, io.cwd, (p) => readLines(p, { stdin: io.stdin }));
  const file = given === '-' ? '<stdin>' : given;
  const scores = new Map<string, number>();
  const firstLine = new Map<string, number>();
  for (const { line, text } of lines) {
    const t = text.trim();
    if (t === '' || t.startsWith('#')) continue;
    const fields = t.split(/\s+/);
    let qid: string;
    let raw: string;
    if (measure === undefined) {
      if (fields.length !== 2) throw new DataError(`expected 2 fields 'qid value', got ${fields.length}`, { file, line });
      [qid, raw] = fields as [string, string];
    } else {
      if (fields.length !== 3) throw new DataError(`expected 3 fields 'measure qid value' (eval ir -q output), got ${fields.length}`, { file, line });
      if (fields[0] !== measure || fields[1] === 'all') continue;
      [, qid, raw] = fields as [string, string, string];
    }
    if (!NUMBER.test(raw)) throw new DataError(`not a number: '${raw}'`, { file, line, field: 'value' });
    const value = Number(raw);
    if (!Number.isFinite(value)) throw new DataError(`not a finite number: '${raw}'`, { file, line, field: 'value' });
    const seen = firstLine.get(qid);
    if (seen !== undefined) throw new DataError(`duplicate query id '${qid}' (first on line ${seen})`, { file, line, field: 'qid' });
    firstLine.set(qid, line);
    scores.set(qid, value);
  }
  if (scores.size === 0) {
    throw new DataError(measure === undefined ? "no scores (expected lines of 'qid value')" : `no per-query lines of measure '${measure}' (expected eval ir -q output)`, { file });
  }
  return scores;
}

/**
 * Pairs two score maps by query id, in sorted id order so that the result (and the randomization
 * stream) does not depend on line order.
 */
export function pairScores(
  scoresA: Map<string, number>,
  scoresB: Map<string, number>,
  fileA: string,
  fileB: string,
  missing: Missing,
): { a: number[]; b: number[]; onlyA: string[]; onlyB: string[] } {
  const onlyA = [...scoresA.keys()].filter((q) => !scoresB.has(q));
  const onlyB = [...scoresB.keys()].filter((q) => !scoresA.has(q));
  if (missing === 'error' && onlyA.length + onlyB.length > 0) {
    const parts: string[] = [];
    if (onlyA.length) parts.push(`in ${fileA} but not ${fileB}: ${listIds(onlyA)}`);
    if (onlyB.length) parts.push(`in ${fileB} but not ${fileA}: ${listIds(onlyB)}`);
    throw new DataError(`query ids differ between the files (${parts.join('; ')}); use --missing drop or --missing zero`);
  }
  const ids = missing === 'zero' ? [...new Set([...scoresA.keys(), ...scoresB.keys()])] : [...scoresA.keys()].filter((q) => scoresB.has(q));
  ids.sort(byId);
  return { a: ids.map((q) => scoresA.get(q) ?? 0), b: ids.map((q) => scoresB.get(q) ?? 0), onlyA, onlyB };
}

const byId = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

/** Values sorted by query id (code-unit order, independent of locale and of line order). */
function inIdOrder(scores: Map<string, number>): number[] {
  return [...scores.keys()].sort(byId).map((q) => scores.get(q) as number);
}

function listIds(ids: string[]): string {
  const shown = ids.slice(0, 10).join(', ');
  return ids.length > 10 ? `${shown}, … (${ids.length} in all)` : shown;
}

function choice<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`--${name}: expected one of ${allowed.join(', ')}, got '${value}'`);
  return value as T;
}

/** "[lo, hi]", "[lo, ∞)" or "(−∞, hi]". */
function intervalText(ci: { lower: number; upper: number }, places: number | undefined): string {
  const f = (x: number) => (places === undefined ? String(x) : x.toFixed(places));
  const lo = Number.isFinite(ci.lower) ? `[${f(ci.lower)}` : '(-inf';
  const hi = Number.isFinite(ci.upper) ? `${f(ci.upper)}]` : 'inf)';
  return `${lo}, ${hi}`;
}
