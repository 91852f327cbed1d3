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
 *   A run query without qrels is an error; qrels queries absent from the run are skipped (noted
 *   on stderr), as trec_eval does without -c.
 * - FILE (--attribution): `qid sample docno 0|1`, one line per top-k item of every sample, no more
 *   and no less: a missing label or a label for an item outside a sample's top k is an error.
 */
import path from 'node:path';
import { DataError } from '../../core/errors';
import { expectedAttribution, type AttributedSample } from '../../core/exposure/attribution';
import { expectedExposure } from '../../core/exposure/expectedExposure';
import type { TargetVariant } from '../../core/exposure/targetExposure';
import { compareIds } from '../../core/sampling/itemChecks';
import type { UtilityLabelledItem } from '../../core/sampling/oracleRetriever';
import { readLinesSync } from '../../io/lines';
import { isSkippable, splitWhitespace } from '../../io/trec/fields';
import { readQrelsFile, readRunFile, type QrelRow, type RunRow } from '../../io/trec';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';

const TARGETS: readonly TargetVariant[] = ['paper', 'code'];

const help = `Usage: fairground eval exposure --run RUN --qrels QRELS -k K [--target paper|code] [--attribution FILE] [-q]

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
  -k K                 ranking depth of the machine user
  --target T           paper (default): Eq. 6 target, non-useful items get (K-m)/(n-m) when m < K;
                       code: the released code's target, 0 for non-useful items (same EE-R bound)
  --attribution FILE   NLI labels "qid sample docno 0|1" for every top-K item of every sample
                       (1 = the item entails the output generated from that sample's ranking)
  -q                   also print per-query rows

Measures (trec_eval style "measure<TAB>qid<TAB>value", 6 decimals; "all" = mean over queries):
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
    });
    const runFile = requireOption(values.run, 'run');
    const qrelsFile = requireOption(values.qrels, 'qrels');
    const k = numberOption(requireOption(values.k, 'k'), 'k', { integer: true, min: 1 }) as number;
    const target = values.target ?? 'paper';
    if (!(TARGETS as readonly string[]).includes(target)) throw new CliError(`--target: expected one of ${TARGETS.join(', ')}, got '${target}'`);

    const runRows = inFile(runFile, () => readRunFile(path.resolve(io.cwd, runFile)));
    const qrelRows = inFile(qrelsFile, () => readQrelsFile(path.resolve(io.cwd, qrelsFile)));
    const attrFile = values.attribution;
    const labels = attrFile === undefined ? undefined : inFile(attrFile, () => readAttributionLabels(path.resolve(io.cwd, attrFile)));

    const candidates = candidatesByQuery(qrelRows);
    const runs = samplesByQuery(runRows, runFile);
    if (runs.size === 0) throw new DataError('the run holds no rankings', { file: runFile });

    const measures: string[] = [...EXPOSURE_MEASURES, ...(labels ? ATTRIBUTION_MEASURES : [])];
    const perQuery = new Map<string, Record<string, number>>();
    let longRankings = 0;
    for (const [qid, samples] of runs) {
      const items = candidates.get(qid);
      const firstRow = samples.values().next().value?.[0] as RunRow;
      if (!items) throw new DataError(`query '${qid}' is not in the qrels ${qrelsFile}`, { file: runFile, line: firstRow.line, field: 'qid' });
      const known = new Set(items.map((it) => it.id));
      for (const rows of samples.values()) {
        if (rows.length > k) longRankings++;
        for (const row of rows) {
          if (!known.has(row.docno)) {
            throw new DataError(`document '${row.docno}' of query '${qid}' is not in the qrels ${qrelsFile} (they must list every candidate, rel 0 for non-useful)`, {
              file: runFile,
              line: row.line,
              field: 'docno',
            });
          }
        }
      }
      const rankings = [...samples.values()].map((rows) => rows.map((r) => r.docno));
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
        const attributed = attributedSamples(qid, samples, k, labels, attrFile as string, runFile);
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
    }
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
    const skipped = [...candidates.keys()].filter((qid) => !runs.has(qid)).length;
    if (skipped > 0) io.stderr.write(`note: ${skipped} qrels quer${skipped === 1 ? 'y has' : 'ies have'} no rankings in the run and ${skipped === 1 ? 'is' : 'are'} skipped\n`);

    const qids = [...perQuery.keys()].sort(compareIds);
    let out = '';
    if (values.q) {
      for (const qid of qids) for (const m of measures) out += row(m, qid, (perQuery.get(qid) as Record<string, number>)[m] as number);
    }
    for (const m of measures) {
      const mean = qids.reduce((s, qid) => s + ((perQuery.get(qid) as Record<string, number>)[m] as number), 0) / qids.length;
      out += row(m, 'all', mean);
    }
    io.stdout.write(out);
    return 0;
  },
};

function row(measure: string, qid: string, value: number): string {
  return `${measure}\t${qid}\t${value.toFixed(6)}\n`;
}

/** Errors name the file as the user wrote it, not its resolved path. */
function inFile<T>(given: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw err instanceof DataError ? err.inFile(given) : err;
  }
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
 * qid → sample id → rows in rank order (samples and queries in order of first appearance).
 * Ranks must be exactly 1..length within a sample: a repeat or a gap names the offending line.
 */
function samplesByQuery(rows: readonly RunRow[], file: string): Map<string, Map<string, RunRow[]>> {
  const out = new Map<string, Map<string, RunRow[]>>();
  for (const r of rows) {
    let samples = out.get(r.qid);
    if (!samples) out.set(r.qid, (samples = new Map()));
    let sample = samples.get(r.iter);
    if (!sample) samples.set(r.iter, (sample = []));
    sample.push(r);
  }
  for (const [qid, samples] of out) {
    for (const [sampleId, sample] of samples) {
      sample.sort((a, b) => a.rank - b.rank || a.line - b.line);
      sample.forEach((r, i) => {
        const where = { file, line: r.line, field: 'rank' };
        if (i > 0 && r.rank === (sample[i - 1] as RunRow).rank) {
          throw new DataError(`rank ${r.rank} repeated in sample '${sampleId}' of query '${qid}' (also on line ${(sample[i - 1] as RunRow).line})`, where);
        }
        if (r.rank !== i + 1) {
          throw new DataError(
            i === 0
              ? `sample '${sampleId}' of query '${qid}' starts at rank ${r.rank}; ranks must start at 1`
              : `rank gap in sample '${sampleId}' of query '${qid}': rank ${i + 1} is missing before rank ${r.rank}`,
            where,
          );
        }
      });
    }
  }
  return out;
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
function readAttributionLabels(file: string): Map<string, AttributionLabel> {
  const out = new Map<string, AttributionLabel>();
  for (const { line, text } of readLinesSync(file)) {
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
  qid: string,
  samples: Map<string, RunRow[]>,
  k: number,
  labels: Map<string, AttributionLabel>,
  attrFile: string,
  runFile: string,
): AttributedSample[] {
  return [...samples].map(([sampleId, rows]) => {
    const top = rows.slice(0, k);
    const entails = top.map((r) => {
      const label = labels.get(labelKey(qid, sampleId, r.docno));
      if (!label) {
        throw new DataError(`no attribution label in ${attrFile} for '${r.docno}' of sample '${sampleId}' of query '${qid}'`, { file: runFile, line: r.line });
      }
      label.used = true;
      return label.entails;
    });
    return { ranking: top.map((r) => r.docno), entails };
  });
}
