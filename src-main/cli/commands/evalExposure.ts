/**
 * `fairground eval exposure`: expected-exposure metrics of Fair RAG (Sec. 3.3.1, App. C) and,
 * with NLI labels, its attribution metrics (Sec. 3.3.3–3.3.4) for a stochastic TREC run.
 *
 * Input conventions (decided here, documented in --help):
 * - RUN: expeval's stochastic run, column 2 = sample id; one top-k ranking per (qid, sample),
 *   ordered by the rank column, which must run 1, 2, 3, … without gaps or repeats. N = number of
 *   distinct sample ids of the query. Positions after k are ignored (step user model, Eq. 4) with
 *   one warning on stderr, because Fair-RAG's expeval would count every listed position.
 * - QRELS: every candidate of the query (n = its rows, m = rows with rel > 0; rel ≤ 0, including
 *   expeval's −1 "unjudged", counts as non-useful). A ranked document missing from the qrels is an
 *   error naming the run line: with n fixed by the qrels, an unknown item has no place in ε.
 *   A run query without qrels is an error, unless --judged-only leaves such queries out (named
 *   on stderr, and counted in no mean); qrels queries absent from the run are skipped (noted
 *   on stderr), as trec_eval does without -c.
 * - FILE (--attribution): `qid sample docno 0|1`, one line per top-k item of every sample, no more
 *   and no less: a missing label or a label for an item outside a sample's top k is an error.
 */
import type { Readable } from 'node:stream';
import { DataError } from '../../core/errors';
import { expectedAttribution, type AttributedSample } from '../../core/exposure/attribution';
import { expectedExposure } from '../../core/exposure/expectedExposure';
import type { TargetVariant } from '../../core/exposure/targetExposure';
import { compareIds } from '../../core/sampling/itemChecks';
import type { UtilityLabelledItem } from '../../core/sampling/oracleRetriever';
import { readLines } from '../../io/lines';
import { isSkippable, splitWhitespace } from '../../io/trec/fields';
import { readQrels, type QrelRow } from '../../io/trec/qrels';
import { forEachRunQuery, type RunColumns } from '../../io/trec/run';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';
import { formatValue, inputFile, placesOption, readWarnings } from './evalInputs';

const TARGETS: readonly TargetVariant[] = ['paper', 'code'];

const help = `Usage: fairground eval exposure --run RUN --qrels QRELS -k K [--target paper|code] [--attribution FILE] [--judged-only] [-q] [-p N]

Expected exposure of a stochastic run under the step machine-user model of Fair RAG (Kim & Diaz,
Sec. 3.3.1, App. C): an item's exposure is the fraction of the query's N rankings that hold it in
the top K.

Options:
  --run FILE           stochastic run: qid SAMPLE docno rank score tag (or Fair-RAG's TSV), one
                       ranking per (qid, sample), ordered by rank (1, 2, ... without gaps); ranks
                       after K are ignored (with a warning)
  --qrels FILE         every candidate of each query: rel > 0 useful, rel <= 0 not useful
                       (n = rows of the query, m = useful rows); a ranked document that is not in the
                       qrels is an error
  --judged-only        leave out the run's queries that the qrels do not hold (e.g. queries without
                       utility labels), naming them on stderr; without it such a query is an error
  -k K                 ranking depth of the machine user
  --target T           paper (default): Eq. 6 target, non-useful items get (K-m)/(n-m) when m < K;
                       code: the released code's target, 0 for non-useful items (same EE-R bound)
  --attribution FILE   NLI labels "qid sample docno 0|1" for every top-K item of every sample
                       (1 = the item entails the output generated from that sample's ranking)
  -q                   also print per-query rows
  -p, --places N       decimals of every value (default 6), rounded as printf rounds (ties to even)
Every FILE may be '-' (standard input, for one of them) or FILE.gz (gunzipped).

Measures (trec_eval style "measure<TAB>qid<TAB>value"; "all" = mean over queries):
  EE-D, EE-D_norm      ||eps||^2 and ||eps||^2 / K                      (Eq. 3, 16)
  EE-R, EE-R_norm      <eps, eps*> and / (m + (K-m)^2/(n-m)) or / (K^2/m) (Eq. 3, 26-28)
  EE-L, EE-L_norm      ||eps - eps*||^2 and / (EE-R bound + K)
  with --attribution:
  EAR                  mean over samples of (#entailing top-K items)/K  (Eq. 8-9)
  EAE-D, EAE-D_norm    ||eps^a||^2 and / K                              (Eq. 10-11)

Example:
  fairground eval exposure --run bm25.a2.trec --qrels utility.qrels -k 5 --target code -q
`;

const EXPOSURE_MEASURES = ['EE-D', 'EE-R', 'EE-L', 'EE-D_norm', 'EE-R_norm', 'EE-L_norm'] as const;
const ATTRIBUTION_MEASURES = ['EAR', 'EAE-D', 'EAE-D_norm'] as const;

export const evalExposureCommand: CliCommand = {
  path: ['eval', 'exposure'],
  summary: 'Expected exposure (EE-D/EE-R/EE-L) and attribution (EAR/EAE-D) of a stochastic run',
  help,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      run: { type: 'string' },
      qrels: { type: 'string' },
      k: { type: 'string', short: 'k' },
      target: { type: 'string' },
      attribution: { type: 'string' },
      q: { type: 'boolean', short: 'q' },
      'judged-only': { type: 'boolean' },
      places: { type: 'string', short: 'p' },
    });
    const runFile = requireOption(values.run, 'run');
    const qrelsFile = requireOption(values.qrels, 'qrels');
    const k = numberOption(requireOption(values.k, 'k'), 'k', { integer: true, min: 1 }) as number;
    const target = values.target ?? 'paper';
    if (!(TARGETS as readonly string[]).includes(target)) throw new CliError(`--target: expected one of ${TARGETS.join(', ')}, got '${target}'`);

    const places = placesOption(values.places) ?? 6;
    const attrFile = values.attribution;
    if ([runFile, qrelsFile, attrFile].filter((f) => f === '-').length > 1) throw new CliError('only one input can be standard input (-)');

    const qrelRows = await inputFile(qrelsFile, io.cwd, (p) => readQrels(p, { stdin: io.stdin }));
    const labels = attrFile === undefined ? undefined : await inputFile(attrFile, io.cwd, (p) => readAttributionLabels(p, attrFile, io.stdin));
    const candidates = candidatesByQuery(qrelRows);

    const measures: string[] = [...EXPOSURE_MEASURES, ...(labels ? ATTRIBUTION_MEASURES : [])];
    let perQuery = new Map<string, Record<string, number>>();
    let longRankings = 0;
    const judgedOnly = values['judged-only'] ?? false;
    let unjudged: string[] = [];
    /** One query's rows of the run (`rows` of `run`, all of them when undefined). */
    const evaluateQuery = (qid: string, run: RunColumns, rows: readonly number[] | undefined): void => {
      const samples = querySamples(run, rows, qid, runFile);
      const items = candidates.get(qid);
      const firstRow = samples.values().next().value![0]!;
      if (!items && judgedOnly) {
        unjudged.push(qid);
        return;
      }
      if (!items) throw new DataError(`query '${qid}' is not in the qrels ${qrelsFile} (--judged-only leaves such queries out)`, { file: runFile, line: run.line[firstRow], field: 'qid' });
      const known = new Set(items.map((it) => it.id));
      for (const sampleRows of samples.values()) {
        if (sampleRows.length > k) longRankings++;
        for (const row of sampleRows) {
          if (!known.has(run.docno[row]!)) {
            throw new DataError(`document '${run.docno[row]}' of query '${qid}' is not in the qrels ${qrelsFile} (they must list every candidate, rel 0 for non-useful)`, {
              file: runFile,
              line: run.line[row],
              field: 'docno',
            });
          }
        }
      }
      const rankings = [...samples.values()].map((sampleRows) => sampleRows.map((r) => run.docno[r]!));
      const ee = expectedExposure({ items, rankings, k, target: target as TargetVariant });
      const scores: Record<string, number> = {
        'EE-D': ee.eeD,
        'EE-R': ee.eeR,
        'EE-L': ee.eeL,
        'EE-D_norm': ee.eeDNorm,
        'EE-R_norm': ee.eeRNorm,
        'EE-L_norm': ee.eeLNorm,
      };
      if (labels) {
        const attributed = attributedSamples(run, qid, samples, k, labels, attrFile as string, runFile);
        const ea = expectedAttribution(
          items.map((it) => it.id),
          attributed,
          k,
        );
        scores.EAR = ea.ear;
        scores['EAE-D'] = ea.eaeD;
        scores['EAE-D_norm'] = ea.eaeDNorm;
      }
      perQuery.set(qid, scores);
    };

    // One query at a time as the run is read (memory bounded by the largest query); standard input
    // and a run whose queries come back are read whole first. Both give the same result and errors.
    const warnings = readWarnings(io, runFile);
    await inputFile(runFile, io.cwd, (p) =>
      forEachRunQuery(p, evaluateQuery, {
        stdin: io.stdin,
        onWarning: warnings.onWarning,
        restart: () => {
          warnings.discard();
          for (const label of labels?.values() ?? []) label.used = false;
          perQuery = new Map();
          longRankings = 0;
          unjudged = [];
        },
      }),
    );
    warnings.flush();
    if (perQuery.size === 0) throw new DataError(unjudged.length > 0 ? `none of the run's ${unjudged.length} queries is in the qrels ${qrelsFile}` : 'the run holds no rankings', { file: runFile });

    if (labels) {
      for (const label of labels.values()) {
        if (!label.used) {
          throw new DataError(`'${label.docno}' is not among the top ${k} of sample '${label.sample}' of query '${label.qid}' in ${runFile}`, {
            file: attrFile,
            line: label.line,
          });
        }
      }
    }

    if (longRankings > 0) io.stderr.write(`warning: ${longRankings} ranking(s) are longer than k = ${k}; their positions after ${k} are ignored\n`);
    if (unjudged.length > 0) {
      const shown = unjudged.slice(0, 10).join(', ') + (unjudged.length > 10 ? `, … (${unjudged.length - 10} more)` : '');
      io.stderr.write(`note: ${unjudged.length} run quer${unjudged.length === 1 ? 'y is' : 'ies are'} not in the qrels and left out (--judged-only): ${shown}\n`);
    }
    const skipped = [...candidates.keys()].filter((qid) => !perQuery.has(qid)).length;
    if (skipped > 0) io.stderr.write(`note: ${skipped} qrels quer${skipped === 1 ? 'y has' : 'ies have'} no rankings in the run and ${skipped === 1 ? 'is' : 'are'} skipped\n`);

    const qids = [...perQuery.keys()].sort(compareIds);
    let out = '';
    if (values.q) {
      for (const qid of qids) for (const m of measures) out += row(m, qid, (perQuery.get(qid) as Record<string, number>)[m] as number, places);
    }
    for (const m of measures) {
      const mean = qids.reduce((s, qid) => s + ((perQuery.get(qid) as Record<string, number>)[m] as number), 0) / qids.length;
      out += row(m, 'all', mean, places);
    }
    io.stdout.write(out);
    return 0;
  },
};

function row(measure: string, qid: string, value: number, places: number): string {
  return `${measure}\t${qid}\t${formatValue(value, places)}\n`;
}

/** The candidates of every query in qrels order: useful iff rel > 0. */
function candidatesByQuery(rows: readonly QrelRow[]): Map<string, UtilityLabelledItem[]> {
  const out = new Map<string, UtilityLabelledItem[]>();
  for (const r of rows) {
    let items = out.get(r.qid);
    if (!items) out.set(r.qid, (items = []));
    items.push({ id: r.docno, useful: r.rel > 0 });
  }
  return out;
}

/**
 * One query's samples: sample id → row indexes in rank order (samples in order of first
 * appearance), from `rows` of `run` (all of them when undefined). Ranks must be exactly 1..length
 * within a sample: a repeat or a gap names the offending line.
 */
function querySamples(run: RunColumns, rows: readonly number[] | undefined, qid: string, file: string): Map<string, number[]> {
  const byId = new Map<string, number[]>();
  let curIter: string | undefined;
  let sample: number[] | undefined;
  const n = rows ? rows.length : run.length;
  for (let j = 0; j < n; j++) {
    const i = rows ? rows[j]! : j;
    const iter = run.iter[i]!;
    if (iter !== curIter) {
      curIter = iter;
      sample = byId.get(iter);
      if (!sample) byId.set(iter, (sample = []));
    }
    sample!.push(i);
  }
  const { rank, line } = run;
  for (const [sampleId, sampleRows] of byId) {
    let sorted = true;
    for (let j = 1; j < sampleRows.length && sorted; j++) sorted = rank[sampleRows[j]!]! > rank[sampleRows[j - 1]!]!;
    if (!sorted) sampleRows.sort((a, b) => rank[a]! - rank[b]! || line[a]! - line[b]!);
    sampleRows.forEach((r, j) => {
      const where = { file, line: line[r], field: 'rank' };
      if (j > 0 && rank[r] === rank[sampleRows[j - 1]!]) {
        throw new DataError(`rank ${rank[r]} repeated in sample '${sampleId}' of query '${qid}' (also on line ${line[sampleRows[j - 1]!]})`, where);
      }
      if (rank[r] !== j + 1) {
        throw new DataError(
          j === 0
            ? `sample '${sampleId}' of query '${qid}' starts at rank ${rank[r]}; ranks must start at 1`
            : `rank gap in sample '${sampleId}' of query '${qid}': rank ${j + 1} is missing before rank ${rank[r]}`,
          where,
        );
      }
    });
  }
  return byId;
}

interface AttributionLabel {
  qid: string;
  sample: string;
  docno: string;
  entails: boolean;
  line: number;
  used: boolean;
}

const labelKey = (qid: string, sample: string, docno: string): string => `${qid}\n${sample}\n${docno}`;

/** `qid sample docno 0|1` lines; blank and `#` lines are skipped as in TREC files. */
async function readAttributionLabels(path: string, given: string, stdin: Readable): Promise<Map<string, AttributionLabel>> {
  const out = new Map<string, AttributionLabel>();
  const file = given === '-' ? '<stdin>' : path;
  for (const { line, text } of await readLines(path, { stdin })) {
    if (isSkippable(text)) continue;
    const f = splitWhitespace(text);
    if (f.length !== 4) throw new DataError(`expected 4 columns 'qid sample docno 0|1', got ${f.length}`, { file, line, field: 'columns' });
    const [qid, sample, docno, raw] = f as [string, string, string, string];
    if (raw !== '0' && raw !== '1') throw new DataError(`expected 0 or 1, got '${raw}'`, { file, line, field: 'label' });
    const key = labelKey(qid, sample, docno);
    const prev = out.get(key);
    if (prev) throw new DataError(`'${docno}' of sample '${sample}' of query '${qid}' is labelled twice (also on line ${prev.line})`, { file, line, field: 'docno' });
    out.set(key, { qid, sample, docno, entails: raw === '1', line, used: false });
  }
  return out;
}

/** Pairs every top-k item of every sample of `qid` with its NLI label; a missing label is an error. */
function attributedSamples(
  run: RunColumns,
  qid: string,
  samples: Map<string, number[]>,
  k: number,
  labels: Map<string, AttributionLabel>,
  attrFile: string,
  runFile: string,
): AttributedSample[] {
  return [...samples].map(([sampleId, rows]) => {
    const top = rows.slice(0, k);
    const entails = top.map((r) => {
      const label = labels.get(labelKey(qid, sampleId, run.docno[r]!));
      if (!label) {
        throw new DataError(`no attribution label in ${attrFile} for '${run.docno[r]}' of sample '${sampleId}' of query '${qid}'`, { file: runFile, line: run.line[r] });
      }
      label.used = true;
      return label.entails;
    });
    return { ranking: top.map((r) => run.docno[r]!), entails };
  });
}
