import { z } from 'zod';
import { Empty, lazyMethods, method } from './define';

export const Theme = z.enum(['system', 'light', 'dark']);

export const Settings = z.object({
  theme: Theme,
  /** llama.cpp threads; 0 = physical cores of this machine. */
  threads: z.number().int().min(0).max(512),
  /** Rows per page in result tables. */
  pageSize: z.number().int().min(10).max(10_000),
});
export type Settings = z.infer<typeof Settings>;

export const SettingsPatch = Settings.partial().strict();

export const AppInfo = z.object({
  name: z.literal('Fairground'),
  version: z.string(),
  transport: z.enum(['electron', 'http']),
  platform: z.string(),
  node: z.string(),
  electron: z.string().optional(),
  cpuCount: z.number().int(),
});

export const WorkspaceInfo = z.object({
  path: z.string(),
  schemaVersion: z.number().int(),
  latestSchemaVersion: z.number().int(),
  sizeBytes: z.number().int(),
  counts: z.record(z.string(), z.number().int()),
});

/** Whether the workspace is still opening behind the first paint (issue 25 item 2; `fairground serve`). */
export const StartupState = z.object({
  state: z.enum(['opening', 'ready', 'failed']),
  /** What the opening is doing now (or did last). */
  step: z.string(),
  /** Milliseconds since the opening began (its whole duration once done). */
  elapsedMs: z.number().int().min(0),
  /** Why the workspace could not be opened (state 'failed'). */
  error: z.string().optional(),
});

/** Which files API requests may name (issue 15 item 3; services/paths.ts). */
export const AllowedFolders = z.object({
  /** 'folders': browser mode (files under `folders`); 'grants': Electron (files picked in a dialog or dropped, and files under `folders`); 'any': CLI. */
  mode: z.enum(['any', 'folders', 'grants']),
  /** The workspace's folder (always allowed) first, then the user's folders. */
  folders: z.array(z.string()),
  /** The folders the user added in Settings. */
  userFolders: z.array(z.string()),
});

/** A folder asked for in browser mode, waiting for the code printed in the server's terminal. */
export const FolderRequest = z.object({
  /** The folder's real path (what the terminal names). */
  folder: z.string(),
  /** When the code stops working (ISO time). */
  expiresAt: z.string(),
});

export const FolderListing = z.object({
  /** The folder listed (real path). */
  path: z.string(),
  /** Its parent when that is still inside an allowed folder, else null. */
  parent: z.string().nullable(),
  entries: z.array(
    z.object({ name: z.string(), path: z.string(), kind: z.enum(['file', 'folder']), size: z.number().int(), modifiedAt: z.string() }),
  ),
  /** More than 5,000 entries: the rest are not listed. */
  truncated: z.boolean(),
});

export const appContract = lazyMethods(() => ({
  'files.allowedFolders': method(Empty, AllowedFolders, 'The folders whose files API requests may name (browser mode); the workspace folder is always one.'),
  'files.setAllowedFolders': method(
    z.object({ folders: z.array(z.string().min(1).max(4096)).max(100) }).strict(),
    AllowedFolders,
    'Remove or reorder the user’s allowed folders. A request cannot add one (issue 26): the desktop app adds folders through its native folder dialog, browser mode through files.requestFolder + files.confirmFolder.',
  ),
  'files.requestFolder': method(
    z.object({ path: z.string().min(1).max(4096) }).strict(),
    FolderRequest,
    'Browser mode: ask to allow a folder; the server prints a one-time code in the terminal where `fairground serve` runs (nothing is allowed yet).',
  ),
  'files.confirmFolder': method(
    z.object({ path: z.string().min(1).max(4096), code: z.string().min(1).max(20) }).strict(),
    AllowedFolders,
    'Browser mode: allow the folder asked for with files.requestFolder, given the code printed in the server’s terminal.',
  ),
  'files.browse': method(
    z.object({ path: z.string().min(1).max(4096).optional() }).strict(),
    FolderListing,
    'The folders and regular files in an allowed folder (default: the workspace folder), for a path field’s file picker.',
  ),
  'app.info': method(Empty, AppInfo, 'Version and runtime of the running app.'),
  'app.startup': method(Empty, StartupState, 'Whether the workspace is open yet: browser mode serves the app first and opens the workspace behind it; other calls wait until it is open.'),
  'workspace.info': method(Empty, WorkspaceInfo, 'The open workspace: path, schema, size and row counts.'),
  'settings.get': method(Empty, Settings, 'All settings with defaults filled in.'),
  'settings.update': method(SettingsPatch, Settings, 'Change some settings; returns all settings.'),
}));
