/**
 * IR measures named in ir_measures syntax (`nDCG@10`, `AP`, `P(rel=2)@10`, `Judged@10`, …), the
 * names Fairground shows in the UI and writes into exports (conventions.md §4, M2).
 *
 * Grammar (a subset of ir_measures): `Name[(param=value)]@cutoff`, e.g. `nDCG(dcg='exp-log2')@10`.
 * Names are matched case-insensitively, with ir_measures' aliases (MAP = AP, MRR = RR,
 * NDCG = nDCG, Precision = P, Recall = R). `formatMeasure` gives the canonical spelling, which is
 * what ir_measures' own `repr()` prints (defaults omitted, string values in single quotes).
 */
import { DataError } from '../errors';

export type MeasureName = 'nDCG' | 'AP' | 'RR' | 'P' | 'R' | 'Judged' | 'NumRet' | 'NumRel' | 'NumQ';

/** nDCG gain: `log2` = linear gain rel (trec_eval ndcg_cut), `exp-log2` = 2^rel − 1 (Burges et al.). */
export type DcgVariant = 'log2' | 'exp-log2';

export interface MeasureSpec {
  name: MeasureName;
  /** Rank cutoff k (`@k`); undefined = the whole ranking. */
  cutoff?: number;
  /**
   * Minimum relevance label counted as relevant (ir_measures `rel`, trec_eval `-l`); undefined =
   * the default 1. Kept undefined for `rel=1` except on NumRet, where giving `rel` changes the
   * measure (NumRet = documents retrieved, NumRet(rel=1) = relevant documents retrieved).
   */
  rel?: number;
  /** nDCG only. */
  dcg: DcgVariant;
}

interface MeasureInfo {
  cutoff: 'required' | 'optional' | 'none';
  params: readonly ('rel' | 'dcg')[];
  /** Per-query values are counts summed over queries (trec_eval and ir_measures `SumAgg`), not averaged. */
  aggregate: 'mean' | 'sum';
  summary: string;
}

const MEASURES: Record<MeasureName, MeasureInfo> = {
  nDCG: { cutoff: 'optional', params: ['dcg'], aggregate: 'mean', summary: 'normalised discounted cumulative gain' },
  AP: { cutoff: 'optional', params: ['rel'], aggregate: 'mean', summary: 'average precision' },
  RR: { cutoff: 'optional', params: ['rel'], aggregate: 'mean', summary: 'reciprocal rank of the first relevant document' },
  P: { cutoff: 'required', params: ['rel'], aggregate: 'mean', summary: 'precision at k' },
  R: { cutoff: 'required', params: ['rel'], aggregate: 'mean', summary: 'recall at k' },
  Judged: { cutoff: 'optional', params: [], aggregate: 'mean', summary: 'share of the top k that has a judgement' },
  NumRet: { cutoff: 'none', params: ['rel'], aggregate: 'sum', summary: 'documents retrieved (with rel=N: relevant ones retrieved)' },
  NumRel: { cutoff: 'none', params: ['rel'], aggregate: 'sum', summary: 'relevant documents in the qrels' },
  NumQ: { cutoff: 'none', params: [], aggregate: 'sum', summary: 'queries evaluated' },
};

const ALIASES: Record<string, MeasureName> = {
  ndcg: 'nDCG',
  ap: 'AP',
  map: 'AP',
  rr: 'RR',
  mrr: 'RR',
  p: 'P',
  precision: 'P',
  r: 'R',
  recall: 'R',
  judged: 'Judged',
  numret: 'NumRet',
  numrel: 'NumRel',
  numq: 'NumQ',
};

/** trec_eval spellings people type out of habit, pointed at the ir_measures spelling in the error. */
const TREC_EVAL_HINTS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^ndcg_cut[._](\d+)$/, (m) => `nDCG@${m[1]}`],
  [/^map_cut[._](\d+)$/, (m) => `AP@${m[1]}`],
  [/^P[._](\d+)$/, (m) => `P@${m[1]}`],
  [/^recall[._](\d+)$/, (m) => `R@${m[1]}`],
  [/^recip_rank$/, () => 'RR'],
  [/^num_ret$/, () => 'NumRet'],
  [/^num_rel$/, () => 'NumRel'],
  [/^num_rel_ret$/, () => 'NumRet(rel=1)'],
  [/^num_q$/, () => 'NumQ'],
];

/** The relevance threshold in effect (trec_eval `-l`). */
export function relevanceLevel(spec: MeasureSpec): number {
  return spec.rel ?? 1;
}

export function measureAggregate(spec: MeasureSpec): 'mean' | 'sum' {
  return MEASURES[spec.name].aggregate;
}

/** Measures whose values are whole numbers (printed without decimals, as trec_eval does). */
export function isCountMeasure(spec: MeasureSpec): boolean {
  return MEASURES[spec.name].aggregate === 'sum';
}

/** One line per supported measure, for --help and error messages. */
export function supportedMeasuresHelp(): string[] {
  const example: Record<MeasureName, string> = {
    nDCG: "nDCG@10, nDCG, nDCG(dcg='exp-log2')@10",
    AP: 'AP, AP@100, AP(rel=2)',
    RR: 'RR, RR@10, RR(rel=2)@10',
    P: 'P@5, P(rel=2)@10',
    R: 'R@1000, R(rel=2)@100',
    Judged: 'Judged@10, Judged',
    NumRet: 'NumRet, NumRet(rel=1)',
    NumRel: 'NumRel, NumRel(rel=2)',
    NumQ: 'NumQ',
  };
  return (Object.keys(MEASURES) as MeasureName[]).map((n) => `${example[n].padEnd(38)} ${MEASURES[n].summary}`);
}

/** Parse one ir_measures string. Errors are `DataError`s with field `measure`. */
export function parseMeasure(text: string): MeasureSpec {
  const src = text.trim();
  const fail = (reason: string): never => {
    throw new DataError(`'${text}': ${reason}`, { field: 'measure' });
  };
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:\(([^()]*)\))?(?:@(.*))?$/.exec(src);
  if (!m) {
    const hint = trecEvalHint(src);
    return fail(hint ? `trec_eval name; write ${hint}` : `not a measure (expected e.g. nDCG@10, AP, P(rel=2)@10)`);
  }
  const [, rawName, rawParams, rawCutoff] = m;
  const name = ALIASES[rawName!.toLowerCase()];
  if (!name) {
    const hint = trecEvalHint(src);
    return fail(hint ? `trec_eval name; write ${hint}` : `unknown measure (supported: ${Object.keys(MEASURES).join(', ')})`);
  }
  const info = MEASURES[name];
  const spec: MeasureSpec = { name, dcg: 'log2' };

  if (rawCutoff !== undefined) {
    if (info.cutoff === 'none') fail(`${name} takes no cutoff`);
    if (!/^\d+$/.test(rawCutoff) || Number(rawCutoff) < 1 || !Number.isSafeInteger(Number(rawCutoff))) {
      fail(`cutoff must be a positive integer, got '${rawCutoff}'`);
    }
    spec.cutoff = Number(rawCutoff);
  } else if (info.cutoff === 'required') {
    fail(`${name} needs a cutoff, e.g. ${name}@10`);
  }

  if (rawParams !== undefined && rawParams.trim() !== '') {
    const seen = new Set<string>();
    for (const part of rawParams.split(',')) {
      const kv = /^\s*([A-Za-z_]+)\s*=\s*(.*?)\s*$/.exec(part);
      if (!kv) return fail(`bad parameter '${part.trim()}' (expected name=value)`);
      const key = kv[1]!;
      const value = kv[2]!.replace(/^(['"])(.*)\1$/, '$2');
      if (seen.has(key)) fail(`parameter '${key}' given twice`);
      seen.add(key);
      if (key === 'rel' && info.params.includes('rel')) {
        if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) fail(`rel must be a non-negative integer, got '${value}'`);
        const level = Number(value);
        if (level !== 1 || name === 'NumRet') spec.rel = level;
      } else if (key === 'dcg' && info.params.includes('dcg')) {
        if (value !== 'log2' && value !== 'exp-log2') fail(`dcg must be 'log2' or 'exp-log2', got '${value}'`);
        spec.dcg = value as DcgVariant;
      } else {
        const allowed = info.params.length ? `supported: ${info.params.join(', ')}` : 'it takes none';
        fail(`${name} does not take parameter '${key}' (${allowed})`);
      }
    }
  }
  return spec;
}

/** Canonical ir_measures spelling, e.g. `P(rel=2)@10`, `nDCG(dcg='exp-log2')@10`, `AP`. */
export function formatMeasure(spec: MeasureSpec): string {
  let out: string = spec.name;
  const params: string[] = [];
  if (spec.name === 'nDCG' && spec.dcg !== 'log2') params.push(`dcg='${spec.dcg}'`);
  if (spec.rel !== undefined && (spec.rel !== 1 || spec.name === 'NumRet')) params.push(`rel=${spec.rel}`);
  if (params.length) out += `(${params.join(',')})`;
  if (spec.cutoff !== undefined) out += `@${spec.cutoff}`;
  return out;
}

function trecEvalHint(text: string): string | undefined {
  for (const [re, make] of TREC_EVAL_HINTS) {
    const m = re.exec(text);
    if (m) return make(m);
  }
  return undefined;
}
