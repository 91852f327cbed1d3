/**
 * Conversations for GFRC / GFRC2 (Sakai, Tao & Song 2025): conversation sets with attribute sets,
 * JSONL import/export, nugget annotation (spans of system turns, placed by word the paper's way)
 * and the evaluations, recomputed from the stored nuggets on every call.
 */
import { z } from 'zod';
import { lazyMethods, method } from './define';

const Id = z.number().int().positive();
const SetName = z.string().trim().min(1, 'a conversation set needs a name').max(200);
const RVariant = z.enum(['eq6', 'eq7', 'eq9']);
const Measure = z.enum(['jsd', 'nmd', 'rnod']);
const GluedFirstWord = z.enum(['exclude', 'include']);
export const NuggetSource = z.enum(['import', 'manual', 'llm-suggested', 'accepted']);
const Memberships = z.record(z.string(), z.array(z.number()));
/** A membership per attribute set: a vector (one value per group) or a group label (one-hot). */
const MembershipInput = z.record(z.string(), z.union([z.array(z.number()), z.string().min(1)]));

export const AttributeSetInput = z
  .object({
    name: z.string().trim().min(1).max(100),
    kind: z.enum(['nominal', 'ordinal']),
    groups: z.array(z.string().trim().min(1).max(100)).min(2).max(50),
    /** Default: uniform. */
    target: z.array(z.number()).optional(),
    /** Default: jsd for nominal sets, rnod for ordinal ones. */
    measure: Measure.optional(),
  })
  .strict();
export type AttributeSetInput = z.input<typeof AttributeSetInput>;

export const AttributeSet = z.object({ name: z.string(), kind: z.enum(['nominal', 'ordinal']), groups: z.array(z.string()), target: z.array(z.number()), measure: Measure });
export type AttributeSet = z.infer<typeof AttributeSet>;

export const ConversationSet = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  L: z.number().int(),
  lMax: z.number().int(),
  gluedFirstWord: GluedFirstWord,
  createdAt: z.string(),
  attributeSets: z.array(AttributeSet),
  counts: z.object({ conversations: z.number().int(), nuggets: z.number().int(), runs: z.number().int(), topics: z.number().int() }),
});
export type ConversationSet = z.infer<typeof ConversationSet>;

export const ConversationSummary = z.object({
  id: z.number().int(),
  setId: z.number().int(),
  convId: z.string(),
  topic: z.string(),
  run: z.string(),
  attrs: z.record(z.string(), z.unknown()),
  counts: z.object({ turns: z.number().int(), nuggets: z.number().int() }),
});
export type ConversationSummary = z.infer<typeof ConversationSummary>;

export const Nugget = z.object({
  id: z.number().int(),
  conversationId: z.number().int(),
  /** Index of the turn in the conversation (0-based). */
  turn: z.number().int(),
  /** 1-based number among system turns (GFRC's GF groups by it). */
  systemTurn: z.number().int(),
  /** Character offsets in the turn's text, snapped to whole words, end exclusive. */
  start: z.number().int(),
  end: z.number().int(),
  text: z.string(),
  /** Counted words: wordStart … wordEnd (= wc), wordLength of them. */
  wordStart: z.number().int(),
  wordEnd: z.number().int(),
  wordLength: z.number().int(),
  level: z.number().int(),
  groups: Memberships,
  source: NuggetSource,
  updatedAt: z.string(),
});
export type Nugget = z.infer<typeof Nugget>;

export const TurnWord = z.object({ start: z.number().int(), end: z.number().int(), wc: z.number().int() });

export const ConversationDetail = z.object({
  set: ConversationSet,
  conversation: ConversationSummary,
  turns: z.array(z.object({ position: z.number().int(), role: z.enum(['user', 'system']), text: z.string(), systemTurn: z.number().int().nullable(), words: z.array(TurnWord) })),
  nuggets: z.array(Nugget),
  totalWords: z.number().int(),
  previousId: z.number().int().nullable(),
  nextId: z.number().int().nullable(),
});
export type ConversationDetail = z.infer<typeof ConversationDetail>;

const Cluster = z.object({
  wc: z.number().int(),
  GWCrel: z.number(),
  WCnonrel: z.number(),
  GNP: z.number(),
  D: z.record(z.string(), z.array(z.number())),
  DistrSim: z.record(z.string(), z.number()),
  Experience: z.number(),
});

export const ConversationScores = z.object({
  rVariant: RVariant,
  scoredNuggets: z.number().int(),
  suggestedNuggets: z.number().int(),
  problems: z.array(z.string()),
  gfrc2: z.object({ clusters: z.array(Cluster), EGNP: z.number(), EGF: z.record(z.string(), z.number()), GFRC2: z.number() }).nullable(),
  gfrc: z
    .object({
      R: z.number(),
      GF: z.record(z.string(), z.number()),
      GFRC: z.number(),
      rTerms: z.array(z.object({ turn: z.number().int(), end: z.number().int(), level: z.number().int(), pw: z.number(), g: z.number() })),
      turns: z.array(z.object({ turn: z.number().int(), D: z.record(z.string(), z.array(z.number())), DistrSim: z.record(z.string(), z.number()) })),
    })
    .nullable(),
});
export type ConversationScores = z.infer<typeof ConversationScores>;

export const ConversationSetEvaluation = z.object({
  setId: z.number().int(),
  setName: z.string(),
  L: z.number().int(),
  lMax: z.number().int(),
  gluedFirstWord: GluedFirstWord,
  attributeSets: z.array(AttributeSet),
  measures: z.array(z.string()),
  runs: z.array(z.string()),
  topics: z.array(z.string()),
  conversations: z.array(
    z.object({ conversationId: z.number().int(), convId: z.string(), run: z.string(), topic: z.string(), values: z.record(z.string(), z.number()).nullable(), problems: z.array(z.string()) }),
  ),
  cells: z.array(z.object({ run: z.string(), topic: z.string(), conversations: z.number().int(), values: z.record(z.string(), z.number()).nullable() })),
  means: z.array(z.object({ run: z.string(), topics: z.number().int(), values: z.record(z.string(), z.number().nullable()) })),
  comparisons: z.array(
    z.object({
      measure: z.string(),
      runA: z.string(),
      runB: z.string(),
      topics: z.number().int(),
      meanA: z.number(),
      meanB: z.number(),
      delta: z.number(),
      pValue: z.number(),
      pAdjusted: z.number(),
      significant: z.boolean(),
    }),
  ),
  settings: z.object({
    rVariant: RVariant,
    test: z.string(),
    correction: z.enum(['holm', 'bonferroni', 'bh', 'none']),
    alpha: z.number(),
    permutations: z.number().nullable(),
    seed: z.number().nullable(),
    family: z.string(),
  }),
  dataSha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a SHA-256 (64 lower-case hex digits)'),
  notes: z.array(z.string()),
});
export type ConversationSetEvaluation = z.infer<typeof ConversationSetEvaluation>;

const ConversationFile = z.object({ fileName: z.string(), mediaType: z.string(), content: z.string() });

export const ConversationImportReport = z.object({
  setId: z.number().int(),
  setName: z.string(),
  createdSet: z.boolean(),
  conversations: z.number().int(),
  turns: z.number().int(),
  nuggets: z.number().int(),
  attributeSetsFrom: z.enum(['request', 'file', 'inferred', 'existing']),
  notes: z.array(z.string()),
});
export type ConversationImportReport = z.infer<typeof ConversationImportReport>;

const SetParams = {
  L: z.number().int().min(1).max(10_000_000).optional(),
  lMax: z.number().int().min(1).max(10).optional(),
};

export const conversationsContract = lazyMethods(() => ({
  'conversations.sets.list': method(z.object({}).strict(), z.array(ConversationSet), 'Conversation sets with their attribute sets and counts.'),
  'conversations.sets.get': method(
    z.object({ setId: Id }).strict(),
    z.object({ set: ConversationSet, conversations: z.array(ConversationSummary) }),
    'A conversation set with its conversations (by run, topic, id).',
  ),
  'conversations.sets.create': method(
    z.object({ name: SetName, description: z.string().max(5000).optional(), ...SetParams, gluedFirstWord: GluedFirstWord.optional(), attributeSets: z.array(AttributeSetInput).max(20).optional() }).strict(),
    ConversationSet,
    'An empty conversation set (L default 1000, l_max 2, the glued first word of a turn not counted in a nugget).',
  ),
  'conversations.sets.update': method(
    z.object({ setId: Id, description: z.string().max(5000).optional(), ...SetParams }).strict(),
    ConversationSet,
    'Change L, l_max or the description of a set (l_max cannot drop below a stored level).',
  ),
  'conversations.sets.delete': method(z.object({ setId: Id }).strict(), z.object({ deleted: z.boolean() }), 'Delete a set with its conversations and nuggets.'),
  'conversations.attributeSets.put': method(
    z.object({ setId: Id, attributeSet: AttributeSetInput }).strict(),
    ConversationSet,
    'Add an attribute set to a conversation set, or replace the one with its name.',
  ),
  'conversations.attributeSets.delete': method(
    z.object({ setId: Id, name: z.string().min(1) }).strict(),
    ConversationSet,
    "Remove an attribute set and the nuggets' memberships for it.",
  ),
  'conversations.import': method(
    z
      .object({
        setName: SetName,
        file: z.object({ name: z.string().min(1).max(500), content: z.string().max(64 * 1024 * 1024) }).strict(),
        ...SetParams,
        gluedFirstWord: GluedFirstWord.optional(),
        attributeSets: z.array(AttributeSetInput).max(20).optional(),
      })
      .strict(),
    ConversationImportReport,
    'Import conversations JSONL into a set (created when new); checked completely, written in one transaction.',
  ),
  'conversations.export': method(
    z.object({ setId: Id.optional(), conversationId: Id.optional(), format: z.enum(['jsonl', 'gfrc2-json']) }).strict(),
    z.object({ files: z.array(ConversationFile) }),
    "A set as conversations JSONL, or `eval gfrc2` input JSON for one conversation (conversationId) or every conversation of a set.",
  ),
  'conversations.get': method(z.object({ conversationId: Id }).strict(), ConversationDetail, 'A conversation: turns with their word positions, and its nuggets.'),
  'conversations.nuggets.create': method(
    z
      .object({
        conversationId: Id,
        turn: z.number().int().nonnegative(),
        start: z.number().int().nonnegative(),
        end: z.number().int().positive(),
        level: z.number().int().nonnegative(),
        groups: MembershipInput.optional(),
        source: NuggetSource.optional(),
      })
      .strict(),
    Nugget,
    'Mark a span of a system turn as a nugget (snapped to whole words; overlapping nuggets are refused).',
  ),
  'conversations.nuggets.update': method(
    z
      .object({
        nuggetId: Id,
        turn: z.number().int().nonnegative().optional(),
        start: z.number().int().nonnegative().optional(),
        end: z.number().int().positive().optional(),
        level: z.number().int().nonnegative().optional(),
        groups: MembershipInput.optional(),
      })
      .strict(),
    Nugget,
    "Change a nugget's span, level or memberships (groups replaces all of them).",
  ),
  'conversations.nuggets.delete': method(z.object({ nuggetId: Id }).strict(), z.object({ deleted: z.boolean() }), 'Delete a nugget.'),
  'conversations.evaluate': method(
    z.object({ conversationId: Id, rVariant: RVariant.default('eq6') }).strict(),
    ConversationScores,
    'GFRC2 (user clusters, EGNP, EGF, GFRC2) and GFRC (R, GF, GFRC) of one conversation from its stored nuggets.',
  ),
  'conversations.evaluateSet': method(
    z
      .object({
        setId: Id,
        rVariant: RVariant.default('eq6'),
        test: z.enum(['t', 'randomization']).default('t'),
        correction: z.enum(['holm', 'bonferroni', 'bh', 'none']).default('holm'),
        alpha: z.number().gt(0).lt(1).default(0.05),
        permutations: z.number().int().min(100).max(1_000_000).default(10_000),
        seed: z.number().int().min(0).default(42),
      })
      .strict(),
    ConversationSetEvaluation,
    'The runs × topics table of a set with means per run and paired tests between runs over topics.',
  ),
  'conversations.exportEvaluation': method(
    z
      .object({
        evaluation: ConversationSetEvaluation,
        format: z.enum(['csv', 'csv-tests', 'latex']),
        latex: z
          .object({
            caption: z.string().max(2000).optional(),
            label: z.string().regex(/^[A-Za-z0-9:._\-/]+$/, 'letters, digits and : . _ - / only').max(200).optional(),
            /** Decimal places of every measure column; absent: each column's own, 3 significant digits of its smallest value. */
            digits: z.number().int().min(1).max(8).optional(),
            environment: z.enum(['table', 'table*']).default('table*'),
          })
          .strict()
          .optional(),
      })
      .strict(),
    z.object({ file: ConversationFile, manifest: ConversationFile }),
    'The runs × topics table as CSV, the tests as CSV, or the means as a booktabs LaTeX table, each with its manifest.',
  ),
  'conversations.fromFairRagRun': method(
    z
      .object({
        setName: SetName,
        runId: Id,
        /** One arm, e.g. bm25/alpha=2; or `conditions`. */
        condition: z.string().min(1).max(200).optional(),
        /** Several arms in one import: `all` (every condition of the run) or a list. */
        conditions: z.union([z.literal('all'), z.array(z.string().min(1).max(200)).min(1).max(1000)]).optional(),
        sample: z.number().int().nonnegative().default(0),
        attribute: z.string().min(1).max(100).optional(),
        ...SetParams,
      })
      .strict()
      .refine((r) => (r.condition === undefined) !== (r.conditions === undefined), { message: 'give a condition, or conditions (all or a list), not both', path: ['condition'] }),
    ConversationImportReport.extend({ attributeSet: AttributeSet.nullable(), skipped: z.array(z.string()), conditions: z.array(z.string()).optional() }),
    'Conversations from one condition, several or all conditions (one import) and one sample of a Fair RAG run: query → user turn, generated answer → system turn, providers of the ranked documents as an attribute set.',
  ),
  'conversations.loadDemo': method(
    z.object({}).strict(),
    z.object({ setId: z.number().int(), changed: z.boolean() }),
    'Load the demo conversation set (2 runs × 3 topics with nuggets) unless it is there.',
  ),
  'conversations.fromAnswers': method(
    z
      .object({
        setName: SetName,
        run: z.string().trim().min(1).max(200),
        attribute: z.string().min(1).max(100).optional(),
        attributeSetName: z.string().min(1).max(100).optional(),
        ...SetParams,
        answers: z
          .array(
            z
              .object({
                queryId: z.string().min(1),
                query: z.string(),
                answer: z.string(),
                run: z.string().min(1).optional(),
                documents: z.array(z.object({ docId: z.string().min(1), attrs: z.record(z.string(), z.unknown()).optional(), attributed: z.boolean().optional() }).strict()),
              })
              .strict(),
          )
          .min(1),
      })
      .strict(),
    ConversationImportReport.extend({ attributeSet: AttributeSet.nullable() }),
    'Conversations from RAG answers (query → user turn, answer → system turn), with an attribute set over the documents\u2019 providers.',
  ),
}));
