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
  const parsed = moiCaseSchema.safeParse(parseJson(text, file));
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

/** JSON.parse with the failure placed at a line (and column) when the engine reports a position. */
function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    const message = (err as Error).message;
    const at = /at position (\d+)/.exec(message);
    const reason = message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON$/s, '');
    if (!at) throw new DataError(`invalid JSON: ${reason}`, { file });
    const pos = Number(at[1]);
    const before = text.slice(0, pos);
    throw new DataError(`invalid JSON: ${reason} (column ${pos - before.lastIndexOf('\n')})`, { file, line: before.split('\n').length });
  }
}
