/**
 * Reads a MoI case file into core's problem and solver options; every problem is a DataError naming
 * the file and the field path as written in the file (`permutations[3][1]: index 7 out of range 0..4`).
 */
import { readFileSync } from 'node:fs';
import { DataError } from '../../core/errors';
import { assertMoiProblem, formatFieldPath, type MoiProblem } from '../../core/moi/moiProblem';
import type { MoiSolveOptions } from '../../core/moi/solveMoi';
import { decodeUtf8 } from '../lines';
import { moiCaseSchema } from './inputSchema';
import { parseJsonText } from '../jsonText';

export interface MoiCase {
  problem: MoiProblem;
  options: MoiSolveOptions;
}

/** `file` is read as given; errors name `displayName` (the path as the user wrote it) when set. */
export function readMoiCaseFile(file: string, displayName = file): MoiCase {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file: displayName });
  }
  return parseMoiCase(decodeUtf8(bytes, displayName).replace(/^\uFEFF/, ''), displayName);
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

