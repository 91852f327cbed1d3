/**
 * Workspaces (issue 17 item 5): which one is open, the recent ones (kept in the app's settings,
 * outside any workspace), and switching — Open an existing `.fairground` file or create a New one —
 * without restarting the app.
 */
import { z } from 'zod';
import { Empty, lazyMethods, method } from './define';

export const WorkspaceRef = z.object({ path: z.string(), name: z.string() });
export const RecentWorkspace = z.object({ path: z.string(), name: z.string(), openedAt: z.string(), exists: z.boolean() });
const PathInput = z.object({ path: z.string().trim().min(1).max(4096) }).strict();

export const workspacesContract = lazyMethods(() => ({
  'workspaces.current': method(Empty, WorkspaceRef, 'The workspace open now.'),
  'workspaces.recent': method(Empty, z.array(RecentWorkspace), 'Recently opened workspaces, newest first (a moved or deleted file is marked, not dropped).'),
  'workspaces.forget': method(PathInput, z.array(RecentWorkspace), 'Drop a workspace from the recent list (the file is untouched).'),
  'workspaces.open': method(
    PathInput,
    WorkspaceRef,
    'Switch to an existing workspace file (chosen in a dialog in Electron; inside an allowed folder in browser mode). Refused while jobs run.',
  ),
  'workspaces.create': method(PathInput, WorkspaceRef, 'Create a new empty workspace (a .fairground file in a folder the app may write) and switch to it.'),
}));
