import { z } from 'zod';
import { Empty, method } from './define';

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

export const appContract = {
  'app.info': method(Empty, AppInfo, 'Version and runtime of the running app.'),
  'workspace.info': method(Empty, WorkspaceInfo, 'The open workspace: path, schema, size and row counts.'),
  'settings.get': method(Empty, Settings, 'All settings with defaults filled in.'),
  'settings.update': method(SettingsPatch, Settings, 'Change some settings; returns all settings.'),
};
