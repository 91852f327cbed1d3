/**
 * Recently opened workspaces (issue 17 item 5), kept in the app's own settings — a JSON file in the
 * per-user config folder, outside any workspace — so the list survives switching and reinstalling a
 * workspace. Written atomically (temporary file + rename); a damaged file is set aside as
 * `recent-workspaces.json.damaged` and the list starts empty rather than failing the app.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join, resolve } from 'node:path';

export const RECENT_LIMIT = 10;

export interface RecentWorkspace {
  path: string;
  /** The file name without `.fairground`. */
  name: string;
  openedAt: string;
  /** Whether the file is still there (a moved or deleted workspace stays listed, marked). */
  exists: boolean;
}

/** The per-user folder of the app's own settings (not a workspace's). */
export function appConfigDir(env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform, home: string = homedir()): string {
  if (env.FAIRGROUND_CONFIG_DIR) return resolve(env.FAIRGROUND_CONFIG_DIR);
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'Fairground');
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Fairground', 'Settings');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'fairground');
}

export function workspaceName(path: string): string {
  return basename(path).replace(/\.fairground$/i, '');
}

export class RecentWorkspaces {
  readonly file: string;

  constructor(folder: string = appConfigDir()) {
    this.file = join(folder, 'recent-workspaces.json');
  }

  list(): RecentWorkspace[] {
    return this.load().map((r) => ({ ...r, name: workspaceName(r.path), exists: existsSync(r.path) }));
  }

  /** Put `path` first (opened now); keeps the newest RECENT_LIMIT. */
  touch(path: string, now: Date = new Date()): RecentWorkspace[] {
    const abs = resolve(path);
    const rest = this.load().filter((r) => r.path !== abs);
    this.save([{ path: abs, openedAt: now.toISOString() }, ...rest].slice(0, RECENT_LIMIT));
    return this.list();
  }

  remove(path: string): RecentWorkspace[] {
    const abs = resolve(path);
    this.save(this.load().filter((r) => r.path !== abs));
    return this.list();
  }

  private load(): { path: string; openedAt: string }[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (!Array.isArray(parsed)) throw new Error('not a list');
      return parsed.filter(
        (r): r is { path: string; openedAt: string } => typeof r === 'object' && r !== null && typeof (r as { path?: unknown }).path === 'string' && typeof (r as { openedAt?: unknown }).openedAt === 'string',
      );
    } catch {
      try {
        renameSync(this.file, `${this.file}.damaged`);
      } catch {
        // Nothing to set aside.
      }
      return [];
    }
  }

  private save(list: { path: string; openedAt: string }[]): void {
    mkdirSync(join(this.file, '..'), { recursive: true });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(list, null, 2)}\n`);
    renameSync(tmp, this.file);
  }
}
