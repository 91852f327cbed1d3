/**
 * The conversations JSONL format (`fairground conversation import`, the Conversations screen's
 * import and export): one conversation per line,
 *
 *   {"id": "R112-ORG", "topic": "R112", "run": "ORG", "turns": [
 *     {"role": "user", "text": "..."},
 *     {"role": "system", "text": "...", "nuggets": [{"text": "Andrew Ng https://...", "level": 2,
 *        "groups": {"PRONOUN": [1, 0, 0], "HINDEX": "G4"}}]}]}
 *
 * A nugget names its words by `text` (the first occurrence not claimed by an earlier nugget of the
 * turn, as `eval gfrc2` does) or, exactly, by the character offsets `start`/`end` (end exclusive) in
 * the turn's text, which Fairground's own export writes (with the text too, which must then match);
 * given offsets alone, the text is the turn's characters start..end. A membership is a vector (one value per
 * group) or a group label (one-hot). The first line may instead describe the set:
 *
 *   {"conversation_set": {"L": 1000, "l_max": 2, "attribute_sets": [{"name": "PRONOUN",
 *      "kind": "nominal", "groups": ["he", "she", "other"]}]}}
 *
 * (target: uniform by default; measure: jsd for nominal sets, rnod for ordinal ones).
 */
import { z } from 'zod';

const positiveInt = z.number().int().positive();
const nonEmpty = z.string().refine((s) => s.trim() !== '', 'must not be empty');

export const NUGGET_SOURCES = ['import', 'manual', 'llm-suggested', 'accepted'] as const;

const membership = z.union([z.array(z.number()), z.string().min(1)]);

const nuggetSchema = z
  .strictObject({
    /** Optional when start and end are given: the nugget's words are then the turn's characters start..end. */
    text: nonEmpty.optional(),
    level: z.number().int().nonnegative(),
    groups: z.record(z.string(), membership).optional(),
    start: z.number().int().nonnegative().optional(),
    end: z.number().int().positive().optional(),
    source: z.enum(NUGGET_SOURCES).optional(),
  })
  .superRefine((n, ctx) => {
    if (n.text === undefined && (n.start === undefined || n.end === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['text'], message: "required: the nugget's text, or its character offsets start and end in the turn's text" });
    }
  });

const turnSchema = z.strictObject({
  role: z.enum(['user', 'system']),
  text: z.string(),
  nuggets: z.array(nuggetSchema).optional(),
});

export const conversationLineSchema = z.strictObject({
  id: z.union([nonEmpty, z.number()], { error: (iss) => (iss.input === undefined ? 'required: the conversation id' : 'must be a non-empty string or a number') }).transform((v) => String(v)),
  topic: z.union([z.string(), z.number()], { error: 'must be a string or a number' }).transform((v) => String(v)).optional(),
  run: z.string().optional(),
  turns: z.array(turnSchema).min(1, 'a conversation needs at least one turn'),
  attrs: z.record(z.string(), z.unknown()).optional(),
});

export const attributeSetSchema = z.strictObject({
  name: nonEmpty,
  kind: z.enum(['nominal', 'ordinal']),
  groups: z.array(nonEmpty).min(2, 'an attribute set needs at least 2 groups'),
  target: z.array(z.number()).optional(),
  measure: z.enum(['jsd', 'nmd', 'rnod']).optional(),
});

export const setHeaderSchema = z.strictObject({
  conversation_set: z.strictObject({
    name: z.string().optional(),
    description: z.string().optional(),
    L: positiveInt,
    l_max: positiveInt,
    glued_first_word: z.enum(['exclude', 'include']).optional(),
    attribute_sets: z.array(attributeSetSchema),
  }),
});

export type ConversationLine = z.infer<typeof conversationLineSchema>;
export type TurnLine = ConversationLine['turns'][number];
export type NuggetLine = NonNullable<TurnLine['nuggets']>[number];
export type AttributeSetLine = z.infer<typeof attributeSetSchema>;
export type SetHeader = z.infer<typeof setHeaderSchema>['conversation_set'];
