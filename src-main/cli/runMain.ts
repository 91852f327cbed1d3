/**
 * The process entry of `fairground run` alone (issue 25). scripts/build.mjs bundles it into one
 * file, dist/main/runMain.js, which bin/fairground.js runs for `fairground run …`: one module to
 * resolve, link and compile instead of the CLI, its command list and some seventy chunks. Same
 * dispatch, help and errors as the full CLI (cli/dispatch.ts).
 */
import type { CliCommandEntry } from './command';
import { runCommand } from './commands/run';
import { processMain } from './dispatch';

const commands: readonly CliCommandEntry[] = [runCommand];

export function main(): Promise<void> {
  return processMain(commands);
}
