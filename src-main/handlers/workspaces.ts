import { ApiFailure, type Handlers } from '../api/router';
import type { AppServices } from '../services/appServices';
import { workspaceName } from '../services/workspaces/recentWorkspaces';
import type { WorkspaceSwitcher } from '../services/workspaces/workspaceSession';

type WorkspaceMethods = 'workspaces.current' | 'workspaces.recent' | 'workspaces.forget' | 'workspaces.open' | 'workspaces.create';

/** Issue 17 item 5. Without a switcher (a router made for one workspace) only `current` answers. */
export function workspaceHandlers(s: AppServices, switcher?: WorkspaceSwitcher): Pick<Handlers, WorkspaceMethods> {
  const need = (): WorkspaceSwitcher => {
    if (!switcher) throw new ApiFailure('conflict', 'this app was started for one workspace; switching needs the desktop app or `fairground serve`');
    return switcher;
  };
  return {
    'workspaces.current': () => switcher?.current() ?? { path: s.workspace.path, name: workspaceName(s.workspace.path) },
    'workspaces.recent': () => switcher?.recent() ?? [],
    'workspaces.forget': ({ path }) => need().forget(path),
    'workspaces.open': ({ path }) => need().open(path),
    'workspaces.create': ({ path }) => need().create(path),
  };
}
