/**
 * `fairground eval compare`: several runs against one baseline in one table, the command-line twin
 * of the Results screen (services/evaluation/irEvaluation.ts does the work for both) and of
 * PyTerrier's `Experiment(..., baseline=0)`: measures as columns, paired tests of every run against
 * the baseline, a correction over all run × measure tests, as a table, CSV or LaTeX.
 */
import { DataError } from '../../core/errors';
import { formatMeasure, parseMeasure } from '../../core/ir/measureSpec';
import { CORRECTIONS, type Correction } from '../../core/stats/multipleComparisons';
import { readText } from '../../io/lines';
import { ApiFailure } from '../../api/router';
import type { IrEvaluation } from '../../api/contract/evaluation';
import { evaluateIrRuns, meanHeader } from '../../services/evaluation/irEvaluation';
import { exportIrEvaluation } from '../../services/evaluation/irEvaluationExport';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';
import { choiceOption, formatValue, inputFile, placesOption } from './evalInputs';

const FORMATS = ['table', 'csv', 'latex'] as const;
const TESTS = ['t', 'randomization'] as const;

const help = `Usage: fairground eval compare --qrels QRELS --baseline RUN --run RUN [--run RUN ...] -m MEASURE [-m ...] [options]

Evaluates every run against the qrels (trec_eval semantics, as 'eval ir': ties by docno
descending, qrels queries missing from a run count 0 as with trec_eval -c) and compares each
run with the baseline by a two-sided paired test per measure over the qrels queries; the
p-values of all run x measure tests are corrected together. Runs are named as given.

Options:
  --qrels FILE          qrels 'qid iter docno rel'
  --baseline FILE       the run the others are compared with (the first row)
  --run FILE            a run to compare; repeat (at least one)
  -m, --measure M       ir_measures name (as in 'eval ir'); repeat
  --test T              t (default): paired t-test; randomization: paired sign-flip test,
                        p = (count + 1)/(permutations + 1)
  --correction C        holm (default) | bonferroni | bh (Benjamini-Hochberg, false discovery
                        rate) | none
  --alpha A             significance level; a test is significant when its corrected p <= A (0.05)
  --permutations N      randomization permutations (default 10000)
  --seed S              randomization seed (default 42)
  --format F            table (default): tab-separated, one row per run, for each measure the
                        columns 'M', 'M +' and 'M -' (queries better and worse than the
                        baseline), 'M p-value', 'M p-value corrected' and 'M reject' (as
                        PyTerrier's Experiment); csv: one row per run and measure with mean, 95% CI,
                        delta, p-value, corrected p-value, wins/ties/losses, aggregate and
                        trec_eval_all; latex: booktabs table, best value per measure in bold,
                        dagger = significant against the baseline
  Every mean is over the qrels queries, count measures (NumRet, NumRel, NumQ ...) included: their
  column reads 'M (mean per query)', as their CI and delta are; trec_eval's 'all' (their sum) is
  the CSV's trec_eval_all. Intervals of bounded measures stay in their range (see ci_method).
  -p, --places N        decimals of the table's values (default 4) or of the LaTeX table (default 3)
Every FILE may be '-' (standard input, for one of them) or FILE.gz.

Example:
  fairground eval compare --qrels test.qrels --baseline bm25.run --run rm3.run --run dense.run \\
    -m nDCG@10 -m AP --correction bh --format latex
`;

export const evalCompareCommand: CliCommand = {
  path: ['eval', 'compare'],
  summary: 'Several runs against a baseline: measures as columns, paired tests, Holm/Bonferroni/BH, CSV or LaTeX',
  help,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      qrels: { type: 'string' },
      baseline: { type: 'string' },
      run: { type: 'string', multiple: true },
      measure: { type: 'string', short: 'm', multiple: true },
      test: { type: 'string' },
      correction: { type: 'string' },
      alpha: { type: 'string' },
      permutations: { type: 'string' },
      seed: { type: 'string' },
      format: { type: 'string' },
      places: { type: 'string', short: 'p' },
    });
    const qrelsFile = requireOption(values.qrels, 'qrels');
    const baselineFile = requireOption(values.baseline, 'baseline');
    const runFiles = values.run ?? [];
    if (runFiles.length === 0) throw new CliError('missing required option --run (at least one run to compare with the baseline)');
    const measureArgs = values.measure ?? [];
    if (measureArgs.length === 0) throw new CliError('missing required option -m/--measure (e.g. -m nDCG@10)');
    const measures = measureArgs.map((m) => {
      try {
        return formatMeasure(parseMeasure(m));
      } catch (err) {
        if (err instanceof DataError) throw new CliError(`-m ${err.reason}`);
        throw err;
      }
    });
    const test = choiceOption(values.test, 'test', TESTS) ?? 't';
    const correction: Correction = choiceOption(values.correction, 'correction', CORRECTIONS) ?? 'holm';
    const alpha = numberOption(values.alpha, 'alpha') ?? 0.05;
    if (!(alpha > 0 && alpha < 1)) throw new CliError(`--alpha: must be between 0 and 1 (exclusive), got ${alpha}`);
    const permutations = numberOption(values.permutations, 'permutations', { integer: true, min: 100, max: 1_000_000 }) ?? 10_000;
    const seed = numberOption(values.seed, 'seed', { integer: true, min: 0, max: 0xffffffff }) ?? 42;
    const format = choiceOption(values.format, 'format', FORMATS) ?? 'table';
    const places = placesOption(values.places);
    const files = [qrelsFile, baselineFile, ...runFiles];
    if (files.filter((f) => f === '-').length > 1) throw new CliError('only one input can be standard input (-)');
    const names = [baselineFile, ...runFiles];
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined) throw new CliError(`the run '${dup}' is given twice`);

    const read = (file: string) => inputFile(file, io.cwd, (p) => readText(p, { stdin: io.stdin }));
    const qrels = { name: qrelsFile, text: await read(qrelsFile) };
    const runs = [];
    for (const name of names) runs.push({ name, text: await read(name) });

    let ev: IrEvaluation;
    try {
      ev = evaluateIrRuns({ runs, qrels, measures, baseline: baselineFile, test, correction, alpha, permutations, seed });
    } catch (err) {
      if (err instanceof ApiFailure) throw new CliError(err.message);
      throw err;
    }
    for (const note of ev.notes) io.stderr.write(`note: ${note}\n`);
    if (ev.qids.length === 0) throw new CliError('the qrels hold no query');

    if (format === 'csv') io.stdout.write(exportIrEvaluation(ev, 'csv-summary').file.content);
    else if (format === 'latex') io.stdout.write(exportIrEvaluation(ev, 'latex', { digits: places ?? 3, environment: 'table' }).file.content);
    else io.stdout.write(comparisonTable(ev, places ?? 4));
    return 0;
  },
};

/** PyTerrier Experiment's layout: name, then per measure the mean, +, −, p-value, corrected p-value, reject. */
export function comparisonTable(ev: IrEvaluation, places: number): string {
  const header = ['name'];
  for (const m of ev.measures) header.push(meanHeader(m, ev.countMeasures), `${m} +`, `${m} -`, `${m} p-value`, `${m} p-value corrected`, `${m} reject`);
  const lines = [header.join('\t')];
  for (const s of ev.systems) {
    const cells = [s.name];
    for (const m of ev.measures) {
      cells.push(formatValue(s.means[m]!, places));
      const c = ev.comparisons.find((x) => x.system === s.name && x.measure === m);
      if (!c) cells.push('', '', '', '', '');
      else cells.push(String(c.wins), String(c.losses), formatValue(c.pValue, places), formatValue(c.pAdjusted, places), String(c.significant));
    }
    lines.push(cells.join('\t'));
  }
  return `${lines.join('\n')}\n`;
}
