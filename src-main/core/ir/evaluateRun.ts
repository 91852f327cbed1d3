/**
 * Evaluate a run against qrels the way `trec_eval -c` does (conventions.md §4):
 * - each query's documents are ranked by score descending, ties by docno descending; the rank
 *   column is ignored (see rankOrder.ts);
 * - queries are the qrels' queries, in trec_eval's order (qid byte-wise ascending), including
 *   queries whose qrels have no relevant document (they score 0 on AP, nDCG, RR, P, R);
 * - a qrels query that the run does not contain is evaluated as an empty ranking, i.e. it counts
 *   as 0 in the mean (trec_eval `-c`; the default). With `complete: false` it is skipped, which is
 *   trec_eval's default and inflates scores when a system returns nothing for a query;
 * - run queries without qrels are ignored;
 * - `all` is the mean over the evaluated queries, or the sum for count measures (NumRet, NumRel,
 *   NumQ), as trec_eval prints them. With no evaluated query the mean is NaN.
 */
import { DataError } from '../errors';
import { DocLabelTable } from './docBytes';
import { formatMeasure, measureAggregate, parseMeasure, type MeasureSpec } from './measureSpec';
import { queryMeasure, type Label } from './queryMeasures';
import { compareBytewise, compareRankOrder } from './rankOrder';

export interface RunEntry {
  qid: string;
  docno: string;
  score: number;
  /** Source line, for error messages. */
  line?: number;
}

export interface QrelEntry {
  qid: string;
  docno: string;
  rel: number;
  line?: number;
}

export interface EvaluateOptions {
  /** Count qrels queries missing from the run as 0 (trec_eval -c). Default true. */
  complete?: boolean;
  /** Evaluate only the first `depth` documents of each query after sorting (trec_eval -M). */
  depth?: number;
  /** Names of the run and qrels (e.g. file paths) for error messages. */
  runSource?: string;
  qrelsSource?: string;
}

export interface Evaluation {
  /** Canonical measure names, in the order requested (duplicates removed). */
  measures: string[];
  /** measure → qid → value, qids in evaluation order. */
  perQuery: Map<string, Map<string, number>>;
  /** measure → mean (or sum for count measures) over the evaluated queries. */
  all: Map<string, number>;
  /** Queries evaluated, in order. */
  queries: string[];
  /** Qrels queries absent from the run (scored 0 when complete, skipped otherwise). */
  missingFromRun: string[];
  /** Run queries with no qrels (ignored). */
  notInQrels: string[];
}

/** One query's retrieved documents in columns (any order; finite scores, distinct docnos). */
export interface QueryRanking {
  docnos: readonly string[];
  scores: ArrayLike<number>;
}

export function evaluateRun(
  run: readonly RunEntry[],
  qrels: readonly QrelEntry[],
  measures: readonly (string | MeasureSpec)[],
  opts: EvaluateOptions = {},
): Evaluation {
  return evaluateRankings(groupRun(run, opts.runSource ?? 'run'), qrels, measures, opts);
}

/**
 * `evaluateRun` for a run already grouped by query (qid → its documents and scores), e.g. read in
 * columns without an object per line. The caller has checked that scores are finite and that no
 * docno repeats within a query.
 */
export function evaluateRankings(
  results: ReadonlyMap<string, QueryRanking>,
  qrels: readonly QrelEntry[],
  measures: readonly (string | MeasureSpec)[],
  opts: EvaluateOptions = {},
): Evaluation {
  const evaluator = new RankingEvaluator(qrels, measures, opts);
  for (const [qid, docs] of results) evaluator.add(qid, docs);
  return evaluator.finish();
}

/**
 * `evaluateRankings` one query at a time: `add` each run query's ranking as it is read (it is not
 * kept: only its measure values are), then `finish`. The result is the same as evaluateRankings
 * of all the queries, so a run can be evaluated in memory bounded by its largest query.
 */
export class RankingEvaluator {
  private readonly specs = new Map<string, MeasureSpec>();
  private readonly judgements: Map<string, Judged>;
  private readonly complete: boolean;
  private readonly depth: number;
  /** Run qid → its measure values in `specs` order (qrels queries) or undefined (no qrels). */
  private readonly values = new Map<string, Float64Array | undefined>();

  /**
   * `qrels` as rows, or as tables already grouped by query (qid → its docnos' labels, e.g. read
   * from a qrels file's bytes without a string per docno; qids in the qrels' order).
   */
  constructor(qrels: readonly QrelEntry[] | ReadonlyMap<string, DocLabelTable>, measures: readonly (string | MeasureSpec)[], opts: EvaluateOptions = {}) {
    this.complete = opts.complete ?? true;
    this.depth = opts.depth ?? Infinity;
    if (!(this.depth >= 1)) throw new DataError(`depth must be at least 1, got ${opts.depth}`, { field: 'depth' });
    for (const m of measures) {
      const spec = typeof m === 'string' ? parseMeasure(m) : m;
      const name = formatMeasure(spec);
      if (!this.specs.has(name)) this.specs.set(name, spec);
    }
    if (Array.isArray(qrels)) {
      this.judgements = new Map();
      for (const [qid, byDoc] of groupQrels(qrels as readonly QrelEntry[], opts.qrelsSource ?? 'qrels')) this.judgements.set(qid, { labels: [...byDoc.values()], byDoc, table: undefined });
    } else {
      this.judgements = new Map();
      for (const [qid, table] of qrels as ReadonlyMap<string, DocLabelTable>) {
        if (table.repeated >= 0) throw new Error(`RankingEvaluator: query '${qid}' judges a document twice`);
        this.judgements.set(qid, { labels: table.labelList(), byDoc: undefined, table });
      }
    }
  }

  /** Run queries added so far. */
  get runQueries(): number {
    return this.values.size;
  }

  /** One run query's documents (any order; finite scores, distinct docnos); each qid once. */
  add(qid: string, docs: QueryRanking): void {
    if (this.values.has(qid)) throw new Error(`RankingEvaluator: query '${qid}' added twice`);
    const judged = this.judgements.get(qid);
    this.values.set(qid, judged ? this.measure(rankedLabels(docs, judged.byDoc ?? judged.table!, this.depth), judged.labels) : undefined);
  }

  /** The qrels of `qid` (docno → label), or undefined when the qrels do not judge it. */
  judgementsOf(qid: string): ReadonlyMap<string, number> | undefined {
    const judged = this.judgements.get(qid);
    if (!judged) return undefined;
    return (judged.byDoc ??= judged.table!.toMap());
  }

  /** The qrels of `qid` as a table keyed by the docnos' bytes (for `rankedLabelsOfBytes`), or undefined. */
  tableOf(qid: string): DocLabelTable | undefined {
    const judged = this.judgements.get(qid);
    if (!judged) return undefined;
    return judged.table ?? new DocLabelTable(judged.byDoc!);
  }

  /**
   * `add` for a query whose labels the caller has already put in trec_eval's order and cut at the
   * depth (e.g. `rankedLabelsOfBytes` with the table of `judgementsOf(qid)`); each qid once.
   */
  addRanked(qid: string, ranked: Label[]): void {
    if (this.values.has(qid)) throw new Error(`RankingEvaluator: query '${qid}' added twice`);
    const judged = this.judgements.get(qid);
    this.values.set(qid, judged ? this.measure(ranked, judged.labels) : undefined);
  }

  /** The depth given (Infinity: none). */
  get cutDepth(): number {
    return this.depth;
  }

  finish(): Evaluation {
    const qids = [...this.judgements.keys()].sort(compareBytewise);
    const perQuery = new Map<string, Map<string, number>>();
    const sums = new Float64Array(this.specs.size);
    for (const name of this.specs.keys()) perQuery.set(name, new Map());
    const maps = [...perQuery.values()];

    const evaluated: string[] = [];
    const missingFromRun: string[] = [];
    for (const qid of qids) {
      let values = this.values.get(qid);
      if (!values) {
        missingFromRun.push(qid);
        if (!this.complete) continue;
        values = this.measure([], this.judgements.get(qid)!.labels);
      }
      for (let m = 0; m < maps.length; m++) {
        maps[m]!.set(qid, values[m]!);
        sums[m] = sums[m]! + values[m]!;
      }
      evaluated.push(qid);
    }

    const all = new Map<string, number>();
    let m = 0;
    for (const [name, spec] of this.specs) {
      const sum = sums[m++]!;
      all.set(name, measureAggregate(spec) === 'sum' ? sum : evaluated.length ? sum / evaluated.length : NaN);
    }

    const notInQrels = [...this.values.keys()].filter((q) => !this.judgements.has(q)).sort(compareBytewise);
    return { measures: [...this.specs.keys()], perQuery, all, queries: evaluated, missingFromRun, notInQrels };
  }

  private measure(ranked: Label[], judged: readonly number[]): Float64Array {
    const input = { ranked, judged };
    const out = new Float64Array(this.specs.size);
    let m = 0;
    for (const spec of this.specs.values()) out[m++] = queryMeasure(spec, input);
    return out;
  }
}

/** One qrels query: its labels (in the qrels' order) and its docno → label look-up. */
interface Judged {
  labels: readonly number[];
  byDoc: Map<string, number> | undefined;
  table: DocLabelTable | undefined;
}

function groupQrels(qrels: readonly QrelEntry[], file: string): Map<string, Map<string, number>> {
  const byQuery = new Map<string, Map<string, number>>();
  for (const q of qrels) {
    if (!Number.isInteger(q.rel)) throw new DataError(`relevance must be an integer, got ${q.rel}`, { file, line: q.line, field: 'rel' });
    let docs = byQuery.get(q.qid);
    if (!docs) byQuery.set(q.qid, (docs = new Map()));
    // trec_eval refuses a qrels file that judges a document twice for one query.
    if (docs.has(q.docno)) throw new DataError(`duplicate judgement of '${q.docno}' for query '${q.qid}'`, { file, line: q.line, field: 'docno' });
    docs.set(q.docno, q.rel);
  }
  return byQuery;
}

/** Labels of a query's documents in trec_eval order (score descending, docno descending), cut at depth. */
function rankedLabels(docs: QueryRanking | undefined, judged: ReadonlyMap<string, number> | DocLabelTable, depth: number): Label[] {
  if (!docs) return [];
  const labelsByDoc = judged instanceof DocLabelTable ? { get: (docno: string) => judged.getString(docno) } : judged;
  const { docnos, scores } = docs;
  const n = Math.min(docnos.length, depth);
  const out: Label[] = new Array(n);
  // Runs are written in rank order almost always: when the rows already are in trec_eval's order
  // (one linear check), they are read in place instead of sorted (issue 25 item 4).
  let sorted = true;
  for (let i = 1; i < docnos.length; i++) {
    if (compareRankOrder(scores[i - 1]!, docnos[i - 1]!, scores[i]!, docnos[i]!) > 0) {
      sorted = false;
      break;
    }
  }
  if (sorted) {
    for (let i = 0; i < n; i++) out[i] = labelsByDoc.get(docnos[i]!);
    return out;
  }
  const order = Array.from({ length: docnos.length }, (_, i) => i);
  order.sort((a, b) => compareRankOrder(scores[a]!, docnos[a]!, scores[b]!, docnos[b]!));
  for (let i = 0; i < n; i++) out[i] = labelsByDoc.get(docnos[order[i]!]!);
  return out;
}

function groupRun(run: readonly RunEntry[], file: string): Map<string, { docnos: string[]; scores: number[] }> {
  const byQuery = new Map<string, { docnos: string[]; scores: number[] }>();
  const seen = new Map<string, Set<string>>();
  for (const r of run) {
    if (!Number.isFinite(r.score)) throw new DataError(`score must be a finite number, got ${r.score}`, { file, line: r.line, field: 'score' });
    let docs = byQuery.get(r.qid);
    let names = seen.get(r.qid);
    if (!docs || !names) {
      byQuery.set(r.qid, (docs = { docnos: [], scores: [] }));
      seen.set(r.qid, (names = new Set()));
    }
    // trec_eval stops with "duplicate docs" here. A stochastic run (one ranking per sample in
    // column 2) repeats docnos across samples and has to be evaluated one sample at a time.
    if (names.has(r.docno)) {
      throw new DataError(`document '${r.docno}' appears twice for query '${r.qid}' (a run with several samples per query must be evaluated per sample)`, {
        file,
        line: r.line,
        field: 'docno',
      });
    }
    names.add(r.docno);
    docs.docnos.push(r.docno);
    docs.scores.push(r.score);
  }
  return byQuery;
}
