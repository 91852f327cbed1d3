/**
 * The default workspace file, apart from workspace.ts (which loads SQLite) so that what only needs
 * the path — `fairground serve` before its first paint, the log folder — does not load the database
 * (issue 25 item 2).
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where the workspace lives when no `--workspace` is given: the user's data folder, per platform. */
export function defaultWorkspacePath(
  env: Record<string, string | undefined> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.FAIRGROUND_WORKSPACE) return resolve(env.FAIRGROUND_WORKSPACE);
  let dataDir: string;
  if (platform === 'darwin') dataDir = join(home, 'Library', 'Application Support', 'Fairground');
  else if (platform === 'win32') dataDir = join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Fairground');
  else dataDir = join(env.XDG_DATA_HOME ?? join(home, '.local', 'share'), 'fairground');
  return join(dataDir, 'workspace.fairground');
}
