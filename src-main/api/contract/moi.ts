/**
 * Mixture-of-Intervention (Lee et al., "Inference Scaling for Bridging Retrieval and Augmented
 * Generation", NAACL Findings 2025) as an experiment kind `moi`: the spec (zod, with defaults), the
 * metrics it computes (Table 1-, 7- and 8-style tables, Fig. 6 data, calls per method), the per-query
 * drill-down (one `runs.items` row per query) and its export formats. Runs are created, started
 * and read with the generic `experiments.*` and `runs.*` methods (runs.ts).
 */
import { z } from 'zod';
import { GeneratorSelector } from './selectors';
import { AnswerMetric, bm25Params, Decoding, Id, Name, Num, NumOrNull, pairedCellFields, significanceFields, UtilityMetricName, Correction, TestCalibration } from './kindParts';

// ---- spec --------------------------------------------------------------------------------------

/**
 * Where the N passages of a query come from, in retriever order φ (Sec. 3.2.2 uses φ as the
 * reference ordering of the cyclic and pruned sets):
 *   bm25             in-memory Okapi BM25 over the query's candidate pool (its candidate set, else
 *                    the documents judged for it), top N
 *   run              a stored retrieval run's top N for the query
 *   candidate-order  the candidate set in its stored order (e.g. MS MARCO's passages as given)
 */
export const MoiRetriever = z.discriminatedUnion('method', [
  z.object({ method: z.literal('bm25'), params: bm25Params('words').prefault({}) }).strict(),
  z.object({ method: z.literal('run'), params: z.object({ runId: Id }).strict() }).strict(),
  z.object({ method: z.literal('candidate-order') }).strict(),
]);
export type MoiRetriever = z.infer<typeof MoiRetriever>;

/** Baselines beside MoI and the retriever order (both always run). */
export const MOI_BASELINES = [
  'random',
  'self-consistency',
  'bayes-saliency',
  'bayes-saliency-plus',
  'qg',
  'longllmlingua',
  'longllmlingua-code',
  'retriever-reversed',
  'moi-reversed',
  'gold-position',
] as const;
export const MoiBaseline = z.enum(MOI_BASELINES);
export type MoiBaseline = z.infer<typeof MoiBaseline>;

const LiteralText = z
  .string()
  .max(20_000)
  .refine((s) => !s.includes('{{'), 'no placeholders here (literal text only)');

/**
 * The one prompt layout for scoring (Eq. 3) and for the final answer (pitfall 7 of the notes: the
 * same template for both):  instruction · passage₁ · separator · … · passage_L · question · answer.
 * Scoring is one teacher-forced pass: prompt = instruction, continuation = the passages and the
 * question up to the end of the query text; `answer` (the answer cue) is used only for generation.
 * The instruction and the passages may not contain the query: passage tokens must not see q, so
 * the same pass gives log P(passages) and log P(q | passages).
 */
export const MoiPromptLayout = z
  .object({
    instruction: LiteralText.default('Answer the question using the documents.\n\nDocuments:\n'),
    /** One passage: {{index}} (1-based position), {{id}}, {{title}}, {{text}}, {{attrs.KEY}}; "{{title}}: " is dropped for an untitled document. */
    passage: z
      .string()
      .min(1)
      .max(20_000)
      .refine((s) => !/\{\{\s*[#^/]?\s*(query|answer|documents)\b/.test(s), 'a passage may use {{index}}, {{id}}, {{title}}, {{text}}, {{attrs.KEY}} only (not the query)')
      .default('[{{index}}] {{title}}: {{text}}'),
    separator: LiteralText.default('\n'),
    /** Must contain {{query}} exactly once; the rest is literal. */
    question: z
      .string()
      .max(20_000)
      .refine((s) => (s.match(/\{\{\s*query\s*\}\}/g) ?? []).length === 1 && !s.replace(/\{\{\s*query\s*\}\}/, '').includes('{{'), 'must contain {{query}} exactly once and no other placeholder')
      .default('\n\nQuestion: {{query}}'),
    answer: LiteralText.default('\nAnswer:'),
  })
  .strict();
export type MoiPromptLayout = z.infer<typeof MoiPromptLayout>;

export const MoiSpec = z
  .object({
    kind: z.literal('moi'),
    name: Name,
    description: z.string().max(10_000).optional(),
    collection: Name,
    /** Query ids, or 'all'. */
    queries: z.union([z.literal('all'), z.array(z.string().min(1)).min(1)]).default('all'),
    /** Keep only queries of these tasks. */
    tasks: z.array(z.string().min(1)).min(1).optional(),
    retriever: MoiRetriever.prefault({ method: 'bm25' }),
    /** N: top-N passages per query (fewer when the pool is smaller; at least 2 are needed). */
    n: z.number().int().min(2).max(20).default(5),
    permutations: z
      .object({
        /** random3n: 3N random (Sec. 3.2.1); cyclic: N rotations of φ (Eq. 7-9); pruned: their L-prefixes (Eq. 5-6); random-pruned: L-prefixes of 3N random permutations (not in the paper: learns a and breaks the mirror symmetry); all: N! (N ≤ 7). */
        set: z.enum(['random3n', 'cyclic', 'pruned', 'random-pruned', 'all']).default('random3n'),
        /** random3n and random-pruned: the number of random permutations (default 3N). */
        count: z.number().int().min(1).max(5040).optional(),
        /** pruned and random-pruned: L, passages per prompt (default ⌈N/2⌉; the paper does not state it). */
        length: z.number().int().min(1).max(20).optional(),
      })
      .strict()
      .prefault({}),
    /** s_i = agg(log P(q tokens)) + w · agg(log P(passage tokens)) (notes §2.1: mean, w = 1, as Merth et al.'s released code). */
    scoring: z
      .object({
        segment: z.enum(['mean', 'sum']).default('mean'),
        passageWeight: z.number().min(-1000).max(1000).default(1),
      })
      .strict()
      .prefault({}),
    solver: z
      .object({
        /** Mirror rule for full-length prompts (notes §2.3 (ii)). */
        orientation: z.enum(['bias-non-increasing', 'retriever-agreement', 'none']).default('bias-non-increasing'),
        starts: z.number().int().min(1).max(64).default(4),
        seed: z.number().int().min(0).max(0xffffffff).default(0),
        maxIterations: z.number().int().min(1).max(100_000).default(500),
        ridge: z.number().min(0).max(1).default(1e-8),
        /** ALS stopping rules (core/moi/solveMoi.ts): relative objective change (default 1e-12) and exact fit f ≤ exactFit·‖s‖² (default 1e-13). Tighter values buy precision on exact (simulated) scores. */
        tolerance: z.number().min(0).max(1).optional(),
        exactFit: z.number().min(0).max(1).optional(),
        /** Joint Gauss–Newton steps on (a, u) after ALS (core/moi/gaussNewtonPolish.ts): same objective, exact fits to rounding. Default true; false gives ALS alone (0.1's results). */
        polish: z.boolean().optional(),
        /** A fixed bias profile a (notes §2.3 (iv)): given values, or the mean a of a calibration run (e.g. random-3N). */
        fixedA: z
          .union([z.object({ values: z.array(z.number().min(0).max(1)).min(1).max(20) }).strict(), z.object({ fromRun: Id }).strict()])
          .optional(),
      })
      .strict()
      .prefault({}),
    /** The model of the intervention (score) calls; default: the generator. A smaller agent is Sec. 3.3.2's cost lever. */
    agent: GeneratorSelector.optional(),
    /** The model that writes the final answers. */
    generator: GeneratorSelector,
    /** chat applies to the answer generations only; scoring always uses the raw layout. */
    decoding: Decoding.prefault({}),
    /**
     * Prompts that do not fit the agent's or the generator's context: each passage's text is cut once per
     * query, to one common token cap that every ordering, baseline and final answer shares
     * (experiments/moi/promptBudget.ts), never below minPassageTokens (default 32); a query that still
     * does not fit refuses the run before any call.
     */
    promptBudget: z.object({ minPassageTokens: z.number().int().min(1).max(100_000).optional() }).strict().optional(),
    prompt: MoiPromptLayout.prefault({}),
    /** Answer quality; default: each query's own metric. */
    metric: AnswerMetric.prefault({}),
    /** More answer-quality columns for Table 1, computed for every query. */
    extraMetrics: z.array(UtilityMetricName).max(8).default([]),
    baselines: z.array(MoiBaseline).max(MOI_BASELINES.length).default(['random', 'self-consistency', 'bayes-saliency', 'qg', 'longllmlingua', 'retriever-reversed', 'moi-reversed', 'gold-position']),
    selfConsistency: z
      .object({
        /** K random permutations, one greedy answer each (paper: 30). */
        samples: z.number().int().min(1).max(1000).default(30),
        /** exact: most frequent SQuAD-normalised answer (ties: earliest); mbr-f1: the answer with the highest mean token F1 to the others (long-form). */
        match: z.enum(['exact', 'mbr-f1']).default('exact'),
      })
      .strict()
      .prefault({}),
    qg: z
      .object({
        /** upr: log P(q | UPR prompt with p) (Sachan et al.), N extra passes; shared: the question term of the Bayes-saliency pass (no extra call). */
        prompt: z.enum(['upr', 'shared']).default('upr'),
        template: z.string().min(1).max(20_000).default('Passage: {{text}}. Please write a question based on this passage.\n'),
      })
      .strict()
      .prefault({}),
    /** Gold passages for Table 7 and gold-at-position: utility labels, else relevance judgments, with label ≥ minLabel. */
    gold: z
      .object({
        source: z.enum(['auto', 'utility', 'relevance']).default('auto'),
        minLabel: z.number().default(1),
      })
      .strict()
      .prefault({}),
    significance: z.object(significanceFields).strict().prefault({}),
    seeds: z
      .object({
        /** Random permutation sets (MoI random-3N and the self-consistency samples), one stream per query and purpose. */
        permutations: z.number().int().min(0).max(0xffffffff).default(42),
        generation: z.number().int().min(0).max(0xffffffff).default(0),
        /** Randomization test. */
        test: z.number().int().min(0).max(0xffffffff).default(42),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const p = spec.permutations;
    if (p.count !== undefined && p.set !== 'random3n' && p.set !== 'random-pruned') ctx.addIssue({ code: 'custom', path: ['permutations', 'count'], message: "only used with set 'random3n' or 'random-pruned'" });
    if (p.length !== undefined && p.set !== 'pruned' && p.set !== 'random-pruned') ctx.addIssue({ code: 'custom', path: ['permutations', 'length'], message: "only used with set 'pruned' or 'random-pruned'" });
    if (p.length !== undefined && p.length > spec.n) ctx.addIssue({ code: 'custom', path: ['permutations', 'length'], message: `L must be at most N = ${spec.n}` });
    if (p.set === 'all' && spec.n > 7) ctx.addIssue({ code: 'custom', path: ['permutations', 'set'], message: `'all' is for N ≤ 7 (N! calls), got N = ${spec.n}` });
    const seen = new Set<string>();
    spec.baselines.forEach((b, i) => {
      if (seen.has(b)) ctx.addIssue({ code: 'custom', path: ['baselines', i], message: `'${b}' is listed twice` });
      seen.add(b);
    });
    const fixed = spec.solver.fixedA;
    if (fixed && 'values' in fixed) {
      const sum = fixed.values.reduce((a, b) => a + b, 0);
      if (Math.abs(sum - 1) > 1e-6) ctx.addIssue({ code: 'custom', path: ['solver', 'fixedA', 'values'], message: `the coefficients must sum to 1 (got ${sum})` });
    }
  });
export type MoiSpec = z.infer<typeof MoiSpec>;

// ---- metrics -----------------------------------------------------------------------------------

/** A method's mean on one measure, with its paired test against the retriever order. */
export const MoiTableCell = z.object({
  ...pairedCellFields,
  /** mean(method − retriever) over the paired queries. */
  difference: NumOrNull,
});

export const MoiTableColumn = z.object({
  /** Measure name, e.g. `rougeL`, `em`, `MRR`. */
  measure: z.string(),
  higherIsBetter: z.boolean(),
  /** Queries the column covers. */
  queries: z.number().int(),
});

export const MoiTable = z.object({
  columns: z.array(MoiTableColumn),
  rows: z.array(z.object({ method: z.string(), label: z.string(), cells: z.array(MoiTableCell) })),
  /** Method the tests compare against (null: no test). */
  baseline: z.string().nullable(),
  test: z.string(),
  correction: Correction,
  alpha: Num,
  /** A measured null rejection rate of `test` with `correction` (filled by a simulation), shown beside the table. */
  calibration: TestCalibration.optional(),
  note: z.string(),
});
export type MoiTable = z.infer<typeof MoiTable>;

export const MoiFig6 = z.array(
  z.object({
    /** Prompt length L of the fits averaged here. */
    length: z.number().int(),
    queries: z.number().int(),
    positions: z.array(z.object({ position: z.number().int(), mean: Num, sd: NumOrNull, min: Num, max: Num })),
    /** 1/L: no position bias. */
    uniform: Num,
    /** What the curve does not show or cannot vouch for: fits left out (no position effect), uncertified fits, orientation set by rule. */
    notes: z.array(z.string()).optional(),
  }),
);

export const MoiMethodCost = z.object({
  method: z.string(),
  label: z.string(),
  queries: z.number().int(),
  /** Per query as planned from the spec (formula), summed over queries. */
  planned: z.object({ scorePasses: z.number().int(), scoreRequests: z.number().int(), generations: z.number().int() }),
  /** From the stored items (what the method actually needed; calls shared between methods count for each). */
  executed: z.object({ scorePasses: z.number().int(), scoreRequests: z.number().int(), generations: z.number().int(), scoredTokens: z.number().int(), generationPromptTokens: z.number().int(), completionTokens: z.number().int() }),
  /** executed / queries. */
  perQuery: z.object({ scorePasses: Num, generations: Num, tokens: Num }),
});

/** A fit's certificate as the views show it (issue 23): why it is not certified (empty: certified), distinct optima among the starts, starts tried, exact fit. */
export const MoiFitCertificate = z.object({
  reasons: z.array(z.string()),
  distinctOptima: z.number().int(),
  startsTried: z.number().int(),
  exactFit: z.boolean(),
});
/** Whether the fit's a is distinguishable from uniform (a position effect), with the test's p-value and name. */
export const MoiPositionEffect = z.object({ detected: z.boolean(), pValue: NumOrNull, method: z.string() });

export const MoiQuerySummary = z.object({
  queryId: z.string(),
  text: z.string(),
  n: z.number().int(),
  permutations: z.number().int(),
  gold: z.number().int().nullable(),
  orientation: z.string().nullable(),
  underdetermined: z.boolean().nullable(),
  /** The fit is certified (null: no fit); `caveats` says why not, and flags orientation set by the rule and no position effect. */
  converged: z.boolean().nullable().optional(),
  caveats: z.array(z.string()).optional(),
  /** The fit's certificate (null: no fit, or a run before issue 23). */
  certificate: MoiFitCertificate.nullable().optional(),
  positionEffect: MoiPositionEffect.nullable().optional(),
  /** Full-length prompts: the orientation rule, not the data, chose between the curve and its mirror. */
  orientationByRule: z.boolean().nullable().optional(),
  /** Kendall tau of u against the retriever order. */
  retrieverTau: NumOrNull,
  /** Primary metric per method. */
  metric: z.string(),
  values: z.record(z.string(), NumOrNull),
  complete: z.boolean(),
});

export const MoiMetrics = z.object({
  kind: z.literal('moi'),
  runId: z.number().int(),
  generator: z.string(),
  agent: z.string(),
  n: z.number().int(),
  permutationSet: z.string(),
  methods: z.array(z.object({ method: z.string(), label: z.string() })),
  table1: MoiTable,
  table7: MoiTable,
  table8: MoiTable,
  fig6: MoiFig6,
  costs: z.array(MoiMethodCost),
  queries: z.array(MoiQuerySummary),
  skipped: z.array(z.object({ queryId: z.string(), reason: z.string() })),
  warnings: z.array(z.string()),
  incomplete: z.boolean(),
});
export type MoiMetrics = z.infer<typeof MoiMetrics>;

// ---- per-query drill-down ----------------------------------------------------------------------

export const MoiQueryDetail = z.object({
  queryId: z.string(),
  text: z.string(),
  answers: z.array(z.string()),
  metric: z.string(),
  passages: z.array(
    z.object({
      index: z.number().int(),
      docId: z.string(),
      title: z.string(),
      text: z.string(),
      retrieverScore: NumOrNull,
      gold: z.boolean().nullable(),
      /** Fitted debiased utility u_p (null before the fit). */
      u: NumOrNull,
    }),
  ),
  permutations: z.array(
    z.object({
      sample: z.number().int(),
      /** Passage indices (0-based, retriever order) in prompt order. */
      order: z.array(z.number().int()),
      s: NumOrNull,
      question: NumOrNull,
      passages: NumOrNull,
      /** ŝ_i of the fit. */
      predicted: NumOrNull,
      tokens: z.number().int().nullable(),
      fromCache: z.boolean().nullable(),
    }),
  ),
  fit: z
    .object({
      a: z.array(Num),
      u: z.array(Num),
      ranking: z.array(z.number().int()),
      objective: Num,
      orientation: z.string(),
      underdetermined: z.boolean(),
      reasons: z.array(z.string()),
      biasSlope: Num,
      retrieverTau: NumOrNull,
      converged: z.boolean(),
      fixedA: z.array(Num).nullable(),
      /** The rule that orients full-length fits, and whether it (not the data) decided here. */
      orientationRule: z.string().optional(),
      orientationByRule: z.boolean().optional(),
      certificate: MoiFitCertificate.nullable().optional(),
      positionEffect: MoiPositionEffect.nullable().optional(),
      /** The fit's uncertainty in words (not certified and why, no position effect, orientation by rule); empty when none. */
      caveats: z.array(z.string()).optional(),
    })
    .nullable(),
  methods: z.array(
    z.object({
      method: z.string(),
      label: z.string(),
      /** Passage indices in the order fed to the generator (null: several orders, e.g. random). */
      order: z.array(z.number().int()).nullable(),
      /** Per-passage scores of a pointwise method (index = passage). */
      scores: z.array(NumOrNull).nullable(),
      answer: z.string().nullable(),
      values: z.record(z.string(), NumOrNull),
      note: z.string().nullable(),
    }),
  ),
});
export type MoiQueryDetail = z.infer<typeof MoiQueryDetail>;

export const MoiExportFormat = z.enum(['table1-csv', 'table1-latex', 'table7-csv', 'table7-latex', 'table8-csv', 'table8-latex', 'fig6-csv', 'costs-csv', 'per-query-csv', 'permutations-csv', 'fits-csv', 'fits-json', 'metrics-json', 'manifest']);
export type MoiExportFormat = z.infer<typeof MoiExportFormat>;
