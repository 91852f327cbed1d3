/**
 * Runs `fairground` commands in-process (runCli) on fuzzed input files and checks the contract of
 * bad input: the command either succeeds or exits 2 with exactly one stderr line
 * `fairground <command>: <file>[:<line>]: <reason>` — never exit 1 (an unexpected exception),
 * never a stack trace, never a hang.
 */
import { accessSync, constants, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { runCli } from '../../src-main/cli/main';
import { createMutator, type FuzzCase } from '../support/fuzz';

/**
 * A temp folder in memory when the machine has one (/dev/shm): fuzz cases commit thousands of
 * small transactions with synchronous=FULL, and fsync on a disk would make them 3x slower
 * without testing anything more (durability is tested by the stress tests, on disk).
 */
export function fastTmpDir(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

export async function cli(argv: string[], cwd: string): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const t0 = performance.now();
  const code = await runCli(argv, { stdout, stderr, stdin: new PassThrough(), cwd, env: {} });
  return { code, stdout: out, stderr: err, ms: performance.now() - t0 };
}

export interface CheckOptions {
  /** The fuzzed file as given on the command line: a failure must name it. */
  file: string;
  /** Line-based format: a failure about the content should name `file:LINE`. */
  lineBased: boolean;
  /** Reasons that concern the whole file (no line to name), e.g. /no scores/. */
  wholeFile?: RegExp;
  /**
   * Errors about the combination of inputs that point at another input instead (e.g. a run line
   * whose document the qrels lack); they need not name the fuzzed file.
   */
  elsewhere?: RegExp;
  /**
   * The command prints progress lines on stderr before it fails (`fairground run`): only the last
   * line must be the error; exit 1 is then accepted for an `elsewhere` failure (a run that failed).
   */
  progressLines?: boolean;
  /** Slowest acceptable case. */
  maxMs?: number;
}

/** Problems with one case's result, empty when it keeps the contract. */
export function contractProblems(r: CliResult, opts: CheckOptions): string[] {
  const problems: string[] = [];
  if (r.ms > (opts.maxMs ?? 10_000)) problems.push(`took ${r.ms.toFixed(0)} ms`);
  if (/^\s+at .+[:(]/m.test(r.stderr)) problems.push('stack trace on stderr');
  if (r.code === 0) return problems;
  // An import that takes over a second (a huge line on a loaded machine) prints "42% read 3 of 7
  // lines" before it fails: progress, not a second error line.
  const lines = r.stderr
    .replace(/\n$/, '')
    .split('\n')
    .filter((l, i, all) => i === all.length - 1 || !/^\d+% (read \S+ of \S+ lines|writing)$/.test(l));
  const last = lines[lines.length - 1] ?? '';
  const failedElsewhere = opts.elsewhere?.test(last) ?? false;
  if (r.code !== 2 && !(opts.progressLines && failedElsewhere && r.code === 1)) problems.push(`exit ${r.code} (an unexpected exception, not a data error)`);
  if (lines.length !== 1 && !opts.progressLines) problems.push(`stderr has ${lines.length} lines`);
  if (!last.startsWith('fairground ')) problems.push('stderr does not start with "fairground "');
  if (failedElsewhere) return problems;
  if (!last.includes(opts.file)) problems.push('the error does not name the file');
  else if (opts.lineBased && !new RegExp(`${escapeRegExp(opts.file)}:\\d+: `).test(last) && !(opts.wholeFile?.test(last) ?? false)) {
    problems.push('the error names no line');
  }
  return problems;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface FuzzTarget {
  /** Label and seed of the run. */
  name: string;
  seed: number;
  cases: number;
  /** The valid file that gets mutated. */
  valid: Buffer | string;
  json?: 'document' | 'lines';
  /** File name of the mutated input (the extension matters to some readers). */
  fileName: (i: number) => string;
  /** The command line for a case whose mutated input is `file` (relative to `dir`). */
  argv: (file: string) => string[];
  check: Omit<CheckOptions, 'file'>;
  hugeLineRate?: number;
}

export interface FuzzOutcome {
  ok: number;
  failed: number;
  violations: string[];
  /** A few failure lines, for eyeballing the messages. */
  samples: string[];
  slowestMs: number;
}

/** Runs `cases` mutated inputs of one target in `dir`; returns the violations (empty = contract kept). */
export async function fuzzCli(dir: string, t: FuzzTarget): Promise<FuzzOutcome> {
  const mutator = createMutator(t.seed, { hugeLineRate: t.hugeLineRate ?? 0.03 });
  const valid = typeof t.valid === 'string' ? Buffer.from(t.valid) : t.valid;
  const out: FuzzOutcome = { ok: 0, failed: 0, violations: [], samples: [], slowestMs: 0 };
  for (let i = 0; i < t.cases; i++) {
    const c: FuzzCase = mutator.next(valid, t.json ? { json: t.json } : {});
    const file = t.fileName(i);
    writeFileSync(join(dir, file), c.bytes);
    const r = await cli(t.argv(file), dir);
    out.slowestMs = Math.max(out.slowestMs, r.ms);
    if (r.code === 0) out.ok++;
    else {
      out.failed++;
      if (out.samples.length < 6) out.samples.push(r.stderr.trim().slice(0, 300));
    }
    const problems = contractProblems(r, { ...t.check, file });
    if (problems.length) {
      out.violations.push(`${t.name} #${i} [${c.name.slice(0, 120)}]: ${problems.join('; ')} — exit ${r.code}, stderr: ${JSON.stringify(r.stderr.slice(0, 400))}`);
    }
  }
  return out;
}
