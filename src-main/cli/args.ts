/**
 * Option parsing for CLI commands on top of node:util `parseArgs`, turning its errors into
 * one-line `CliError`s and adding typed numeric options.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './command';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export function parseCliArgs<O extends OptionSpec>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: argv, options, allowPositionals, strict: true });
  } catch (err) {
    throw new CliError((err as Error).message.replace(/\. To specify a positional.*$/s, ''));
  }
}

/** A required string option. */
export function requireOption(value: string | undefined, name: string): string {
  if (value === undefined || value === '') throw new CliError(`missing required option --${name}`);
  return value;
}

/** Parse a numeric option, naming it in the error. */
export function numberOption(value: string | undefined, name: string, opts: { integer?: boolean; min?: number; max?: number } = {}): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new CliError(`--${name}: expected a number, got '${value}'`);
  if (opts.integer && !Number.isInteger(n)) throw new CliError(`--${name}: expected an integer, got '${value}'`);
  if (opts.min !== undefined && n < opts.min) throw new CliError(`--${name}: must be at least ${opts.min}, got ${n}`);
  if (opts.max !== undefined && n > opts.max) throw new CliError(`--${name}: must be at most ${opts.max}, got ${n}`);
  return n;
}
