/**
 * JSON layout of a MoI case file (`fairground moi solve --input`): one query's passages, the
 * prompts scored (0-based passage indices in prompt order; pruned prompts of one common length L)
 * and their listwise scores s_i (Eq. 3, log domain), plus solver options. zod checks the shape so
 * that every error names its field path (e.g. `options.starts`); the cross-field rules (index range,
 * repeats, common length, one score per prompt, fixedA of length L on the simplex) are core's
 * `moiProblemIssues` and `solveMoi`.
 */
import { z } from 'zod';
import { ORIENTATION_RULES } from '../../core/moi/orientation';

const positiveInt = z.number().int().positive();

export const moiCaseOptionsSchema = z.strictObject({
  orientation: z.enum(ORIENTATION_RULES).optional(),
  seed: z.union([z.number().int().nonnegative(), z.string()]).optional(),
  starts: positiveInt.optional(),
  maxStarts: positiveInt.optional(),
  lowSignalStarts: positiveInt.optional(),
  noiseSd: z.number().nonnegative().optional(),
  maxIterations: positiveInt.optional(),
  tolerance: z.number().nonnegative().optional(),
  fixedA: z.array(z.number().min(0).max(1)).optional(),
  ridge: z.number().nonnegative().optional(),
  exactFit: z.number().nonnegative().optional(),
  polish: z.boolean().optional(),
});

export const moiCaseSchema = z.strictObject({
  n: positiveInt,
  permutations: z.array(z.array(z.number().int())).min(1),
  scores: z.array(z.number()),
  options: moiCaseOptionsSchema.optional(),
});
