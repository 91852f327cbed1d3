/**
 * The process entry of `fairground eval ir` alone (issue 25 item 4). scripts/build.mjs bundles it
 * into one file, dist/main/evalIrMain.js, which bin/fairground.js runs for `fairground eval ir …`:
 * one module to resolve and compile instead of the CLI, its command list and a dozen chunks, for
 * a command whose whole run is often shorter than Node's module loading. Same dispatch, help and
 * errors as the full CLI (cli/dispatch.ts).
 */
import type { CliCommand, CliCommandEntry } from './command';
import { evalIrCommand } from './commands/evalIr';
import { processMain } from './dispatch';

const entry: CliCommand & { streaming: true } = { ...evalIrCommand, streaming: true };
const commands: readonly CliCommandEntry[] = [entry];

export function main(): Promise<void> {
  return processMain(commands);
}
