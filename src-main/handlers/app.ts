import { availableParallelism } from 'node:os';
import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';
import { APP_VERSION } from '../services/version';

type AppHandlers = Pick<Handlers, 'app.info' | 'app.startup' | 'workspace.info' | 'settings.get' | 'settings.update' | 'files.allowedFolders' | 'files.setAllowedFolders' | 'files.requestFolder' | 'files.confirmFolder' | 'files.browse'>;

export function appHandlers(s: AppServices): AppHandlers {
  return {
    'app.info': () => ({
      name: 'Fairground' as const,
      version: APP_VERSION,
      transport: s.transport,
      platform: `${process.platform}-${process.arch}`,
      node: process.versions.node,
      ...(process.versions.electron ? { electron: process.versions.electron } : {}),
      cpuCount: availableParallelism(),
    }),
    // Answered before the workspace is open by serve's opening host (host/openingHost.ts); here it is open.
    'app.startup': () => ({ state: 'ready' as const, step: 'ready', elapsedMs: 0 }),
    'workspace.info': () => s.workspaceService.info(),
    'settings.get': () => s.settings.get(),
    'settings.update': (patch) => s.settings.update(patch),
    'files.allowedFolders': () => s.paths.allowedFolders(),
    // A request never adds a folder by itself (issue 26): see PathAccess.setAllowedFoldersFromRequest.
    'files.setAllowedFolders': ({ folders }) => s.paths.setAllowedFoldersFromRequest(folders),
    'files.requestFolder': ({ path }) => s.paths.requestFolder(path),
    'files.confirmFolder': ({ path, code }) => s.paths.confirmFolder(path, code),
    'files.browse': ({ path }) => s.paths.browse(path),
  };
}
