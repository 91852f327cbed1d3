/** The `--workspace PATH` option every command that touches a workspace accepts. */
import { resolve } from 'node:path';
import { defaultWorkspacePath } from '../store/workspace';
import type { CliIo } from './command';

export const workspaceOptionSpec = { workspace: { type: 'string' as const, short: 'w' } };

export const WORKSPACE_HELP = `  -w, --workspace PATH   workspace file (default: $FAIRGROUND_WORKSPACE, else the user data folder)`;

export function resolveWorkspacePath(value: string | undefined, io: CliIo): string {
  if (value) return resolve(io.cwd, value);
  return defaultWorkspacePath(io.env);
}
