/**
 * `fairground` entry point: every command (cli/commands/index.ts, each loaded when it runs) over
 * the dispatch of cli/dispatch.ts.
 */
import type { CliCommandEntry, CliIo } from './command';
import { commands as registered } from './commands/index';
import { dispatchCli, processMain } from './dispatch';

export function runCli(argv: string[], io: CliIo, commands: readonly CliCommandEntry[] = registered): Promise<number> {
  return dispatchCli(argv, io, commands);
}

/** Process entry used by bin/fairground.js. */
export function main(): Promise<void> {
  return processMain(registered);
}
