/**
 * The deterministic retrieval scores s ∈ ℝⁿ of every candidate of every query, per retriever of the
 * spec (Fair RAG Sec. 3.2: the stochastic retriever samples from the scores of the *whole*
 * candidate set, so every candidate gets a score, not just a top k).
 *
 *   bm25   in-memory Okapi BM25 over the candidate set (its own statistics), core/retrieval/bm25.ts;
 *          a document is `title text` (retrieval/dense/embedDocuments.ts `documentText`)
 *   dense  cosine or dot product of embeddings (query and candidates embedded in one call per
 *          query through the call cache, so a resumed run embeds nothing again); every text is
 *          first fitted to the embedding model's context (retrieval/dense/fitTexts.ts): a candidate
 *          that does not fit is refused (the default, naming it, its tokens and the context) or cut
 *          (params.overlong 'cut', recorded in `embeddingFit`); a query that does not fit is refused
 *   rrf    reciprocal rank fusion of other retrievers' rankings of the candidates (core/retrieval/rrf.ts)
 *   run    a stored retrieval run's scores; candidates it did not retrieve tie with its lowest score
 *          (all equal, i.e. uniform sampling, when the run has nothing for the query)
 */
import { settleAll } from '../concurrency';
import type { FairRagSpec } from '../../api/contract/fairRag';
import { DataError } from '../../core/errors';
import { bm25Scores } from '../../core/retrieval/bm25';
import { similarity } from '../../core/retrieval/exactKnn';
import { topK } from '../../core/retrieval/ranking';
import { reciprocalRankFusion } from '../../core/retrieval/rrf';
import { FAIR_RAG_TOKENIZER } from '../../core/retrieval/tokenizer';
import { documentText } from '../../retrieval/dense/embedDocuments';
import { fitTexts, fitWarnings, OVERLONG_DEFAULT, type FitRecord, type Overlong, type TextTokenizer } from '../../retrieval/dense/fitTexts';
import type { ExperimentDeps } from '../registry';
import type { QueryData } from './data';

/** retriever name → query id → scores aligned with the query's candidates. */
export type RetrieverScores = Map<string, Map<string, number[]>>;

export interface ScoringResult {
  scores: RetrieverScores;
  embeddingCalls: number;
  /** Per dense retriever (by name): how its candidate texts were fitted to the embedding context (absent: no dense retriever). */
  embeddingFit?: Record<string, FitRecord>;
  /** The fit in words (documents cut), for the run's stats and warnings. */
  warnings: string[];
}

export async function scoreRetrievers(
  spec: Pick<FairRagSpec, 'retrievers'>,
  queries: readonly QueryData[],
  deps: Pick<ExperimentDeps, 'resolveGenerator' | 'engineFor' | 'retrievalRuns'> | undefined,
  signal?: AbortSignal,
): Promise<ScoringResult> {
  const scores: RetrieverScores = new Map();
  let embeddingCalls = 0;
  const embeddingFit: Record<string, FitRecord> = {};
  const warnings: string[] = [];
  const ordered = spec.retrievers.map((r, i) => ({ r, i })).sort((a, b) => Number(a.r.method === 'rrf') - Number(b.r.method === 'rrf'));
  for (const { r, i } of ordered) {
    const byQuery = new Map<string, number[]>();
    if (r.method === 'bm25') {
      const tokenizer = r.params.tokenizer === 'whitespace' ? FAIR_RAG_TOKENIZER : { mode: 'words' as const };
      const params = { k1: r.params.k1, b: r.params.b, idf: r.params.idf, epsilon: r.params.epsilon };
      for (const q of queries) {
        byQuery.set(
          q.queryId,
          bm25Scores(
            q.retrievalText,
            q.candidates.map((c) => documentText(c.title, c.text)),
            { params, tokenizer },
          ),
        );
      }
    } else if (r.method === 'dense') {
      if (!deps) throw new DataError('dense retrieval needs an embedding engine', { field: `retrievers[${i}]` });
      const engine = deps.engineFor(deps.resolveGenerator({ model: r.params.model }, `retrievers[${i}].params.model`));
      const fitted = await fitDenseTexts(engine, queries, r.params.overlong ?? OVERLONG_DEFAULT, r.name, i, signal);
      embeddingFit[r.name] = fitted.record;
      warnings.push(...fitWarnings(fitted.record).map((w) => `dense retriever '${r.name}': ${w}`));
      // Every query's embedding call goes to the engine's queue at once (under a defer policy, all of
      // them are collected in one pass).
      await settleAll(
        queries.map(async (q) => {
          signal?.throwIfAborted();
          const texts = [q.retrievalText, ...q.candidates.map((c) => fitted.documents.get(c.docId)!)];
          const { vectors } = await engine.embed({ texts }, signal);
          embeddingCalls++;
          if (vectors.length !== texts.length) throw new Error(`the embedding model returned ${vectors.length} vectors for ${texts.length} texts`);
          const [qv, ...dv] = vectors as [number[], ...number[][]];
          byQuery.set(
            q.queryId,
            dv.map((v) => similarity(qv, v, r.params.metric)),
          );
        }),
      );
    } else if (r.method === 'rrf') {
      for (const q of queries) {
        const lists = r.params.fuse.map((name) => rankingOf(q, scores.get(name)!.get(q.queryId)!));
        const fused = new Map(reciprocalRankFusion(lists, { k: r.params.k, rankBase: r.params.rankBase }).map((h) => [h.id, h.score]));
        byQuery.set(
          q.queryId,
          q.candidates.map((c) => fused.get(c.docId) ?? 0),
        );
      }
    } else {
      if (!deps) throw new DataError('a stored run needs the workspace', { field: `retrievers[${i}]` });
      if (!deps.retrievalRuns.run(r.params.runId)) throw new DataError(`no retrieval run with id ${r.params.runId}`, { field: `retrievers[${i}].params.runId` });
      for (const q of queries) byQuery.set(q.queryId, runScores(q, deps.retrievalRuns.results(r.params.runId, { queryId: q.queryId })));
    }
    scores.set(r.name, byQuery);
  }
  return { scores, embeddingCalls, warnings, ...(Object.keys(embeddingFit).length > 0 ? { embeddingFit } : {}) };
}

/**
 * The texts a dense retriever embeds, each fitted to the embedding model's context before anything
 * is embedded: the queries are refused if one does not fit (a query is the user's text, never cut);
 * the candidates (each distinct document once) are refused or cut as the spec says. A refusal names
 * the retriever, the text, its tokens, the context and the spec field that cuts.
 */
async function fitDenseTexts(
  engine: TextTokenizer,
  queries: readonly QueryData[],
  overlong: Overlong,
  name: string,
  index: number,
  signal?: AbortSignal,
): Promise<{ documents: Map<string, string>; record: FitRecord }> {
  const field = `retrievers[${index}].params.overlong`;
  const docs = new Map<string, string>();
  for (const q of queries) for (const c of q.candidates) if (!docs.has(c.docId)) docs.set(c.docId, documentText(c.title, c.text));
  const named = (e: unknown, f: string): never => {
    if (e instanceof DataError) throw new DataError(`dense retriever '${name}': ${e.reason}`, { field: f });
    throw e;
  };
  await fitTexts(
    engine,
    queries.map((q) => ({ docId: q.queryId, text: q.retrievalText })),
    'refuse',
    signal,
    'query',
  ).catch((e: unknown) => named(e, `retrievers[${index}].params.model`));
  const ids = [...docs.keys()];
  const fit = await fitTexts(
    engine,
    ids.map((docId) => ({ docId, text: docs.get(docId)! })),
    overlong,
    signal,
    'document',
    `${field}: 'cut'`,
  ).catch((e: unknown) => named(e, field));
  ids.forEach((id, j) => docs.set(id, fit.texts[j]!));
  return { documents: docs, record: fit.record };
}

/** Candidate ids best first (score descending, ties by id): the retriever's ranking. */
export function rankingOf(q: Pick<QueryData, 'candidates'>, scores: readonly number[]): string[] {
  return topK(q.candidates.map((c, i) => ({ id: c.docId, score: scores[i]! }))).map((h) => h.id);
}

function runScores(q: QueryData, results: readonly { docId: string; score: number }[]): number[] {
  const byDoc = new Map(results.map((r) => [r.docId, r.score]));
  let min = Infinity;
  for (const c of q.candidates) {
    const s = byDoc.get(c.docId);
    if (s !== undefined && s < min) min = s;
  }
  return q.candidates.map((c) => byDoc.get(c.docId) ?? (min === Infinity ? 0 : min));
}

