/**
 * The Fair RAG kind (Kim & Diaz, Towards Fair RAG): its spec, metrics, drill-down rows and export
 * formats. Like MoI (moi.ts) and RichRAG (richrag.ts), the spec is a zod schema in the contract, so
 * the renderer can build forms from it and validate before sending; the service validates again
 * (and reports field paths).
 */
import { z } from 'zod';
import { AnswerMetric, bm25Params, Decoding, Id, itemsPage, Name, Num, NumOrNull, TestCalibration } from './kindParts';
import { GeneratorSelector } from './selectors';

// ---- Fair RAG spec -----------------------------------------------------------------------------

/** Used in condition names and TREC run tags, so no whitespace and no '/'. */
const RetrieverName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9._-]+$/, 'use letters, digits, ".", "_" or "-" only');

export const FairRagRetriever = z.discriminatedUnion('method', [
  /** In-memory Okapi BM25 over the query's candidates (statistics of the candidate set, as Fair-RAG). */
  z.object({ name: RetrieverName, method: z.literal('bm25'), params: bm25Params('whitespace').prefault({}) }).strict(),
  /** Cosine/dot similarity of embeddings from an embedding model of the library (calls cached). */
  z
    .object({
      name: RetrieverName,
      method: z.literal('dense'),
      params: z
        .object({
          model: z.string().trim().min(1).max(200),
          metric: z.enum(['cosine', 'dot']).default('cosine'),
          /**
           * Candidate texts longer than the embedding model's context (retrieval/dense/fitTexts.ts): absent or 'refuse'
           * stops the run before embedding, naming the document, its tokens and the context; 'cut' embeds the longest
           * prefix that fits (the run's stats and manifest say how many were cut). A query that does not fit is refused.
           * Optional with no default, so specs written before it keep their form and hash.
           */
          overlong: z.enum(['cut', 'refuse']).optional(),
        })
        .strict(),
    })
    .strict(),
  /** Reciprocal rank fusion of other retrievers of this spec (by name). */
  z
    .object({
      name: RetrieverName,
      method: z.literal('rrf'),
      params: z
        .object({
          fuse: z.array(RetrieverName).min(2).max(16),
          k: z.number().min(0).max(10_000).default(60),
          rankBase: z.union([z.literal(0), z.literal(1)]).default(1),
        })
        .strict(),
    })
    .strict(),
  /** Scores of a stored retrieval run; candidates the run did not retrieve tie with its lowest score. */
  z.object({ name: RetrieverName, method: z.literal('run'), params: z.object({ runId: Id }).strict() }).strict(),
]);
export type FairRagRetriever = z.infer<typeof FairRagRetriever>;

/**
 * Table 2's significance settings when the spec's `significance` block, or a field of it, is absent: the one
 * place the default lives (the spec's zod defaults, the table, its options and the design warnings read it).
 */
export const TABLE2_DEFAULT_SIGNIFICANCE = { test: 'within-query-exchange', correction: 'holm', alpha: 0.05 } as const;

export const FairRagSpec = z
  .object({
    kind: z.literal('fair-rag'),
    name: Name,
    description: z.string().max(10_000).optional(),
    /** Collection name. */
    collection: Name,
    /** Query ids, or 'all'. */
    queries: z.union([z.literal('all'), z.array(z.string().min(1)).min(1)]).default('all'),
    /** Keep only queries of these tasks. */
    tasks: z.array(z.string().min(1)).min(1).optional(),
    /** Keep only queries with at least this many useful candidates (Fair RAG keeps m ≥ 2). */
    minUseful: z.number().int().min(0).max(10_000).default(0),
    /** text: the query text as stored; lamp: the part Fair-RAG retrieves with (after "description:", "review:", "article:", else the first ":"). */
    retrievalQuery: z.enum(['text', 'lamp']).default('text'),
    retrievers: z.array(FairRagRetriever).min(1).max(16),
    generator: GeneratorSelector,
    decoding: Decoding.prefault({}),
    /** {{query}}, {{#documents}}{{index}} {{title}} {{text}} {{attrs.KEY}}{{/documents}}; default: the Fair-RAG template. */
    promptTemplate: z.string().min(1).max(100_000).optional(),
    /** Length budget while rendering (core/prompts): query cut to queryMax, prompt to total, each document to its share (Fair-RAG: 256/512 tokens). */
    promptBudget: z
      .object({
        /** 'tokens': the generator's own tokens (Engine.tokenize), as the papers truncated. */
        unit: z.enum(['words', 'chars', 'tokens']).default('words'),
        queryMax: z.number().int().min(1).max(1_000_000).optional(),
        total: z.number().int().min(1).max(1_000_000).optional(),
        /**
         * How a prompt over its total is cut: 'documents' (default) cuts documents from the end of the
         * ranking and keeps the question and instructions (failing, with the sizes, when they alone do not
         * fit); 'paper-end' cuts the end of the whole prompt as Fair-RAG's released code does (the question
         * too, when it comes last).
         */
        truncate: z.enum(['documents', 'paper-end']).optional(),
      })
      .strict()
      .optional(),
    k: z.number().int().min(1).max(100).default(5),
    /** N: sampled rankings per query × retriever × α. */
    samples: z.number().int().min(1).max(10_000).default(100),
    alphas: z.array(z.number().min(0).max(1000)).min(1).max(32).default([1, 2, 4, 8]),
    /** The oracle stochastic retriever (useful items first, shuffled): part of u_max. */
    oracle: z.boolean().default(true),
    /** The deterministic top-k of each retriever (Table 2's baseline). */
    deterministic: z.boolean().default(true),
    /** Score normalisation before PL sampling: paper [1, 2] or the released code's negative-score shift. */
    normalization: z.enum(['paper', 'code']).default('paper'),
    /** EE-R target: paper Eq. 6, or the code's 0 for non-useful items. */
    target: z.enum(['paper', 'code']).default('paper'),
    /**
     * EU̅ of a query whose u_max is 0 (no sample of any arm, the oracle included, scored above 0): 'zero' gives 0
     * (nothing observed was useful: an all-wrong reader scores 0, issue 34 item 4); 'code' gives 1, as Fair-RAG's
     * normalize_eu.py does by catching the ZeroDivisionError. Either way the run warns per query.
     */
    uMaxZero: z.enum(['zero', 'code']).default('zero'),
    /** Per-sample utility; default: the query's own metric (ROUGE via pltrdy, as Fair-RAG). */
    utilityMetric: AnswerMetric.optional(),
    /** Document attribute that names the provider for per-provider exposure (falls back to `group`). */
    providerAttribute: z.string().min(1).max(100).default('provider'),
    attribution: z
      .object({
        judge: z.enum(['none', 'nli-llm', 'citation']).default('none'),
        /** nli-llm: the judge model (default: the generator). */
        generator: GeneratorSelector.optional(),
        /** nli-llm: without it the constrained answer decides; with it, P(entails) ≥ threshold from log-probabilities. */
        threshold: z.number().min(0).max(1).optional(),
        /** nli-llm: {{premise}} (the document) and {{hypothesis}} (the output); citation: the instruction appended to the prompt. */
        template: z.string().min(1).max(20_000).optional(),
        /** nli-llm answer format: JSON {"entails": bool} or a yes/no grammar. */
        format: z.enum(['json', 'yes-no']).default('json'),
        maxTokens: z.number().int().min(1).max(256).default(32),
      })
      .strict()
      .prefault({}),
    seeds: z
      .object({
        sampling: z.number().int().min(0).max(0xffffffff).default(42),
        generation: z.number().int().min(0).max(0xffffffff).default(0),
      })
      .strict()
      .prefault({}),
    /**
     * Table 2's test (absent: within-query-exchange (the deterministic generation exchanged with the query's sampled
     * generations; exact under "no ranking effect"), Holm, α = 0.05). paired-randomization is the sign-flip test over queries
     * (assumes symmetric per-query differences: liberal when the deterministic EU is one 0/1 answer). kim-diaz-unpaired-t is the paper's unpaired
     * Student t-test (with correction 'none' it reproduces the paper; it is anti-conservative on designs like the demo's).
     */
    significance: z
      .object({
        test: z.enum(['within-query-exchange', 'paired-randomization', 'paired-t', 'kim-diaz-unpaired-t']).default(TABLE2_DEFAULT_SIGNIFICANCE.test),
        correction: z.enum(['holm', 'bonferroni', 'bh', 'none']).default(TABLE2_DEFAULT_SIGNIFICANCE.correction),
        alpha: z.number().gt(0).lt(1).default(TABLE2_DEFAULT_SIGNIFICANCE.alpha),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const names = new Map<string, number>();
    spec.retrievers.forEach((r, i) => {
      if (names.has(r.name)) ctx.addIssue({ code: 'custom', path: ['retrievers', i, 'name'], message: `retriever name '${r.name}' is used twice` });
      names.set(r.name, i);
    });
    spec.retrievers.forEach((r, i) => {
      if (r.method !== 'rrf') return;
      r.params.fuse.forEach((f, j) => {
        const target = names.get(f);
        if (target === undefined) ctx.addIssue({ code: 'custom', path: ['retrievers', i, 'params', 'fuse', j], message: `no retriever named '${f}' in this spec` });
        else if (target === i) ctx.addIssue({ code: 'custom', path: ['retrievers', i, 'params', 'fuse', j], message: 'a retriever cannot fuse itself' });
        else if (spec.retrievers[target]!.method === 'rrf') {
          ctx.addIssue({ code: 'custom', path: ['retrievers', i, 'params', 'fuse', j], message: `'${f}' is itself a fusion; fuse base retrievers only` });
        }
      });
    });
    const seen = new Set<number>();
    spec.alphas.forEach((a, i) => {
      if (seen.has(a)) ctx.addIssue({ code: 'custom', path: ['alphas', i], message: `alpha ${a} is listed twice` });
      seen.add(a);
    });
    if (spec.attribution.judge !== 'nli-llm') {
      for (const key of ['generator', 'threshold'] as const) {
        if (spec.attribution[key] !== undefined) ctx.addIssue({ code: 'custom', path: ['attribution', key], message: `only used with judge 'nli-llm'` });
      }
    }
  });
export type FairRagSpec = z.infer<typeof FairRagSpec>;
export type FairRagSpecInput = z.input<typeof FairRagSpec>;

// ---- Fair RAG measures: one name each -----------------------------------------------------------

/**
 * Each Fair RAG measure has one name, in ir_measures' style (ASCII; `_norm` for the normalised form
 * of Eq. 16, 26–28 and 30): CSV headers, the CLI, the manifest's measure list and the metrics' lists
 * use it. The two other forms are derived from it, never written by hand:
 * - `fairRagMeasureKey`: the key in the metrics JSON (`EE-D_norm` → `eeDNorm`; stored in runs.metrics
 *   and exported as metrics-json, so a public interface that keeps its spelling);
 * - `fairRagMeasureLabel`: the form the screens show (`EE-D_norm` → `EE-D̄`, `EU_norm` → `EU̅`,
 *   `EU_raw` → `EU (raw)`); core/format/csv.ts's `asciiHeader` maps a label back to its name.
 */
export const FAIR_RAG_MEASURE_NAMES = ['EE-D', 'EE-R', 'EE-L', 'EE-D_norm', 'EE-R_norm', 'EE-L_norm', 'EU', 'EU_raw', 'EU_norm', 'EAR', 'EAE-D', 'EAE-D_norm'] as const;
export type FairRagMeasureName = (typeof FAIR_RAG_MEASURE_NAMES)[number];

/** The metrics-JSON key of a measure, as a type: `EAE-D_norm` → `eaeDNorm`. */
export type FairRagMeasureKey<N extends string = FairRagMeasureName> = N extends `${infer A}-${infer B}_${infer C}`
  ? `${Lowercase<A>}${Capitalize<B>}${Capitalize<C>}`
  : N extends `${infer A}-${infer B}`
    ? `${Lowercase<A>}${Capitalize<B>}`
    : N extends `${infer A}_${infer C}`
      ? `${Lowercase<A>}${Capitalize<C>}`
      : Lowercase<N>;

/** The metrics-JSON key of a measure: its parts, the first lower-cased, the others capitalised (`EAE-D_norm` → `eaeDNorm`). */
export function fairRagMeasureKey<N extends FairRagMeasureName>(name: N): FairRagMeasureKey<N> {
  const [first, ...rest] = name.split(/[-_]/);
  return (first!.toLowerCase() + rest.map((p) => p[0]!.toUpperCase() + p.slice(1)).join('')) as FairRagMeasureKey<N>;
}

/**
 * The screens' form of a measure: `_norm` puts a bar on the name — a combining macron on the letter
 * after the dash (`EE-D̄`, as the paper writes the normalised exposure), an overline over a name
 * without one (`EU̅`); `_raw` reads `(raw)`.
 */
export function fairRagMeasureLabel(name: FairRagMeasureName): string {
  if (name.endsWith('_norm')) {
    const base = name.slice(0, -'_norm'.length);
    return base + (base.includes('-') ? '\u0304' : '\u0305');
  }
  return name.endsWith('_raw') ? `${name.slice(0, -'_raw'.length)} (raw)` : name;
}

// ---- Fair RAG metrics (plain data for tables and plots) ----------------------------------------

export const FairRagQueryMetrics = z.object({
  queryId: z.string(),
  /** null for the oracle (shared by every retriever). */
  retriever: z.string().nullable(),
  condition: z.string(),
  policy: z.enum(['pl', 'deterministic', 'oracle']),
  alpha: NumOrNull,
  n: z.number().int(),
  m: z.number().int(),
  samples: z.number().int(),
  distinctRankings: z.number().int(),
  eeD: Num,
  eeR: Num,
  eeL: Num,
  eeDNorm: Num,
  eeRNorm: Num,
  eeLNorm: Num,
  /** EU on the higher-is-better scale (lower-is-better metrics converted). */
  eu: Num,
  /** EU in the metric's own units. */
  euRaw: Num,
  uMax: NumOrNull,
  euNorm: NumOrNull,
  ear: NumOrNull,
  eaeD: NumOrNull,
  eaeDNorm: NumOrNull,
});

/** Every measure's key is a field of the per-query metrics (a compile-time check). */
const everyMeasureIsAField: Record<FairRagMeasureKey, unknown> = {} as z.infer<typeof FairRagQueryMetrics>;
void everyMeasureIsAField;

export const MeanWithCi = z.object({
  mean: Num,
  lower: NumOrNull,
  upper: NumOrNull,
  n: z.number().int(),
  /** How the interval was computed ('t', 't, clipped to [0, 1]', 'Wilson score (0/1 values)'); null without one. */
  method: z.string().nullable(),
  clipped: z.boolean(),
});

export const FairRagAggregate = z.object({
  retriever: z.string().nullable(),
  condition: z.string(),
  policy: z.enum(['pl', 'deterministic', 'oracle']),
  alpha: NumOrNull,
  queries: z.number().int(),
  /** Mean over queries with its 95% interval (null bounds with fewer than 2 queries); `method` says which. */
  measures: z.record(z.string(), MeanWithCi),
});

export const ProviderExposure = z.object({
  retriever: z.string().nullable(),
  condition: z.string(),
  providers: z.array(
    z.object({
      provider: z.string(),
      /** Candidate slots of this provider summed over queries. */
      documents: z.number().int(),
      /** Σ over queries and the provider's documents of ε_d (retrieved exposure). */
      retrieved: Num,
      retrievedShare: Num,
      /** Σ of ε^a_d (attributed exposure); null without attribution. */
      attributed: NumOrNull,
      attributedShare: NumOrNull,
    }),
  ),
});

export const TradeoffFit = z.object({
  retriever: z.string(),
  /** Quality measure on the y axis (eeRNorm, euNorm, eu, ear). */
  measure: z.string(),
  points: z.number().int(),
  slope: NumOrNull,
  intercept: NumOrNull,
  /** Trapezoid area under y(EE-D̄) over the points sorted by EE-D̄ (equal x averaged), between xMin and xMax. */
  auc: NumOrNull,
  xMin: NumOrNull,
  xMax: NumOrNull,
});

export const Table2Cell = z.object({
  lower: Num,
  upper: Num,
  runs: z.number().int(),
  meanUtility: NumOrNull,
  /** mean utility of the runs in the interval − the baseline's mean utility. */
  difference: NumOrNull,
  pValue: NumOrNull,
  significant: z.boolean(),
  /** Queries with an arm in the interval and a deterministic EU: the paired test's n. */
  queries: z.number().int().optional(),
  /** Mean over those queries of (mean EU of the query's arms in the interval − its deterministic EU). */
  pairedDifference: NumOrNull.optional(),
  /** p after the table's correction over the row's intervals; `significant` is pAdjusted ≤ α. */
  pAdjusted: NumOrNull.optional(),
  /** The paper's unpaired Student t-test p-value (uncorrected), whichever test makes the stars. */
  paperPValue: NumOrNull.optional(),
  degenerate: z.string().optional(),
});

export const Table2Row = z.object({
  retriever: z.string(),
  generator: z.string(),
  baseline: NumOrNull,
  baselineQueries: z.number().int(),
  cells: z.array(Table2Cell),
  /** Runs with EE-D̄ ≥ 1 (outside [0.8, 1.0) as the paper writes the last interval). */
  excludedAtOne: z.number().int(),
});

export const Fig3Retriever = z.object({
  retriever: z.string(),
  queryIds: z.array(z.string()),
  alphas: z.array(
    z.object({
      alpha: Num,
      /** EE-D̄ per query, aligned with queryIds. */
      values: z.array(Num),
      mean: Num,
      median: Num,
      q1: Num,
      q3: Num,
      min: Num,
      max: Num,
    }),
  ),
  /** Paired t-tests of EE-D̄ between every two α (per query), with Holm-adjusted p-values. */
  tests: z.array(
    z.object({ alphaA: Num, alphaB: Num, n: z.number().int(), meanDifference: Num, t: NumOrNull, df: Num, pValue: Num, pHolm: Num, degenerate: z.string().nullable() }),
  ),
});

export const FairRagMetrics = z.object({
  kind: z.literal('fair-rag'),
  runId: z.number().int(),
  k: z.number().int(),
  samples: z.number().int(),
  target: z.enum(['paper', 'code']),
  generator: z.string(),
  perQuery: z.array(FairRagQueryMetrics),
  aggregates: z.array(FairRagAggregate),
  providerExposure: z.array(ProviderExposure),
  table1: z.array(TradeoffFit),
  table2: z.object({
    intervals: z.array(z.tuple([Num, Num])),
    /** The test that produced the stars, in words (captions, CSV). */
    test: z.string(),
    /** Its id: paired-randomization (default), paired-t, kim-diaz-unpaired-t (the paper's). */
    testId: z.string().optional(),
    /** Correction over a row's intervals (several comparisons against one baseline). */
    correction: z.string().optional(),
    /** The departure from the paper's test, in words (null when the paper's test and no correction are used). */
    departure: z.string().nullable().optional(),
    /** The paper's test, whose p-value every cell carries as paperPValue. */
    paperTest: z.string().optional(),
    /** A measured null rejection rate of `test` (filled by a simulation), shown beside the table. */
    calibration: TestCalibration.optional(),
    alpha: Num,
    utility: z.string(),
    /** On the utility's own scale (raw EU; LaMP-3: 4 − MAE), as the paper's Table 2. */
    rows: z.array(Table2Row),
    /** The same on EU̅ = EU / u_max (Eq. 30), as the paper's appendix tables appear to be. */
    normalizedRows: z.array(Table2Row),
  }),
  fig3: z.array(Fig3Retriever),
  /** LaMP-3 answers that are numbers outside the labels 1–5 (scored by their real error), of all answers on that scale; absent: no such scale. */
  outOfRangeAnswers: z.object({ count: z.number().int(), answers: z.number().int() }).optional(),
  warnings: z.array(z.string()),
  /** Items not yet computed (a run in progress or interrupted): metrics cover the finished ones. */
  incomplete: z.boolean(),
});
export type FairRagMetrics = z.infer<typeof FairRagMetrics>;

export const RunItemRow = z.object({
  key: z.string(),
  queryId: z.string(),
  condition: z.string(),
  sample: z.number().int().nullable(),
  retriever: z.string().nullable(),
  alpha: NumOrNull,
  ranking: z.array(z.object({ docId: z.string(), useful: z.boolean(), provider: z.string().nullable() })),
  prompt: z.string().nullable(),
  output: z.string().nullable(),
  utility: NumOrNull,
  /** AR(π) when attribution was judged. */
  attributionRate: NumOrNull,
  attribution: z.array(z.object({ docId: z.string(), entails: z.boolean(), raw: z.string().nullable() })).nullable(),
});
export type RunItemRow = z.infer<typeof RunItemRow>;

/** Fair RAG's drill-down items: one row per sampled ranking. */
export const FairRagItemsPage = itemsPage('fair-rag', RunItemRow);
export type FairRagItemsPage = z.infer<typeof FairRagItemsPage>;

export const ExportFormat = z.enum(['per-query-csv', 'per-sample-csv', 'trec-run', 'qrels', 'attribution', 'latex-table2', 'latex-table2-normalized', 'latex-table2-paper', 'latex-table2-normalized-paper', 'metrics-json', 'manifest']);
export type ExportFormat = z.infer<typeof ExportFormat>;
