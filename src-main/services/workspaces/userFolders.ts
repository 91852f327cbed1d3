/**
 * The user's allowed folders (issue 26 item 3) follow the user, not the workspace file: kept in the
 * app's own config folder (`allowed-folders.json` beside `recent-workspaces.json`), so switching to
 * another workspace (Settings → Recent) keeps them, and a workspace file received from someone else
 * grants nothing. The first time (no file yet) the list of the workspace open then is adopted
 * once, so folders a user added before this change are kept — only for a workspace already in the
 * user's Recent list (appServices' `adoptableFolders`), never for a file received from someone else. Written atomically; a damaged file is
 * set aside as `allowed-folders.json.damaged` and the list starts empty.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PathAccessStore } from '../paths';
import { appConfigDir } from './recentWorkspaces';

export function userFoldersFile(folder: string = appConfigDir()): string {
  return join(folder, 'allowed-folders.json');
}

export function userFoldersStore(file: string, adoptOnce?: PathAccessStore): PathAccessStore {
  const save = (folders: string[]): void => {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(folders, null, 2)}\n`);
    renameSync(tmp, file);
  };
  return {
    load() {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        const adopted = adoptOnce?.load() ?? [];
        if (adopted.length > 0) {
          try {
            save(adopted);
          } catch {
            // An unwritable config folder: the adopted list still answers now.
          }
        }
        return adopted;
      }
      try {
        const v = JSON.parse(text) as unknown;
        if (!Array.isArray(v)) throw new Error('not a list');
        return v.filter((f): f is string => typeof f === 'string');
      } catch {
        try {
          renameSync(file, `${file}.damaged`);
        } catch {
          // Nothing to set aside.
        }
        return [];
      }
    },
    save,
  };
}
