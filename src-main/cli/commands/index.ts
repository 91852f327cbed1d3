/**
 * Every `fairground` command. Add a command by creating a file in this folder that exports a
 * `CliCommand` and listing it here (one line each, kept alphabetical by path).
 */
import type { CliCommand } from '../command';

export const commands: CliCommand[] = [
];
