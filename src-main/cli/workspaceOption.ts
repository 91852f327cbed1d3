/** The `--workspace PATH` option every command that touches a workspace accepts. */
import { resolve } from 'node:path';
import { defaultWorkspacePath } from '../store/workspacePath';
import type { CliIo } from './command';

export { WORKSPACE_HELP, workspaceOptionSpec } from './workspaceHelp';

export function resolveWorkspacePath(value: string | undefined, io: CliIo): string {
  if (value) return resolve(io.cwd, value);
  return defaultWorkspacePath(io.env);
}
