/**
 * Okapi BM25 over an in-memory set of documents — the per-query candidate sets of LaMP profiles,
 * where the statistics (N, document frequencies, average length) are those of the candidate set,
 * exactly as Fair-RAG scores each query's profile with its own `BM25Okapi(profile)`.
 *
 * score(D, Q) = Σ_{t ∈ Q} idf(t) · tf(t,D)·(k1 + 1) / (tf(t,D) + k1·(1 − b + b·|D|/avgdl))
 *
 * (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond", 2009, Eq. 3.15
 * with k3 → ∞.) Details that change numbers, all as in rank_bm25 0.2.2 `BM25Okapi`:
 * - the sum runs over query tokens *with repetition*: a term twice in the query counts twice;
 * - |D| and avgdl are token counts (avgdl = all tokens / N);
 * - a query term that occurs in no document contributes 0 (tf = 0 everywhere);
 * - a document without the term contributes 0 even when k1 = 0 (where the formula reads 0/0;
 *   rank_bm25's numpy would give NaN; 0 is the limit k1 → 0⁺).
 *
 * IDF variants (n = documents containing t, N = documents):
 * - `robertson`: log((N − n + 0.5)/(n + 0.5)), the Robertson–Spärck Jones weight; negative when
 *   n > N/2, so a very common term *lowers* a document's score.
 * - `lucene`: log(1 + (N − n + 0.5)/(n + 0.5)), always > 0 (Lucene's BM25Similarity; note Lucene ≥ 8
 *   also drops the constant (k1 + 1) factor, which scales every score of a query alike — kept here).
 * - `rank_bm25`: the Robertson weight, then every term of the *vocabulary* whose weight is
 *   negative (strictly) gets ε·mean, where mean = the average Robertson weight over all distinct
 *   terms of the documents (negative ones included, before flooring) and ε = `epsilon` (0.25).
 *   This is `BM25Okapi._calc_idf` of rank_bm25, used by Fair-RAG (reference/fair-rag.md §7:
 *   "BM25Okapi (k1 1.5, b 0.75, idf floor 0.25·mean idf)"). If the mean is negative the "floor"
 *   is negative too, exactly as in rank_bm25. Terms with weight exactly 0 are left at 0.
 */
import { tokenize, type TokenizerOptions } from './tokenizer';

export type IdfVariant = 'robertson' | 'lucene' | 'rank_bm25';

export const IDF_VARIANTS: readonly IdfVariant[] = ['robertson', 'lucene', 'rank_bm25'];

export interface Bm25Params {
  /** Term-frequency saturation, ≥ 0 (0: a term counts once, however often it occurs). */
  k1: number;
  /** Length normalisation, 0 (none) ..1 (full). */
  b: number;
  idf: IdfVariant;
  /** `rank_bm25` only: negative idfs become epsilon × mean idf. */
  epsilon: number;
}

/** rank_bm25 `BM25Okapi` defaults, which the Fair-RAG code used unchanged. */
export const DEFAULT_BM25_PARAMS: Readonly<Bm25Params> = Object.freeze({ k1: 1.5, b: 0.75, idf: 'rank_bm25', epsilon: 0.25 });

/** Term statistics of a tokenized document set. */
export interface Bm25Corpus {
  /** N: number of documents. */
  readonly size: number;
  readonly docLengths: readonly number[];
  /** Average document length in tokens (0 when every document is empty). */
  readonly avgdl: number;
  /** Per document: term → frequency. */
  readonly termFreqs: readonly ReadonlyMap<string, number>[];
  /** Term → number of documents containing it (the vocabulary, in first-seen order). */
  readonly docFreq: ReadonlyMap<string, number>;
}

export function buildBm25Corpus(docs: readonly (readonly string[])[]): Bm25Corpus {
  const termFreqs: Map<string, number>[] = [];
  const docFreq = new Map<string, number>();
  const docLengths: number[] = [];
  let total = 0;
  for (const tokens of docs) {
    const tf = new Map<string, number>();
    for (const t of tokens) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of tf.keys()) docFreq.set(t, (docFreq.get(t) ?? 0) + 1);
    termFreqs.push(tf);
    docLengths.push(tokens.length);
    total += tokens.length;
  }
  return { size: docs.length, docLengths, avgdl: docs.length > 0 ? total / docs.length : 0, termFreqs, docFreq };
}

/** IDF of a term in `n` of `N` documents (before rank_bm25's floor, which needs the whole vocabulary). */
export function idfWeight(n: number, N: number, variant: IdfVariant): number {
  switch (variant) {
    case 'robertson':
    case 'rank_bm25':
      // rank_bm25 writes log(N − n + 0.5) − log(n + 0.5); the same value, and the same rounding.
      return Math.log(N - n + 0.5) - Math.log(n + 0.5);
    case 'lucene':
      return Math.log(1 + (N - n + 0.5) / (n + 0.5));
    default:
      throw new RangeError(`unknown idf variant '${String(variant)}'`);
  }
}

/** IDF of every vocabulary term under `params` (rank_bm25's floor applied). */
export function idfTable(corpus: Bm25Corpus, params: Pick<Bm25Params, 'idf' | 'epsilon'>): Map<string, number> {
  const table = new Map<string, number>();
  let sum = 0;
  const negative: string[] = [];
  for (const [term, n] of corpus.docFreq) {
    const w = idfWeight(n, corpus.size, params.idf);
    table.set(term, w);
    sum += w;
    if (w < 0) negative.push(term);
  }
  if (params.idf === 'rank_bm25' && table.size > 0) {
    const floor = params.epsilon * (sum / table.size);
    for (const term of negative) table.set(term, floor);
  }
  return table;
}

export function checkBm25Params(params: Bm25Params): void {
  if (!Number.isFinite(params.k1) || params.k1 < 0) throw new RangeError(`BM25 k1 must be a finite number ≥ 0, got ${params.k1}`);
  if (!Number.isFinite(params.b) || params.b < 0 || params.b > 1) throw new RangeError(`BM25 b must be in [0, 1], got ${params.b}`);
  if (!IDF_VARIANTS.includes(params.idf)) throw new RangeError(`BM25 idf must be one of ${IDF_VARIANTS.join(', ')}, got '${String(params.idf)}'`);
  if (!Number.isFinite(params.epsilon)) throw new RangeError(`BM25 epsilon must be finite, got ${params.epsilon}`);
}

/** Scores of every document of `corpus` for the (tokenized) query, in document order. */
export function scoreBm25(corpus: Bm25Corpus, idf: ReadonlyMap<string, number>, queryTokens: readonly string[], params: Bm25Params): number[] {
  const { k1, b } = params;
  const scores = new Array<number>(corpus.size).fill(0);
  // Length normalisation per document; with avgdl = 0 every tf is 0 and the value is never used.
  const norm = corpus.docLengths.map((len) => k1 * (1 - b + (corpus.avgdl > 0 ? (b * len) / corpus.avgdl : 0)));
  for (const term of queryTokens) {
    const w = idf.get(term);
    if (w === undefined) continue; // in no document
    for (let d = 0; d < corpus.size; d++) {
      const tf = corpus.termFreqs[d]!.get(term);
      if (tf === undefined) continue;
      // Same association as rank_bm25: idf · (tf·(k1 + 1) / (tf + k1·(1 − b + b·|D|/avgdl))).
      scores[d]! += w * ((tf * (k1 + 1)) / (tf + norm[d]!));
    }
  }
  return scores;
}

export interface Bm25Options {
  params?: Partial<Bm25Params>;
  tokenizer?: TokenizerOptions;
}

/**
 * BM25 scores of `docs` (the candidate set, which is also the statistics corpus) for `query`,
 * aligned with `docs`. An empty query, or one whose terms occur nowhere, scores every document 0.
 */
export function bm25Scores(query: string, docs: readonly string[], options: Bm25Options = {}): number[] {
  const params: Bm25Params = { ...DEFAULT_BM25_PARAMS, ...options.params };
  checkBm25Params(params);
  const corpus = buildBm25Corpus(docs.map((d) => tokenize(d, options.tokenizer)));
  return scoreBm25(corpus, idfTable(corpus, params), tokenize(query, options.tokenizer), params);
}
