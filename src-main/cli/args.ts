/**
 * Option parsing for CLI commands on top of node:util `parseArgs`, turning its errors into
 * one-line `CliError`s and adding typed numeric options.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './command';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export function parseCliArgs<O extends OptionSpec>(argv: string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: joinNegativeValues(argv, options), options, allowPositionals, strict: true });
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

/**
 * `-k -3` and `--alpha -2`: a negative number after an option that takes a value is that value
 * (node's parseArgs calls it ambiguous), so the option's own range check answers (issue 15 item 6).
 */
function joinNegativeValues(argv: string[], options: OptionSpec): string[] {
  const takesValue = new Set<string>();
  for (const [name, o] of Object.entries(options)) {
    if (o.type !== 'string') continue;
    takesValue.add(`--${name}`);
    if (o.short) takesValue.add(`-${o.short}`);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const next = argv[i + 1];
    if (a === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (takesValue.has(a) && next !== undefined && /^-(\d|\.\d)/.test(next)) {
      out.push(`${a.startsWith('--') ? a : `--${longName(a, options)}`}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

function longName(short: string, options: OptionSpec): string {
  return Object.entries(options).find(([, o]) => o.short === short.slice(1))?.[0] ?? short.slice(1);
}
