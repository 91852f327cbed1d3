/** The app's services for a CLI command that needs several of them (opens an existing workspace). */
import type { CliIo } from '../command';
import { CliError } from '../command';
import { resolveWorkspacePath } from '../workspaceOption';
import { createAppServices, type AppServices } from '../../services/appServices';
import { inspectWorkspace } from '../../store/workspace';

export function createCliAppServices(workspace: string | undefined, io: CliIo): AppServices {
  const path = resolveWorkspacePath(workspace, io);
  if (!inspectWorkspace(path).exists) throw new CliError(`no workspace at ${path} (create one with 'fairground workspace init')`);
  // The user typed these paths into their own shell: no path grants (issue 15) for the CLI.
  return createAppServices(path, { transport: 'http', markInterrupted: false, pathAccess: 'any' });
}
