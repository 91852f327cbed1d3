/**
 * The shape every `fairground` command has. Commands live one per file under `cli/commands/` and
 * are listed in `cli/commands/index.ts`. A command reads files and writes to the injected streams
 * (never `process.stdout` directly) so tests can run it in-process.
 */
import type { Readable, Writable } from 'node:stream';

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  cwd: string;
  env: Record<string, string | undefined>;
}

export interface CliCommand {
  /** Words that select the command, e.g. `['eval', 'ir']`. */
  path: readonly string[];
  /** One line shown in `fairground --help`. */
  summary: string;
  /** Full `--help` text: usage line, options, an example. */
  help: string;
  /** Returns the process exit code. Throw `CliError` for a one-line reason and exit code 2. */
  run(argv: string[], io: CliIo): Promise<number>;
}

/**
 * A command as `cli/commands/index.ts` lists it: its words and summary (enough for `fairground
 * --help` and group listings), and a loader that imports its module only when it runs or prints
 * its own --help, so start-up does not load every command's dependencies (issue 18).
 */
export interface LazyCliCommand {
  path: readonly string[];
  summary: string;
  load(): Promise<CliCommand>;
  /**
   * A short-lived command that streams its input files and keeps little: the `fairground` process
   * keeps V8's young generation at its initial size for it (see cli/main.ts `main`), which halves
   * its peak memory (issue 18: `eval ir` on 500k lines 110 → 70 MiB) at no cost in time.
   */
  streaming?: true;
}

/** What `runCli` accepts: loaded commands (tests pass these) or lazily loaded ones. */
export type CliCommandEntry = CliCommand | LazyCliCommand;

/**
 * Exit codes of every command (docs/cli.md): 0 success; 1 a failure; 2 bad input or
 * options; 75 (sysexits EX_TEMPFAIL) cancelled with its work kept, run the same command again to
 * resume; 130 (128 + SIGINT) interrupted by Ctrl-C (work kept and resumable as well).
 */
export const EXIT = { ok: 0, failure: 1, usage: 2, cancelledResumable: 75, interrupted: 130 } as const;

/** An error whose message is printed as one line `fairground: <message>` and exits non-zero. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
