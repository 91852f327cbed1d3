/**
 * RichRAG (Wang et al., "RichRAG: Crafting Rich Responses for Multi-faceted Queries in RAG") as an
 * experiment kind: the spec (sub-aspect explorer → multi-faceted retriever → rankers → generator →
 * evaluation → US³ preference data), its metrics, its per-query view (one `runs.items` row per
 * query) and its export formats, read with the generic `runs.*` methods (runs.ts).
 *
 * Conditions (the arms of a run, `run_items.condition`): `closed-book` and `retriever` do not depend
 * on sub-aspects; every other framework runs once per sub-aspect setting, named `<setting>/<framework>`
 * (`predicted/listwise`, `golden/rag-fusion`, …), as Table 1 of the paper has a "Predicted" and a
 * "Golden" block.
 */
import { z } from 'zod';
import { GeneratorSelector } from './selectors';
import { Correction, Name, Num, NumOrNull, pairedCellFields, significanceFields, TestCalibration } from './kindParts';

export const RICHRAG_FRAMEWORKS = ['closed-book', 'retriever', 'no-ranker', 'rag-fusion', 'coverage', 'listwise'] as const;
export const RichRagFramework = z.enum(RICHRAG_FRAMEWORKS);
export type RichRagFramework = z.infer<typeof RichRagFramework>;

/** Where the sub-aspects come from: the explorer LLM (paper "Predicted") or the collection ("Golden"). */
export const RICHRAG_SETTINGS = ['predicted', 'golden'] as const;
export const RichRagSetting = z.enum(RICHRAG_SETTINGS);
export type RichRagSetting = z.infer<typeof RichRagSetting>;

/** Frameworks that do not use sub-aspects (one condition each, whatever the settings). */
export const ASPECT_FREE_FRAMEWORKS: readonly RichRagFramework[] = ['closed-book', 'retriever'];

/** How an LLM's output is constrained: GBNF grammar (local engine, llama.cpp servers), JSON schema, or by engine kind. */
export const RichRagConstraint = z.enum(['auto', 'grammar', 'json-schema']);

/**
 * A prompt budget in the model's own tokens: every token the engine evaluates for the prompt (BOS,
 * chat template). Only documents' texts are cut (to a common cap), never the question or the
 * sub-aspects; a prompt that cannot fit is refused naming its sizes. `total` above what the context
 * leaves is lowered to it.
 */
export const RichRagPromptBudget = z.object({ total: z.number().int().min(1).max(1_000_000).optional() }).strict();

// ---- default prompts (written for Fairground from the paper's descriptions; editable) -----------

export const DEFAULT_EXPLORER_TEMPLATE =
  'List up to {{max}} different sub-aspects of the question below: the distinct topics a comprehensive answer should cover, ' +
  'each as a short phrase. Answer with a JSON array of strings.\n\nQuestion: {{query}}\nSub-aspects: ';

export const DEFAULT_RANKER_TEMPLATE =
  'Rank documents for a question with several aspects. Choose, one at a time, the documents that together cover all aspects best.\n\n' +
  'Question: {{query}}\nAspects:\n{{aspects}}\n\nCandidates:\n{{candidates}}\n\nChosen so far: {{selected}}\nNext best document id: ';

export const DEFAULT_GENERATION_TEMPLATE =
  'Answer the question comprehensively, covering its different aspects. Rely only on the information in the sources.\n\n' +
  '{{sources}}\n\nQuestion: {{query}}\nResponse:';

export const DEFAULT_CLOSED_BOOK_TEMPLATE = 'Answer the question comprehensively in one line.\n\nQuestion: {{query}}\nResponse:';

export const DEFAULT_JUDGE_TEMPLATE =
  'Which response answers the question more comprehensively and accurately?\n\nQuestion: {{query}}\n\n' +
  'Response A:\n{{a}}\n\nResponse B:\n{{b}}\n\nAnswer A, B or tie: ';

export const DEFAULT_PREFERENCE_TEMPLATE =
  'Rank documents for a question with several aspects: list the ids of the {{k}} documents that together cover all aspects best, best first.\n\n' +
  'Question: {{query}}\nAspects:\n{{aspects}}\n\nCandidates:\n{{candidates}}\n\nRanking: ';

/** Placeholders each template may use (checked when the spec is validated). */
export const RICHRAG_PLACEHOLDERS = {
  explorer: ['query', 'max'],
  ranker: ['query', 'aspects', 'candidates', 'selected', 'k'],
  generation: ['query', 'sources', 'aspects'],
  closedBook: ['query', 'aspects'],
  judge: ['query', 'a', 'b'],
  preference: ['query', 'aspects', 'candidates', 'k'],
} as const;

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Names used in a template (`{{ name }}`). */
export function templatePlaceholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

const Template = z.string().min(1).max(100_000);
const Selector = GeneratorSelector;

export const RichRagSpec = z
  .object({
    kind: z.literal('richrag'),
    name: Name,
    description: z.string().max(10_000).optional(),
    collection: Name,
    /** Evaluation queries: ids, or 'all' (queries without an answer or sub-answers are skipped with a reason). */
    queries: z.union([z.literal('all'), z.array(z.string().min(1)).min(1)]).default('all'),
    tasks: z.array(z.string().min(1)).min(1).optional(),
    /** The generator G (and the default model of the explorer, ranker and judge). */
    generator: Selector,
    /** Documents given to the generator (paper: 10). */
    k: z.number().int().min(1).max(100).default(10),
    settings: z.array(RichRagSetting).min(1).max(2).default(['predicted']),
    frameworks: z.array(RichRagFramework).min(1).max(RICHRAG_FRAMEWORKS.length).default([...RICHRAG_FRAMEWORKS]),
    explorer: z
      .object({
        generator: Selector.optional(),
        template: Template.default(DEFAULT_EXPLORER_TEMPLATE),
        /** C: at most this many sub-aspects are kept (paper code: 8 WikiPassageQA, 7 WikiAsp). */
        maxAspects: z.number().int().min(1).max(32).default(8),
        /** Grammar mode: each sub-aspect is 1..maxChars printable ASCII characters. */
        maxChars: z.number().int().min(4).max(200).default(60),
        /** Default: enough tokens for maxAspects × maxChars (capped at 1024). */
        maxTokens: z.number().int().min(8).max(4096).optional(),
        constraint: RichRagConstraint.default('auto'),
        chat: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    retrieval: z
      .object({
        /** candidates: BM25 over the query's candidate set (in memory); collection: FTS5 BM25 over the collection; auto: candidates when the query has them. */
        scope: z.enum(['auto', 'candidates', 'collection']).default('auto'),
        /** N: documents retrieved per sub-aspect (paper: 50). */
        topN: z.number().int().min(1).max(1000).default(50),
        /** M: the pool's capacity (paper: 290 / 270). */
        capacity: z.number().int().min(1).max(10_000).default(290),
        merge: z.enum(['round-robin', 'score']).default('round-robin'),
        /** q ∘ s (Eq. 3): "{q} {s}" or "{q}: {s}". */
        join: z.enum(['space', 'colon']).default('space'),
        /** In-memory BM25 (candidates scope); FTS5 uses k1 = 1.2, b = 0.75. */
        bm25: z.object({ k1: z.number().min(0).max(100).default(1.2), b: z.number().min(0).max(1).default(0.75) }).strict().prefault({}),
      })
      .strict()
      .prefault({}),
    ragFusion: z
      .object({ k: z.number().min(0).max(10_000).default(60), rankBase: z.union([z.literal(0), z.literal(1)]).default(0) })
      .strict()
      .prefault({}),
    /** φ and the weights of Eq. 8-9 (silver list, coverage ranker, NCOM, sub-answer relevance). */
    coverage: z.object({ phi: z.enum(['code', 'paper']).default('code'), weights: z.enum(['code', 'paper']).default('code') }).strict().prefault({}),
    ranker: z
      .object({
        generator: Selector.optional(),
        template: Template.default(DEFAULT_RANKER_TEMPLATE),
        /** Candidates per prompt; larger pools are ranked in windows (see listwiseRanker.ts). Must exceed k. */
        window: z.number().int().min(2).max(500).default(20),
        /** Each candidate is cut to this many words in the prompt (null: no word cut; the token budget still applies). */
        docWords: z.number().int().min(1).max(2000).nullable().default(60),
        /** The step prompts' budget in the ranker's tokens (experiments/richrag/promptBudget.ts); default: its context size − the step's maxTokens. */
        promptBudget: RichRagPromptBudget.optional(),
        constraint: RichRagConstraint.default('auto'),
        chat: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    generation: z
      .object({
        template: Template.default(DEFAULT_GENERATION_TEMPLATE),
        closedBookTemplate: Template.default(DEFAULT_CLOSED_BOOK_TEMPLATE),
        maxTokens: z.number().int().min(1).max(8192).default(500),
        temperature: z.number().min(0).max(5).default(0),
        chat: z.boolean().default(false),
        /** Each source is cut to this many words (null: no word cut; the token budget still applies). */
        docWords: z.number().int().min(1).max(5000).nullable().default(200),
        /** The answer prompt's budget in the generator's tokens (experiments/richrag/promptBudget.ts); default: its context size − maxTokens. */
        promptBudget: RichRagPromptBudget.optional(),
        stop: z.array(z.string().min(1)).max(8).optional(),
      })
      .strict()
      .prefault({}),
    judge: z
      .object({
        enabled: z.boolean().default(false),
        generator: Selector.optional(),
        /** The condition every other is compared with (default: rag-fusion of the first setting, else the first condition). */
        baseline: z.string().min(1).optional(),
        /** Conditions judged against the baseline (default: all others). */
        systems: z.array(z.string().min(1)).min(1).optional(),
        template: Template.default(DEFAULT_JUDGE_TEMPLATE),
        constraint: RichRagConstraint.default('auto'),
        chat: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    preferences: z
      .object({
        enabled: z.boolean().default(false),
        /** Training queries (default: the evaluation queries). */
        queries: z.array(z.string().min(1)).min(1).optional(),
        /** The pool the lists rank (default: the first setting). */
        setting: RichRagSetting.optional(),
        /** Sampled lists per query besides the greedy one (notes: 8). */
        samples: z.number().int().min(1).max(256).default(8),
        temperature: z.number().min(0.01).max(5).default(1),
        /** μ: a (greedy, sample) pair is kept when |Δreward| > μ (paper: 0.1). */
        mu: z.number().min(0).max(10).default(0.1),
        /** The ranker input x = {q, Ŝ, P} written as each JSONL record's prompt. */
        template: Template.default(DEFAULT_PREFERENCE_TEMPLATE),
        /** The exported records' prompt budget in the ranker's tokens (experiments/richrag/promptBudget.ts trainingBudget); default: its context size − the longest completion − 1. */
        promptBudget: RichRagPromptBudget.optional(),
      })
      .strict()
      .prefault({}),
    analysis: z
      .object({
        baseline: z.string().min(1).optional(),
        ...significanceFields,
        /** Relevance for MAP/nDCG: derived from the sub-answers (see metrics), or the collection's relevance qrels. */
        relevance: z.enum(['sub-answers', 'qrels']).default('sub-answers'),
        relevanceThreshold: z.number().min(0).max(1).default(0.5),
        /**
         * NCOM's normalising pool (absent: common): 'common' = every document the run saw for the query (each
         * setting's pool and the plain query's list), the same COM* for every row of Table 3; 'own' = each row's
         * own pool (the plain list for 'retriever'), as before issue 23 — its rows are not comparable.
         */
        ncomPool: z.enum(['common', 'own']).optional(),
      })
      .strict()
      .prefault({}),
    seeds: z
      .object({ sampling: z.number().int().min(0).max(0xffffffff).default(42), generation: z.number().int().min(0).max(0xffffffff).default(0) })
      .strict()
      .prefault({}),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const issue = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    const dupes = (list: readonly string[], path: string) =>
      list.forEach((x, i) => {
        if (list.indexOf(x) !== i) issue([path, i], `'${x}' is listed twice`);
      });
    dupes(spec.settings, 'settings');
    dupes(spec.frameworks, 'frameworks');
    const templates: [PropertyKey[], string, readonly string[]][] = [
      [['explorer', 'template'], spec.explorer.template, RICHRAG_PLACEHOLDERS.explorer],
      [['ranker', 'template'], spec.ranker.template, RICHRAG_PLACEHOLDERS.ranker],
      [['generation', 'template'], spec.generation.template, RICHRAG_PLACEHOLDERS.generation],
      [['generation', 'closedBookTemplate'], spec.generation.closedBookTemplate, RICHRAG_PLACEHOLDERS.closedBook],
      [['judge', 'template'], spec.judge.template, RICHRAG_PLACEHOLDERS.judge],
      [['preferences', 'template'], spec.preferences.template, RICHRAG_PLACEHOLDERS.preference],
    ];
    for (const [path, text, allowed] of templates) {
      for (const name of templatePlaceholders(text)) {
        if (!allowed.includes(name)) issue(path, `unknown placeholder {{${name}}}; this template knows ${allowed.map((a) => `{{${a}}}`).join(', ')}`);
      }
    }
    if (!templatePlaceholders(spec.ranker.template).includes('candidates')) issue(['ranker', 'template'], 'the ranker template must show the candidates ({{candidates}})');
    if (spec.ranker.window <= spec.k) issue(['ranker', 'window'], `must be larger than k (${spec.k}): each window keeps the k best and reads window − k new candidates`);
    const conditions = richRagConditions(spec);
    const known = `known: ${conditions.map((c) => c.condition).join(', ')}`;
    if (spec.judge.baseline !== undefined && !conditions.some((c) => c.condition === spec.judge.baseline)) issue(['judge', 'baseline'], `no condition '${spec.judge.baseline}' in this spec; ${known}`);
    spec.judge.systems?.forEach((s, i) => {
      if (!conditions.some((c) => c.condition === s)) issue(['judge', 'systems', i], `no condition '${s}' in this spec; ${known}`);
    });
    if (spec.analysis.baseline !== undefined && !conditions.some((c) => c.condition === spec.analysis.baseline)) issue(['analysis', 'baseline'], `no condition '${spec.analysis.baseline}' in this spec; ${known}`);
    if (spec.preferences.setting !== undefined && !spec.settings.includes(spec.preferences.setting)) issue(['preferences', 'setting'], `'${spec.preferences.setting}' is not one of the spec's settings`);
  });
export type RichRagSpec = z.infer<typeof RichRagSpec>;

export interface RichRagCondition {
  condition: string;
  framework: RichRagFramework;
  setting: RichRagSetting | null;
}

/** The conditions of a spec in table order: aspect-free frameworks first, then per setting its frameworks. */
export function richRagConditions(spec: Pick<RichRagSpec, 'settings' | 'frameworks'>): RichRagCondition[] {
  const out: RichRagCondition[] = [];
  for (const framework of RICHRAG_FRAMEWORKS) {
    if (ASPECT_FREE_FRAMEWORKS.includes(framework) && spec.frameworks.includes(framework)) out.push({ condition: framework, framework, setting: null });
  }
  for (const setting of spec.settings) {
    for (const framework of RICHRAG_FRAMEWORKS) {
      if (!ASPECT_FREE_FRAMEWORKS.includes(framework) && spec.frameworks.includes(framework)) out.push({ condition: `${setting}/${framework}`, framework, setting });
    }
  }
  return out;
}

// ---- metrics --------------------------------------------------------------------------------------

export const RichRagConditionInfo = z.object({ condition: z.string(), framework: RichRagFramework, setting: RichRagSetting.nullable() });

export const RichRagCell = z.object({
  ...pairedCellFields,
  /** mean(condition − baseline) over the queries both have; null for the baseline itself. */
  delta: NumOrNull,
});

export const RichRagTable = z.object({
  measures: z.array(z.string()),
  baseline: z.string().nullable(),
  test: z.string(),
  correction: Correction,
  alpha: Num,
  /** How a measure of this table departs from the paper (stated in captions and the manifest). */
  departure: z.string().optional(),
  /** A measured null rejection rate of `test` with `correction` (filled by a simulation), shown beside the table. */
  calibration: TestCalibration.optional(),
  rows: z.array(RichRagConditionInfo.extend({ queries: z.number().int(), cells: z.record(z.string(), RichRagCell) })),
});
export type RichRagTable = z.infer<typeof RichRagTable>;

export const RichRagMetrics = z.object({
  kind: z.literal('richrag'),
  runId: z.number().int(),
  k: z.number().int(),
  generator: z.string(),
  conditions: z.array(RichRagConditionInfo),
  queries: z.array(z.string()),
  /** How MAP/nDCG relevance was derived (a sentence). */
  relevance: z.string(),
  perQuery: z.array(z.object({ queryId: z.string(), condition: z.string(), values: z.record(z.string(), NumOrNull) })),
  /** Table 1: frameworks × answer metrics. */
  table1: RichRagTable,
  /** Table 3: ranking metrics of the ranked conditions. */
  table3: RichRagTable,
  judge: z
    .object({
      baseline: z.string(),
      tieRule: z.string(),
      rows: z.array(z.object({ condition: z.string(), queries: z.number().int(), wins: z.number().int(), ties: z.number().int(), losses: z.number().int(), winRate: NumOrNull })),
    })
    .nullable(),
  explorer: z
    .object({
      queries: z.number().int(),
      meanPredicted: NumOrNull,
      meanGolden: NumOrNull,
      /** Queries where the explorer gave no usable sub-aspect (the query itself was used). */
      empty: z.number().int(),
      /** Queries whose output needed the lenient parser (cut at maxTokens). */
      repaired: z.number().int(),
    })
    .nullable(),
  preferences: z
    .object({
      queries: z.number().int(),
      lists: z.number().int(),
      mu: Num,
      pairs: z.number().int(),
      meanRewardGreedy: NumOrNull,
      meanRewardSampled: NumOrNull,
    })
    .nullable(),
  warnings: z.array(z.string()),
  incomplete: z.boolean(),
});
export type RichRagMetrics = z.infer<typeof RichRagMetrics>;

// ---- per-query view -------------------------------------------------------------------------------

export const RichRagSegment = z.object({ text: z.string(), subAnswers: z.array(z.number().int()) });

export const RichRagQueryView = z.object({
  queryId: z.string(),
  text: z.string(),
  answers: z.array(z.string()),
  golden: z.array(z.object({ aspect: z.string(), answer: z.string(), weight: Num })),
  predicted: z.array(z.string()).nullable(),
  explorer: z.object({ prompt: z.string(), raw: z.string(), repaired: z.boolean(), empty: z.boolean() }).nullable(),
  roles: z.object({ evaluate: z.boolean(), train: z.boolean() }),
  settings: z.array(
    z.object({
      setting: RichRagSetting,
      aspects: z.array(z.string()),
      pool: z.array(
        z.object({
          docId: z.string(),
          label: z.string(),
          title: z.string(),
          text: z.string(),
          aspects: z.array(z.string()),
          /** φ(d, a_i) per sub-answer. */
          phi: z.array(Num),
          relevance: Num,
        }),
      ),
    }),
  ),
  conditions: z.array(
    RichRagConditionInfo.extend({
      ranking: z.array(z.object({ docId: z.string(), title: z.string(), aspects: z.array(z.string()) })),
      steps: z.array(z.object({ window: z.number().int(), raw: z.string(), docId: z.string(), fallback: z.boolean() })).nullable(),
      prompt: z.string().nullable(),
      output: z.string().nullable(),
      scores: z.record(z.string(), NumOrNull),
      /** Per sub-answer: max φ over the top-k documents, and φ of the answer. */
      coverage: z.object({ documents: z.array(Num), answer: z.array(NumOrNull) }),
      segments: z.array(RichRagSegment),
    }),
  ),
  judge: z.array(z.object({ condition: z.string(), baseline: z.string(), verdicts: z.array(z.string()), outcome: z.enum(['win', 'tie', 'loss']), note: z.string().nullable() })),
  preferences: z.array(z.object({ sample: z.number().int(), ranking: z.array(z.string()), reward: NumOrNull, greedy: z.boolean() })),
  /** The matching rule of `segments`. */
  highlightRule: z.string(),
});
export type RichRagQueryView = z.infer<typeof RichRagQueryView>;

export const RichRagExportFormat = z.enum(['tables-csv', 'per-query-csv', 'latex-table1', 'latex-table3', 'preferences-jsonl', 'sft-jsonl', 'metrics-json', 'manifest']);
export type RichRagExportFormat = z.infer<typeof RichRagExportFormat>;
