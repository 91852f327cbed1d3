/** Run a `fairground` command in-process with captured output (tests). */
import { PassThrough } from 'node:stream';
import type { CliCommand } from '../../src-main/cli/command';
import { runCli } from '../../src-main/cli/main';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd: string;
  /** Restrict the command table (so a broken neighbour cannot fail a command's own tests). */
  commands?: CliCommand[];
  env?: Record<string, string | undefined>;
  stdin?: string;
}

export async function runCliCaptured(argv: string[], opts: RunOptions): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  stdin.end(opts.stdin ?? '');
  const code = await runCli(argv, { stdout, stderr, stdin, cwd: opts.cwd, env: opts.env ?? {} }, ...(opts.commands ? [opts.commands] : []));
  return { code, stdout: out, stderr: err };
}
