/**
 * Reads a MoI case file into core's problem and solver options; every problem is a DataError naming
 * the file and the field path as written in the file (`permutations[3][1]: index 7 out of range 0..4`).
 */
import { DataError } from '../../core/errors';
import { assertMoiProblem, formatFieldPath, type MoiProblem } from '../../core/moi/moiProblem';
import type { MoiSolveOptions } from '../../core/moi/solveMoi';
import { moiCaseSchema } from './inputSchema';
import { parseJsonText } from '../jsonText';

export interface MoiCase {
  problem: MoiProblem;
  options: MoiSolveOptions;
}

export function parseMoiCase(text: string, file: string): MoiCase {
  const parsed = moiCaseSchema.safeParse(parseJsonText(text, file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = formatFieldPath(issue.path.filter((p): p is string | number => typeof p !== 'symbol'));
    throw new DataError(issue.message, { file, field: field || undefined });
  }
  const { n, permutations, scores, options = {} } = parsed.data;
  const problem: MoiProblem = { n, permutations, scores };
  try {
    assertMoiProblem(problem);
  } catch (err) {
    throw err instanceof DataError ? err.inFile(file) : err;
  }
  return { problem, options };
}

