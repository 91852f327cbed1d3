/**
 * `fairground eval ir`: trec_eval-compatible evaluation of a TREC run against qrels, with
 * ir_measures measure names (conventions.md §4). Output is trec_eval's `-q` shape.
 */
import { resolve } from 'node:path';
import { DataError } from '../../core/errors';
import { evaluateRun } from '../../core/ir/evaluateRun';
import { formatMeasure, isCountMeasure, parseMeasure, supportedMeasuresHelp, type MeasureSpec } from '../../core/ir/measureSpec';
import { formatMeasureCsv, formatMeasureTsv, measureRows } from '../../io/measureCsv';
import { readQrelsFile, type QrelsFormat } from '../../io/trec/qrels';
import { readRunFile, type RunFormat } from '../../io/trec/run';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';

const RUN_FORMATS: readonly RunFormat[] = ['auto', 'trec', 'tsv'];
const QRELS_FORMATS: readonly QrelsFormat[] = ['auto', 'trec', 'relevance-mapping'];

const HELP = `Usage: fairground eval ir --run RUN --qrels QRELS -m MEASURE [-m MEASURE ...] [options]

Evaluate a TREC run against qrels with trec_eval's semantics and print
'measure<TAB>qid<TAB>value' lines (values with 4 decimals, counts as integers):
per-query lines with -q, and always one 'all' line per measure.

Options:
  --run FILE            run file 'qid iter docno rank score tag' (# comment lines skipped)
  --qrels FILE          qrels file 'qid iter docno rel'
  -m, --measure M       ir_measures name; repeat for several (at least one)
  -q, --per-query       also print one line per query and measure
      --intersection    average only over queries in both run and qrels (trec_eval
                        without -c); default: qrels queries missing from the run count 0
      --depth N         evaluate only the top N documents of each query (trec_eval -M)
      --run-format F    auto (default) | trec | tsv (Fair-RAG: tab-separated with header
                        'qid sample docno rank sim run_id'); auto picks tsv on that header
      --qrels-format F  auto (default) | trec | relevance-mapping (Fair-RAG
                        'qid<TAB>pid<TAB>relevance_label' with header)
      --csv             print CSV 'measure,qid,value' at full precision instead

Measures (ir_measures syntax; rel=N is the minimum label counted relevant, default 1):
${supportedMeasuresHelp()
  .map((l) => `  ${l}`)
  .join('\n')}

Ranking: documents are sorted by score descending, ties by docno descending; the rank
column is ignored (as trec_eval does). nDCG uses the label as gain (trec_eval ndcg_cut)
unless dcg='exp-log2' (2^rel - 1). Queries with qrels but no relevant document count 0.

Example:
  fairground eval ir --run runs/bm25.trec --qrels qrels.txt -m nDCG@10 -m AP -m 'P(rel=2)@10' -q
`;

export const evalIrCommand: CliCommand = {
  path: ['eval', 'ir'],
  summary: 'Evaluate a TREC run against qrels (nDCG@k, AP, RR, P@k, R@k, Judged@k)',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      run: { type: 'string' },
      qrels: { type: 'string' },
      measure: { type: 'string', short: 'm', multiple: true },
      'per-query': { type: 'boolean', short: 'q' },
      intersection: { type: 'boolean' },
      depth: { type: 'string' },
      'run-format': { type: 'string' },
      'qrels-format': { type: 'string' },
      csv: { type: 'boolean' },
    });
    const runPath = requireOption(values.run, 'run');
    const qrelsPath = requireOption(values.qrels, 'qrels');
    const measureArgs = values.measure ?? [];
    if (measureArgs.length === 0) throw new CliError('missing required option -m/--measure (e.g. -m nDCG@10)');
    const depth = numberOption(values.depth, 'depth', { integer: true, min: 1 });
    const runFormat = choice(values['run-format'], 'run-format', RUN_FORMATS);
    const qrelsFormat = choice(values['qrels-format'], 'qrels-format', QRELS_FORMATS);

    // Measures first: a typo should not wait for a large run to load.
    const specs: MeasureSpec[] = measureArgs.map((m) => {
      try {
        return parseMeasure(m);
      } catch (err) {
        if (err instanceof DataError) throw new CliError(`-m ${err.reason}`);
        throw err;
      }
    });

    const qrels = readAs(qrelsPath, io.cwd, (p) => readQrelsFile(p, { format: qrelsFormat }));
    const run = readAs(runPath, io.cwd, (p) => readRunFile(p, { format: runFormat }));
    if (qrels.length === 0) throw new DataError('no relevance judgements', { file: qrelsPath });

    const result = evaluateRun(run, qrels, specs, {
      complete: !values.intersection,
      depth,
      runSource: runPath,
      qrelsSource: qrelsPath,
    });

    const runQueries = new Set(run.map((r) => r.qid)).size;
    if (runQueries === 0) {
      io.stderr.write(`warning: the run has no results\n`);
    } else if (result.notInQrels.length === runQueries) {
      io.stderr.write(`warning: none of the run's ${runQueries} queries appear in the qrels; check the query ids\n`);
    } else if (result.missingFromRun.length > 0) {
      const fate = values.intersection ? 'are left out of the mean' : 'count as 0 (--intersection leaves them out)';
      io.stderr.write(`note: ${result.missingFromRun.length} qrels queries have no results and ${fate}\n`);
    }
    if (result.queries.length === 0) throw new CliError('no query has both results and relevance judgements');

    const rows = measureRows(result, { perQuery: values['per-query'] ?? false });
    if (values.csv) {
      io.stdout.write(formatMeasureCsv(rows));
    } else {
      const integerMeasures = new Set(specs.filter(isCountMeasure).map(formatMeasure));
      io.stdout.write(formatMeasureTsv(rows, { integerMeasures }));
    }
    return 0;
  },
};

function choice<T extends string>(value: string | undefined, name: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`--${name}: expected one of ${allowed.join(', ')}, got '${value}'`);
  return value as T;
}

/**
 * Read a file given relative to the injected cwd (so in-process tests and the shell agree), with
 * errors naming the path as the user typed it.
 */
function readAs<T>(userPath: string, cwd: string, read: (path: string) => T): T {
  const full = resolve(cwd, userPath);
  try {
    return read(full);
  } catch (err) {
    if (err instanceof DataError && err.file === full) throw err.inFile(userPath);
    throw err;
  }
}
