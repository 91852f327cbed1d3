import { resolve } from 'node:path';
import { checkOutputTargets, writeOutputTarget, type OutputTarget } from '../io/outputTarget';
import { CliError, type CliIo } from './command';

/** The option every command that writes files accepts (issue 36 item 5). */
export const outputOptionSpec = { 'follow-symlinks': { type: 'boolean' } } as const;

export const OUTPUT_HELP = `      --follow-symlinks    an output path that is a symbolic link: replace the regular file it points to
                           (default: refuse links, as FIFOs, devices, sockets and folders are refused)`;

/**
 * Check every output file of a command (its main file and each sidecar; paths as the user gave them, relative to the
 * working directory) before anything is computed, stored or written; a refusal is a CLI error naming the path.
 */
export function checkOutputs(io: CliIo, given: readonly string[], followSymlinks: boolean | undefined): OutputTarget[] {
  try {
    return checkOutputTargets(
      given.map((g) => ({ path: resolve(io.cwd, g), shown: g })),
      { followSymlinks: followSymlinks === true },
    );
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

/** Write a checked output (atomic, mode kept, checked again just before the rename); a failure is a CLI error. */
export function writeChecked(target: OutputTarget, content: string | Uint8Array): void {
  try {
    writeOutputTarget(target, content);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(code ? `cannot write ${target.shown} (${code})` : (err as Error).message);
  }
}
