/**
 * Retrieval: BM25 search of a collection (FTS5), dense embedding sets, and stored retrieval runs
 * (BM25, dense, reciprocal rank fusion) exported as TREC runs.
 */
import { z } from 'zod';
import { lazyMethods, method } from './define';
import { Job } from './jobs';

const Id = z.number().int().min(1);

/** FTS5 column weights: each multiplies the term frequencies of its field. */
export const FieldWeights = z
  .object({
    title: z.number().min(0).max(1000).default(1),
    text: z.number().min(0).max(1000).default(1),
  })
  .strict();

export const SearchHit = z.object({
  rank: z.number().int(),
  documentId: z.number().int(),
  docId: z.string(),
  title: z.string(),
  /** HTML-escaped title with matched terms in <mark>; safe to render as HTML. */
  titleHtml: z.string(),
  /** HTML-escaped passage of the text with matched terms in <mark>, "…" where cut; safe to render as HTML. */
  snippetHtml: z.string(),
  /** FTS5 bm25 negated: higher is better. */
  score: z.number(),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchResult = z.object({
  /** The query terms searched for, OR-ed (user text never reaches FTS5 as syntax). */
  terms: z.array(z.string()),
  hits: z.array(SearchHit),
});

export const IdfVariant = z.enum(['robertson', 'lucene', 'rank_bm25']);

/** In-memory BM25 for queries with their own candidate set (LaMP profiles). Defaults = rank_bm25 BM25Okapi, as Fair-RAG. */
export const CandidateBm25 = z
  .object({
    k1: z.number().min(0).max(100).default(1.5),
    b: z.number().min(0).max(1).default(0.75),
    idf: IdfVariant.default('rank_bm25'),
    epsilon: z.number().min(-100).max(100).default(0.25),
    /** words: lower-cased letter/digit runs; whitespace: Python str.split(), case kept (Fair-RAG). */
    tokenizer: z.enum(['words', 'whitespace']).default('words'),
    /** english: drop Lucene's 33 English stop words. */
    stopwords: z.enum(['none', 'english']).default('none'),
    /** Porter stemming (NLTK mode) of every token. */
    stem: z.boolean().default(false),
  })
  .strict();

const RunCommon = {
  collectionId: Id,
  /** Unique in the collection; default: the method, numbered if taken. */
  name: z.string().trim().min(1).max(200).optional(),
  /** Results kept per query. */
  k: z.number().int().min(1).max(1000).default(100),
};

export const RunSpec = z.discriminatedUnion('method', [
  z
    .object({
      ...RunCommon,
      method: z.literal('bm25'),
      weights: FieldWeights.prefault({}),
      candidates: CandidateBm25.prefault({}),
    })
    .strict(),
  z
    .object({
      ...RunCommon,
      method: z.literal('dense'),
      /** The embedding model: a model-library name or a GGUF path; its embedding set must be built. */
      model: z.string().min(1),
      metric: z.enum(['cosine', 'dot']).optional(),
      batchSize: z.number().int().min(1).max(512).default(16),
    })
    .strict(),
  z
    .object({
      ...RunCommon,
      method: z.literal('rrf'),
      /** Stored runs of the same collection to fuse, in order (order breaks ties with ties: 'first-seen'). */
      runIds: z.array(Id).min(2).max(16),
      /** RRF constant k (Cormack et al.: 60). */
      rrfK: z.number().min(0).max(10_000).default(60),
      /** 1: the top document adds 1/(k+1) (Cormack et al.); 0: 1/k (RAG-Fusion's code). */
      rankBase: z.union([z.literal(0), z.literal(1)]).default(1),
      /** Read only this many entries of each input ranking. */
      depth: z.number().int().min(1).max(10_000).optional(),
      /**
       * Equal fused scores: 'trec_eval' (docno descending, the one rank order) or 'first-seen'
       * (RAG-Fusion's code); with 'first-seen' the stored scores of tied documents are lowered by
       * the least amount (ulps) that makes trec_eval read the stored order, so the export and the
       * evaluation keep it too (retrieval/runs/fusionRun.ts).
       */
      ties: z.enum(['trec_eval', 'first-seen']).default('trec_eval'),
    })
    .strict(),
]);
export type RunSpec = z.infer<typeof RunSpec>;

export const RunSummary = z.object({
  id: z.number().int(),
  collectionId: z.number().int(),
  name: z.string(),
  method: z.enum(['bm25', 'dense', 'rrf']),
  params: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  queries: z.number().int(),
  results: z.number().int(),
});
export type RunSummary = z.infer<typeof RunSummary>;

export const RunQueryHits = z.object({
  queryId: z.string(),
  text: z.string().nullable(),
  hits: z.array(z.object({ rank: z.number().int(), docId: z.string(), title: z.string().nullable(), score: z.number() })),
});

export const EmbeddingSet = z.object({
  id: z.number().int(),
  collectionId: z.number().int(),
  modelKey: z.string(),
  modelName: z.string(),
  dimensions: z.number().int(),
  metric: z.enum(['cosine', 'dot']),
  status: z.enum(['building', 'partial', 'ready', 'failed']),
  createdAt: z.string(),
  vectors: z.number().int(),
  documents: z.number().int(),
  /**
   * How the texts of its latest build were fitted to the model's context (issue 34 item 8b): the
   * choice for texts longer than the context, the context and the documents cut; null before.
   */
  fit: z
    .object({
      overlong: z.enum(['cut', 'refuse']),
      checked: z.boolean(),
      contextSize: z.number().int().nullable(),
      maxTextTokens: z.number().int().nullable(),
      documentsCut: z.number().int(),
      tokensCut: z.number().int(),
      examples: z.array(z.object({ docId: z.string(), tokens: z.number().int(), kept: z.number().int() })),
    })
    .nullable()
    .optional(),
  /** What a user of the set must know (documents cut to the context), in words. */
  warnings: z.array(z.string()).optional(),
});

export const retrievalContract = lazyMethods(() => ({
  'retrieval.search': method(
    z
      .object({
        collectionId: Id,
        query: z.string().max(20_000),
        k: z.number().int().min(1).max(1000).default(20),
        weights: FieldWeights.prefault({}),
      })
      .strict(),
    SearchResult,
    'BM25 search of one collection (FTS5; statistics over the whole workspace) with highlighted snippets.',
  ),
  'retrieval.runs.list': method(z.object({ collectionId: Id.optional() }).strict(), z.array(RunSummary), 'Stored retrieval runs, newest first.'),
  'retrieval.runs.create': method(RunSpec, Job, 'Start a job that runs BM25, dense retrieval or RRF for every query of a collection and stores the run.'),
  'retrieval.runs.get': method(
    z
      .object({
        runId: Id,
        /** Only this query. */
        queryId: z.string().optional(),
        /** Top hits per query. */
        perQuery: z.number().int().min(1).max(1000).default(10),
      })
      .strict(),
    z.object({ run: RunSummary, queries: z.array(RunQueryHits) }),
    'A stored run with the top hits of each query.',
  ),
  'retrieval.runs.exportTrec': method(
    z
      .object({
        runId: Id,
        /** Run tag (column 6); default: the run name with whitespace replaced by "_". */
        tag: z.string().regex(/^\S+$/, 'no whitespace').max(200).optional(),
        /** Write an ir_metadata header (# comment lines, which trec_eval skips). */
        metadata: z.boolean().default(true),
      })
      .strict(),
    z.object({ text: z.string(), filename: z.string(), tag: z.string() }),
    'A stored run as TREC run text (qid Q0 docno rank score tag), scores strictly decreasing per query.',
  ),
  'retrieval.runs.delete': method(z.object({ runId: Id }).strict(), z.object({ deleted: z.boolean() }), 'Delete a stored run and its results.'),
  'retrieval.dense.build': method(
    z
      .object({
        collectionId: Id,
        /** The embedding model: a model-library name or a GGUF path. */
        model: z.string().min(1),
        metric: z.enum(['cosine', 'dot']).default('cosine'),
        batchSize: z.number().int().min(1).max(512).default(16),
        /** Texts longer than the model's context: 'refuse' (stop before embedding anything, naming the document) or 'cut' to fit. */
        overlong: z.enum(['cut', 'refuse']).default('refuse'),
      })
      .strict(),
    Job,
    "Start a job that embeds a collection's documents (resumable: already embedded documents are skipped).",
  ),
  'retrieval.dense.sets': method(z.object({ collectionId: Id.optional() }).strict(), z.array(EmbeddingSet), 'Embedding sets and how many documents each holds.'),
}));
