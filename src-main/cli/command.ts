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
