/**
 * `fairground eval text`: score predictions against references with one of the text measures of
 * core/text/textMetrics.ts, one JSON line per id and a final mean line. The whole file is read,
 * validated and scored before anything is written, so a bad line leaves stdout empty.
 */
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { DataError } from '../../core/errors';
import {
  isRougeImpl,
  isTextMetricName,
  ROUGE_IMPLS,
  TEXT_METRIC_NAMES,
  textMetric,
  type TextMetric,
  type TextMetricOptions,
} from '../../core/text/textMetrics';
import { readLines } from '../../io/lines';
import { parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';

const HELP = `Usage: fairground eval text --metric NAME [--impl rouge-score|pltrdy] [--stem] --input PAIRS.jsonl

Scores each prediction against its references and prints one JSON line per id, then {"mean": ...}.

Options:
  --metric NAME    rouge1 | rouge2 | rougeL | rougeLsum   ROUGE; per id {"id","precision","recall","f"},
                                                         mean = the mean of f
                   f1 | em      SQuAD v1.1 token F1 / exact match (lower-case, no punctuation or
                                articles a/an/the); per id {"id","value"}, mean of value
                   accuracy     1 if the prediction equals a reference after stripping surrounding
                                whitespace (case-sensitive), else 0; mean = accuracy
                   mae          numbers as text, exactly one reference; value = |p - g|,
                                mean = MAE
                   rmse         numbers as text, exactly one reference; value = (p - g)^2 (the squared
                                error), mean = sqrt(mean of value) = RMSE over the file
  --impl NAME      ROUGE implementation (ROUGE metrics only; default rouge-score):
                     rouge-score  Google rouge-score 0.1.2, as LaMP / HF evaluate: lower-cased
                                  [a-z0-9] tokens, n-gram counts; rougeLsum splits sentences at newlines
                     pltrdy       pltrdy rouge 1.0.1, as RichRAG / Fair-RAG: case-sensitive, space-split
                                  tokens with punctuation attached, distinct n-grams, rougeL is
                                  summary-level over '.'-sentences (no rougeLsum); empty text scores 0
  --stem           Porter-stem tokens longer than 3 characters (rouge-score only)
  --input FILE     JSON lines {"id": "q1", "prediction": "...", "references": ["...", ...]};
                   id is a string or a number and must be unique; blank lines are skipped.
                   With several references ROUGE keeps the reference with the highest f, the
                   others take the maximum over references.
                   ('-': standard input; FILE.gz is gunzipped)
  -h, --help       show this help

Errors (bad JSON, a missing or mistyped field, a non-numeric value for mae/rmse) name the file and
line; nothing is printed to stdout then.

Example:
  $ cat pairs.jsonl
  {"id": "q1", "prediction": "The cat sat.", "references": ["The cat sat on the mat."]}
  $ fairground eval text --metric rougeL --impl pltrdy --input pairs.jsonl
  {"id":"q1","precision":1,"recall":0.5,"f":0.6666666622222223}
  {"mean":0.6666666622222223}
  pltrdy keeps case, so "The" and "the" are two of the reference's 6 distinct words, and its
  F = 2PR/(P+R+1e-8); --impl rouge-score gives f = 0.6666666666666666 for the same pair.
`;

interface Pair {
  id: string | number;
  prediction: string;
  references: string[];
  line: number;
}

export const evalTextCommand: CliCommand = {
  path: ['eval', 'text'],
  summary: 'Score predictions with ROUGE (rouge-score or pltrdy), SQuAD F1/EM, accuracy, MAE or RMSE',
  help: HELP,
  async run(argv: string[], io: CliIo): Promise<number> {
    const { values } = parseCliArgs(argv, {
      metric: { type: 'string' },
      impl: { type: 'string' },
      stem: { type: 'boolean' },
      input: { type: 'string' },
    });
    const metricName = requireOption(values.metric, 'metric');
    if (!isTextMetricName(metricName)) {
      throw new CliError(`--metric: unknown metric '${metricName}' (expected one of ${TEXT_METRIC_NAMES.join(', ')})`);
    }
    const options: TextMetricOptions = {};
    if (values.impl !== undefined) {
      if (!isRougeImpl(values.impl)) throw new CliError(`--impl: unknown implementation '${values.impl}' (expected ${ROUGE_IMPLS.join(' or ')})`);
      options.impl = values.impl;
    }
    if (values.stem) options.stem = true;
    let metric: TextMetric;
    try {
      metric = textMetric(metricName, options);
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    const file = requireOption(values.input, 'input');

    const pairs = await readPairs(file === '-' ? '-' : resolve(io.cwd, file), file, io.stdin);
    const out = scorePairs(metric, pairs, file);
    io.stdout.write(out);
    return 0;
  },
};

/** JSON lines of a file, `-` (standard input) or a `.gz` file; errors name the file as given. */
async function readPairs(path: string, file: string, stdin: Readable): Promise<Pair[]> {
  const pairs: Pair[] = [];
  const firstLineOfId = new Map<string, number>();
  let lines;
  try {
    lines = await readLines(path, { stdin });
  } catch (err) {
    throw err instanceof DataError ? err.inFile(file === '-' ? '<stdin>' : file) : err;
  }
  for (const { line, text } of lines) {
    if (text.trim() === '') continue;
    const where = { file, line };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new DataError(`invalid JSON (${(err as Error).message})`, where);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new DataError('expected a JSON object {"id", "prediction", "references"}', where);
    }
    const record = value as Record<string, unknown>;
    const id = record.id;
    if (id === undefined) throw new DataError('missing', { ...where, field: 'id' });
    if (!(typeof id === 'string' && id !== '') && !(typeof id === 'number' && Number.isFinite(id))) {
      throw new DataError('expected a non-empty string or a number', { ...where, field: 'id' });
    }
    // "1" and 1 print differently but name the same query; treat them as the same id.
    const key = String(id);
    const seen = firstLineOfId.get(key);
    if (seen !== undefined) throw new DataError(`duplicate id ${JSON.stringify(id)} (first on line ${seen})`, { ...where, field: 'id' });
    firstLineOfId.set(key, line);
    if (record.prediction === undefined) throw new DataError('missing', { ...where, field: 'prediction' });
    if (typeof record.prediction !== 'string') throw new DataError('expected a string', { ...where, field: 'prediction' });
    const refs = record.references;
    if (refs === undefined) throw new DataError('missing', { ...where, field: 'references' });
    if (!Array.isArray(refs) || refs.length === 0) {
      throw new DataError('expected a non-empty array of strings', { ...where, field: 'references' });
    }
    refs.forEach((r, i) => {
      if (typeof r !== 'string') throw new DataError('expected a string', { ...where, field: `references[${i}]` });
    });
    pairs.push({ id, prediction: record.prediction, references: refs as string[], line });
  }
  return pairs;
}

/** Score every pair (errors name the line), then render all output at once. */
function scorePairs(metric: TextMetric, pairs: readonly Pair[], file: string): string {
  const withLine = <T>(pair: Pair, fn: () => T): T => {
    try {
      return fn();
    } catch (err) {
      if (err instanceof DataError) throw new DataError(err.reason, { file, line: pair.line, field: err.field });
      throw err;
    }
  };
  const lines: string[] = [];
  let mean: number | null;
  if (metric.kind === 'prf') {
    const scores = pairs.map((p) => withLine(p, () => metric.score(p.prediction, p.references)));
    scores.forEach((s, i) => lines.push(JSON.stringify({ id: pairs[i]!.id, precision: s.precision, recall: s.recall, f: s.f })));
    mean = metric.aggregate(scores);
  } else {
    const values = pairs.map((p) => withLine(p, () => metric.score(p.prediction, p.references)));
    values.forEach((v, i) => lines.push(JSON.stringify({ id: pairs[i]!.id, value: v })));
    mean = metric.aggregate(values);
  }
  // No pairs: there is no mean; null rather than NaN (which JSON cannot carry).
  lines.push(JSON.stringify({ mean }));
  return `${lines.join('\n')}\n`;
}
