/**
 * What the evaluation commands (eval ir, eval exposure, eval compare, stats compare) share: files
 * named as the user typed them (`-` for standard input, `.gz` gunzipped; errors name the path as
 * given), `-p/--places`, choice options, and numbers printed as printf prints them.
 */
import { resolve } from 'node:path';
import { DataError } from '../../core/errors';
import { MAX_PLACES, formatFixed } from '../../core/format/fixed';
import { numberOption } from '../args';
import { CliError, type CliIo } from '../command';

/**
 * Read a file given relative to the injected cwd (so in-process tests and the shell agree), with
 * errors naming the path as the user typed it. `-` is passed through (standard input).
 */
export async function inputFile<T>(userPath: string, cwd: string, read: (path: string) => T | Promise<T>): Promise<T> {
  const full = userPath === '-' ? '-' : resolve(cwd, userPath);
  try {
    return await read(full);
  } catch (err) {
    if (err instanceof DataError && (err.file === full || (full === '-' && err.file === '<stdin>'))) throw err.inFile(userPath === '-' ? '<stdin>' : userPath);
    throw err;
  }
}

/**
 * Warnings of a reader, naming the file as given. They are printed (`flush`) once the input has
 * read without error, so a failing command still prints exactly one line.
 */
export function readWarnings(io: Pick<CliIo, 'stderr'>, given: string): { onWarning: (message: string, line: number) => void; flush(): void; discard(): void } {
  const held: string[] = [];
  return {
    onWarning: (message, line) => held.push(`warning: ${given === '-' ? '<stdin>' : given}:${line}: ${message}\n`),
    flush: () => held.splice(0).forEach((w) => io.stderr.write(w)),
    /** Forget what was held (the input is read again from the start). */
    discard: () => void held.splice(0),
  };
}

export function placesOption(value: string | undefined): number | undefined {
  return numberOption(value, 'places', { integer: true, min: 0, max: MAX_PLACES });
}

/**
 * JSON of a command's result with every non-integer number rounded to `places` decimals as printf
 * rounds (ties to even); without `places`, full precision (JSON's shortest round-trip form).
 */
export function jsonWithPlaces(value: unknown, places: number | undefined, indent?: number): string {
  if (places === undefined) return JSON.stringify(value, null, indent);
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v) ? Number(formatFixed(v, places)) : v), indent);
}

export function choiceOption<T extends string>(value: string | undefined, name: string, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`--${name}: expected one of ${allowed.join(', ')}, got '${value}'`);
  return value as T;
}

/** JSON with every finite number rounded to `places` decimals (printf rounding). */
export function roundedJson(value: unknown, places: number): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v) ? Number(formatFixed(v, places)) : v));
}

/** printf("%.Nf") of a value, as trec_eval prints it. */
export { formatDecimals as formatValue } from '../../io/measureCsv';
