/**
 * `fairground eval ir`: trec_eval-compatible evaluation of a TREC run against qrels, with
 * ir_measures measure names (conventions.md §4). Output is trec_eval's `-q` shape.
 */
import { DataError } from '../../core/errors';
import { rankedLabelsOfBytes, type DocLabelTable } from '../../core/ir/docBytes';
import { RankingEvaluator, type Evaluation, type QueryRanking } from '../../core/ir/evaluateRun';
import { formatMeasure, isCountMeasure, parseMeasure, supportedMeasuresHelp, type MeasureSpec } from '../../core/ir/measureSpec';
import { formatMeasureCsv, formatMeasureTsv, measureRows } from '../../io/measureCsv';
import { readQrels, type QrelRow, type QrelsFormat } from '../../io/trec/qrels';
import { readQrelsBytes } from '../../io/trec/qrelsBytes';
import { forEachRunQuery, type RunColumns, type RunFormat } from '../../io/trec/run';
import { readRunBytesByQuery } from '../../io/trec/runBytes';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';
import { choiceOption, formatValue, inputFile, placesOption, readWarnings } from './evalInputs';

const RUN_FORMATS: readonly RunFormat[] = ['auto', 'trec', 'tsv'];
const QRELS_FORMATS: readonly QrelsFormat[] = ['auto', 'trec', 'relevance-mapping'];
const OUTPUT_FORMATS = ['trec_eval', 'ir_measures', 'json'] as const;

const HELP = `Usage: fairground eval ir --run RUN --qrels QRELS -m MEASURE [-m MEASURE ...] [options]

Evaluate a TREC run against qrels with trec_eval's semantics and print
'measure<TAB>qid<TAB>value' lines (values with 4 decimals, counts as integers):
per-query lines with -q, and always one 'all' line per measure. Values are rounded as
trec_eval's printf rounds them (an exact tie to even: 1/32 prints 0.0312, not 0.0313).

Options:
  --run FILE            run file 'qid iter docno rank score tag' (# comment lines skipped; a
                        line with more than 6 columns is read from its first six, as trec_eval
                        does, with one warning); '-' reads standard input, FILE.gz is gunzipped
  --qrels FILE          qrels file 'qid iter docno rel' ('-' and .gz as for --run)
  -m, --measure M       ir_measures name; repeat for several (at least one)
  -q, --per-query       also print one line per query and measure
  -p, --places N        decimals of every value (default 4, as trec_eval)
      --format F        trec_eval (default): 'measure<TAB>qid<TAB>value' (the measure name is
                        not padded to 22 characters as trec_eval pads it, so lines split on tabs);
                        ir_measures: 'qid<TAB>measure<TAB>value' per query (-q) and
                        'measure<TAB>value' for the mean, as the ir_measures command prints;
                        json: one object {"measures", "all": {measure: value}, "per_query":
                        [{"qid", measure: value}] (with -q)} at full precision
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
Where definitions differ: Judged@k breaks score ties by docno descending (trec_eval's
order), while the ir_measures code it cites (judged.py) keeps the run's own order of tied
documents, so Judged@k can differ on ties. With the default averaging (-c), trec_eval's
'num_rel' 'all' line is recomputed over every qrels query and ignores -l (the relevance
level); NumRel here counts labels >= rel=N for every query, as the per-query lines do.

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
      places: { type: 'string', short: 'p' },
      format: { type: 'string' },
    });
    const runPath = requireOption(values.run, 'run');
    const qrelsPath = requireOption(values.qrels, 'qrels');
    const measureArgs = values.measure ?? [];
    if (measureArgs.length === 0) throw new CliError('missing required option -m/--measure (e.g. -m nDCG@10)');
    const depth = numberOption(values.depth, 'depth', { integer: true, min: 1 });
    const runFormat = choiceOption(values['run-format'], 'run-format', RUN_FORMATS);
    const qrelsFormat = choiceOption(values['qrels-format'], 'qrels-format', QRELS_FORMATS);
    const format = choiceOption(values.format, 'format', OUTPUT_FORMATS) ?? 'trec_eval';
    const places = placesOption(values.places) ?? 4;
    if (values.csv && values.format !== undefined) throw new CliError('--csv and --format exclude each other');
    if (runPath === '-' && qrelsPath === '-') throw new CliError('only one of --run and --qrels can be standard input (-)');

    // Measures first: a typo should not wait for a large run to load.
    const specs: MeasureSpec[] = measureArgs.map((m) => {
      try {
        return parseMeasure(m);
      } catch (err) {
        if (err instanceof DataError) throw new CliError(`-m ${err.reason}`);
        throw err;
      }
    });

    // The usual qrels file is read in place, one table per query (qrelsBytes.ts); anything else by
    // the general reader, which also gives the error a bad file deserves.
    const qrels = await inputFile<readonly QrelRow[] | ReadonlyMap<string, DocLabelTable>>(
      qrelsPath,
      io.cwd,
      (p) => readQrelsBytes(p, { format: qrelsFormat })?.byQuery ?? readQrels(p, { format: qrelsFormat, stdin: io.stdin }),
    );
    const evalOptions = { complete: !values.intersection, depth, runSource: runPath, qrelsSource: qrelsPath };
    const warnings = readWarnings(io, runPath);
    let evaluator = new RankingEvaluator(qrels, specs, evalOptions);
    await inputFile(runPath, io.cwd, (p) => {
      // The usual run file is read in place, without a string per line (runBytes.ts); any other
      // input, or any file the fast path does not read exactly as the general reader, is read by
      // the general reader, from the start.
      const fast = readRunBytesByQuery(p, (qid, rows) => {
        const table = evaluator.tableOf(qid);
        evaluator.addRanked(qid, table ? rankedLabelsOfBytes(rows, table, evaluator.cutDepth) : []);
      }, { format: runFormat });
      if (fast.done) return;
      if (fast.queries > 0) evaluator = new RankingEvaluator(qrels, specs, evalOptions);
      return forEachRunQuery(p, (qid, run, rows) => evaluator.add(qid, queryRanking(run, rows, qid, runPath)), {
        format: runFormat,
        stdin: io.stdin,
        onWarning: warnings.onWarning,
        restart: () => {
          warnings.discard();
          evaluator = new RankingEvaluator(qrels, specs, evalOptions);
        },
      });
    });
    if (('length' in qrels ? qrels.length : qrels.size) === 0) throw new DataError('no relevance judgements', { file: qrelsPath });
    warnings.flush();
    const result = evaluator.finish();

    const runQueryCount = evaluator.runQueries;
    if (runQueryCount === 0) {
      io.stderr.write(`warning: the run has no results\n`);
    } else if (result.notInQrels.length === runQueryCount) {
      io.stderr.write(`warning: none of the run's ${runQueryCount} queries appear in the qrels; check the query ids\n`);
    } else if (result.missingFromRun.length > 0) {
      const fate = values.intersection ? 'are left out of the mean' : 'count as 0 (--intersection leaves them out)';
      io.stderr.write(`note: ${result.missingFromRun.length} qrels queries have no results and ${fate}\n`);
    }
    if (result.queries.length === 0) throw new CliError('no query has both results and relevance judgements');

    const perQuery = values['per-query'] ?? false;
    const rows = measureRows(result, { perQuery });
    const integerMeasures = new Set(specs.filter(isCountMeasure).map(formatMeasure));
    if (values.csv) {
      io.stdout.write(formatMeasureCsv(rows, values.places === undefined ? {} : { decimals: places }));
    } else if (format === 'json') {
      io.stdout.write(`${JSON.stringify(jsonResult(result, perQuery))}\n`);
    } else if (format === 'ir_measures') {
      let out = '';
      for (const r of rows) {
        const value = integerMeasures.has(r.measure) && Number.isInteger(r.value) ? String(r.value) : formatValue(r.value, places);
        out += r.qid === 'all' ? `${r.measure}\t${value}\n` : `${r.qid}\t${r.measure}\t${value}\n`;
      }
      io.stdout.write(out);
    } else {
      io.stdout.write(formatMeasureTsv(rows, { integerMeasures, decimals: places }));
    }
    return 0;
  },
};

/**
 * One query's documents and scores (`rows` of `run`; all of them when undefined), without an object per line. A query with
 * several column-2 values (a stochastic run) may not repeat a docno: trec_eval refuses that run.
 */
function queryRanking(run: RunColumns, rows: readonly number[] | undefined, qid: string, file: string): QueryRanking {
  const n = rows ? rows.length : run.length;
  const row = (j: number): number => (rows ? rows[j]! : j);
  const docnos: string[] = new Array(n);
  const scores = new Float64Array(n);
  let severalIters = false;
  for (let j = 1; j < n && !severalIters; j++) severalIters = run.iter[row(j)] !== run.iter[row(0)];
  const seen = severalIters ? new Set<string>() : undefined;
  for (let j = 0; j < n; j++) {
    const i = row(j);
    const docno = run.docno[i]!;
    if (seen) {
      if (seen.has(docno)) {
        throw new DataError(`document '${docno}' appears twice for query '${qid}' (a run with several samples per query must be evaluated per sample)`, {
          file,
          line: run.line[i],
          field: 'docno',
        });
      }
      seen.add(docno);
    }
    docnos[j] = docno;
    scores[j] = run.score[i]!;
  }
  return { docnos, scores };
}

function jsonResult(result: Evaluation, perQuery: boolean): unknown {
  const all: Record<string, number | null> = {};
  for (const m of result.measures) all[m] = jsonNumber(result.all.get(m));
  const out: Record<string, unknown> = { measures: result.measures, all };
  if (perQuery) {
    // An array in evaluation order: an object keyed by qid would list integer-like ids first.
    out.per_query = result.queries.map((qid) => {
      const row: Record<string, string | number | null> = { qid };
      for (const m of result.measures) row[m] = jsonNumber(result.perQuery.get(m)?.get(qid));
      return row;
    });
  }
  return out;
}

function jsonNumber(x: number | undefined): number | null {
  return x === undefined || !Number.isFinite(x) ? null : x;
}
