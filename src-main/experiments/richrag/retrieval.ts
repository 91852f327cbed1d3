/**
 * The multi-faceted retriever (RichRAG Sec. 3.3): for each sub-aspect s_i the top N documents of
 * R(q ∘ s_i) (Eq. 3), merged by core/richrag/candidatePool into a pool of capacity M in which every
 * document carries s(d), the sub-aspects that retrieved it (Eq. 4). Also the plain query's top N
 * (the 'retriever' framework).
 *
 * R is BM25 over one of two document sets (spec.retrieval.scope; 'auto' = the query's candidate set
 * when it has one, else the collection):
 *   candidates  in-memory Okapi BM25 (core/retrieval/bm25) over the query's candidate set with its own
 *               statistics; words tokenizer (lower-cased letter/digit runs), Lucene idf (always > 0),
 *               k1/b from the spec; documents scoring 0 (no query term) are not retrieved;
 *   collection  SQLite FTS5 BM25 over a per-run index of the collection alone (retrieval/fts5,
 *               k1 = 1.2, b = 0.75, Porter stemming), so scores do not depend on other collections.
 * Ties: score descending, then document id ascending, in both.
 *
 * Merge order (the pool is cut to M, so it matters; richrag.md §1.2): spec.retrieval.merge,
 * 'round-robin' by default — rank 1 of every aspect's list in aspect order, then rank 2, …; a
 * document keeps its first position and s(d) is the union over every list that contains it.
 * A query whose explorer found no sub-aspect retrieves with the query alone as its one "aspect".
 *
 * φ(d, a_i) (core/richrag/coverage, the spec's φ) is computed here once for every document the run
 * sees for the query, over its RichRAG document string, and stored with the snapshot.
 */
import type { RichRagSetting, RichRagSpec } from '../../api/contract/richrag';
import { buildBm25Corpus, idfTable, scoreBm25, type Bm25Params } from '../../core/retrieval/bm25';
import { topK } from '../../core/retrieval/ranking';
import { tokenize } from '../../core/retrieval/tokenizer';
import { mergeCandidatePool } from '../../core/richrag/candidatePool';
import { phi } from '../../core/richrag/coverage';
import { richRagDocString } from '../../core/richrag/docString';
import { DataError } from '../../core/errors';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import type { DocumentRow } from '../../store/collectionTypes';
import type { CollectionFtsIndex } from '../../retrieval/fts5/collectionIndex';
import type { DocSnapshot, DocumentsPayload, PoolPayload, RetrievedList } from './items';

export interface Hit {
  id: string;
  score: number;
}

/** A BM25 searcher over one query's document set. */
export interface Searcher {
  readonly scope: 'candidates' | 'collection';
  search(text: string, n: number): Hit[];
}

/** Whether a query is searched over its candidate set (else over the collection). */
export function usesCandidates(scope: RichRagSpec['retrieval']['scope'], candidates: readonly string[] | null): boolean {
  return scope === 'candidates' || (scope === 'auto' && candidates !== null && candidates.length > 0);
}

/** In-memory BM25 over a candidate set (see the module comment). */
export function candidateSearcher(docs: readonly DocumentRow[], bm25: RichRagSpec['retrieval']['bm25']): Searcher {
  const params: Bm25Params = { k1: bm25.k1, b: bm25.b, idf: 'lucene', epsilon: 0 };
  const corpus = buildBm25Corpus(docs.map((d) => tokenize(`${d.title} ${d.text}`)));
  const idf = idfTable(corpus, params);
  return {
    scope: 'candidates',
    search(text, n) {
      const scores = scoreBm25(corpus, idf, tokenize(text), params);
      return topK(
        docs.map((d, i) => ({ id: d.docId, score: scores[i]! })).filter((h) => h.score > 0),
        n,
      );
    },
  };
}

/** FTS5 BM25 over the collection's own index. */
export function collectionSearcher(index: CollectionFtsIndex): Searcher {
  return { scope: 'collection', search: (text, n) => index.search(text, n).map((h) => ({ id: h.docId, score: h.score })) };
}

/** q ∘ s (Eq. 3). */
export function aspectQuery(query: string, aspect: string, join: RichRagSpec['retrieval']['join']): string {
  return join === 'colon' ? `${query}: ${aspect}` : `${query} ${aspect}`;
}

function retrieve(searcher: Searcher, aspect: string, text: string, n: number): RetrievedList {
  const hits = searcher.search(text, n);
  return { aspect, query: text, ids: hits.map((h) => h.id), scores: hits.map((h) => h.score) };
}

/** One setting's per-aspect lists and pool. */
export function buildPool(
  spec: Pick<RichRagSpec, 'retrieval'>,
  searcher: Searcher,
  query: string,
  setting: RichRagSetting,
  aspects: readonly string[],
): PoolPayload {
  const fallback = aspects.length === 0;
  const used = fallback ? [query] : [...aspects];
  const lists = used.map((a) => retrieve(searcher, a, fallback ? query : aspectQuery(query, a, spec.retrieval.join), spec.retrieval.topN));
  const pool = mergeCandidatePool(
    lists.map((l) => ({ aspect: l.aspect, results: l.ids.map((id, i) => ({ id, score: l.scores[i]! })) })),
    { capacity: spec.retrieval.capacity, order: spec.retrieval.merge },
  );
  return { setting, aspects: used, fallback, lists, pool: pool.map((e) => ({ id: e.id, aspects: e.aspects })) };
}

export interface DocumentsInput {
  query: string;
  subAnswers: readonly string[];
  /** setting → sub-aspects (predicted: the explorer's; golden: the collection's). */
  aspects: ReadonlyMap<RichRagSetting, readonly string[]>;
}

/** Every setting's pool, the plain list and the snapshot with φ of every document seen. */
export function buildDocuments(
  spec: Pick<RichRagSpec, 'retrieval' | 'settings' | 'coverage'>,
  searcher: Searcher,
  getDocument: (id: string) => DocumentRow | undefined,
  input: DocumentsInput,
): DocumentsPayload {
  const pools = spec.settings.map((s) => buildPool(spec, searcher, input.query, s, input.aspects.get(s) ?? []));
  const plain = retrieve(searcher, input.query, input.query, spec.retrieval.topN);
  const docs: Record<string, DocSnapshot> = {};
  const add = (id: string) => {
    if (docs[id]) return;
    const d = getDocument(id);
    if (!d) throw new DataError(`retrieval returned '${id}', which is not a document of the collection`, { field: 'collection' });
    const section = typeof d.attrs.section === 'string' ? d.attrs.section : undefined;
    const docString = richRagDocString({ title: d.title, text: d.text, ...(section ? { section } : {}) });
    docs[id] = { title: d.title, text: d.text, phi: input.subAnswers.map((a) => phi(docString, a, spec.coverage.phi)) };
  };
  for (const p of pools) for (const e of p.pool) add(e.id);
  for (const l of [plain, ...pools.flatMap((p) => p.lists)]) for (const id of l.ids) add(id);
  return { type: 'documents', scope: searcher.scope, pools, plain, docs };
}

/** The candidate documents of a query (candidates scope), in candidate order, each once. */
export function candidateDocuments(repo: CollectionsRepo, collectionId: number, ids: readonly string[], queryId: string): DocumentRow[] {
  const seen = new Set<string>();
  const out: DocumentRow[] = [];
  for (const id of ids) {
    if (seen.has(id)) continue;
    seen.add(id);
    const d = repo.getDocument(collectionId, id);
    if (!d) throw new DataError(`query '${queryId}' lists candidate '${id}', which is not a document of the collection`, { field: 'collection' });
    out.push(d);
  }
  return out;
}
