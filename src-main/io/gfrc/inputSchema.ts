/**
 * JSON layout of a GFRC/GFRC2 input file (`fairground eval gfrc2 --input`): attribute sets plus either
 * positioned nuggets or a conversation whose system turns mark their nuggets by text. zod checks the
 * shape so that every error names its field path (e.g. `nuggets[3].level`); the cross-field rules
 * (vector sizes, overlaps) are core's `gfrcInputProblems`.
 */
import { z } from 'zod';

const positiveInt = z.number().int().positive();
const level = z.number().int().nonnegative();
const membership = z.record(z.string(), z.array(z.number()));

const attributeSet = z.strictObject({
  name: z.string().min(1),
  kind: z.enum(['nominal', 'ordinal']),
  /** Optional: JSD for nominal sets, RNOD for ordinal ones (as the paper does for HINDEX). */
  measure: z.enum(['jsd', 'nmd', 'rnod']).optional(),
  target: z.array(z.number()),
});

const nugget = z.strictObject({
  turn: positiveInt,
  end: positiveInt,
  length: positiveInt,
  level,
  groups: membership.optional(),
});

const turnNugget = z.strictObject({
  text: z.string().refine((s) => s.trim() !== '', 'must not be empty'),
  level,
  groups: membership.optional(),
});

const turn = z.strictObject({
  role: z.enum(['user', 'system']),
  text: z.string(),
  nuggets: z.array(turnNugget).optional(),
});

const weight = z.number().nonnegative();
const setWeights = z.record(z.string(), weight);

export const gfrcInputFileSchema = z
  .strictObject({
    L: positiveInt,
    l_max: positiveInt,
    attribute_sets: z.array(attributeSet),
    nuggets: z.array(nugget).optional(),
    conversation: z.array(turn).optional(),
    /** Gain per relevance level 0 … l_max for GFRC's R; default (2^l − 1)/2^{l_max}. */
    gains: z.array(z.number()).optional(),
    /** GFRC weights; default 1/(M+1) each. */
    gfrc_weights: z.strictObject({ R: weight, sets: setWeights }).optional(),
    /** GFRC2 weights (Eq. 12); default 1/(M+1) each. */
    gfrc2_weights: z.strictObject({ GNP: weight, sets: setWeights }).optional(),
  })
  .superRefine((v, ctx) => {
    if ((v.nuggets === undefined) === (v.conversation === undefined)) {
      ctx.addIssue({ code: 'custom', message: "give exactly one of 'nuggets' and 'conversation'", path: [] });
    }
  });

export type GfrcInputFile = z.infer<typeof gfrcInputFileSchema>;
