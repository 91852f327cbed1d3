/** Where the app's own files are, whether running from sources, from dist/, or packaged. */
import { accessSync, constants, existsSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, parse, relative, sep } from 'node:path';
import { homedir } from 'node:os';
import { ApiFailure } from '../api/apiFailure';
import { folderConfirmations, type FolderConfirmations } from './folderConfirmations';
import { SecretStore } from './secrets';
import { appConfigDir } from './workspaces/recentWorkspaces';

export { packageRoot, rendererDir, resourcesDir } from './packagePaths';

// ---- path grants (issue 15 item 3) -------------------------------------------------------------

/**
 * Which files a transport may hand to a service by path.
 *
 * - `any`: the CLI — the user typed the path into their own shell.
 * - `folders`: browser mode — regular files under the folders the user allowed in Settings
 *   (the workspace's folder always; more by Settings → Add folder, confirmed with the code the
 *   server prints in its terminal: `requestFolder`, `confirmFolder`).
 * - `grants`: Electron — exactly the files the main process granted: picked in a native dialog
 *   or dropped on the window (the preload turns a dropped File into its path; a page cannot
 *   forge one), plus files under the allowed folders (added in the native folder dialog: `grantFolder`).
 *
 * In both app modes a request may remove allowed folders but never add one
 * (`setAllowedFoldersFromRequest`): a token or a page alone cannot widen what the app may read.
 *
 * In every mode a path is resolved to its real path (symlinks followed) before the check, and
 * only regular files are accepted: never a folder, a device, a FIFO, a socket, or anything under
 * /proc, /sys or /dev (where `stat` calls endless or secret files "regular").
 */
export type PathAccessMode = 'any' | 'folders' | 'grants';

/** Folders whose files are never readable through the API, and which cannot be allowed. */
const SYSTEM_ROOTS = ['/proc', '/sys', '/dev', '/run', '/etc', '/boot', '/var/run', '/private/etc', '/private/var/run'];

export interface BrowseEntry {
  name: string;
  path: string;
  kind: 'file' | 'folder';
  size: number;
  modifiedAt: string;
}

export interface AllowedFolders {
  mode: PathAccessMode;
  /** The workspace's folder (always allowed) first, then the user's folders. */
  folders: string[];
  /** The folders the user added (what `files.setAllowedFolders` sets). */
  userFolders: string[];
}

/** A refused path: `forbidden` (not granted, outside the allowed folders, not a regular file), `validation` or `not-found`. */
export class PathAccessError extends ApiFailure {
  constructor(message: string, field: string, code: 'forbidden' | 'validation' | 'not-found') {
    super(code, message, field);
    this.name = 'PathAccessError';
  }
}

/** What a PathAccess knows of where it runs (tests inject a fake home). */
export interface PathAccessPlaces {
  /** The user's home folder: never allowed as a whole (nor a folder above it). Default: HOME, else os.homedir(). */
  home?: string | null;
  /**
   * The open workspace's file. When its folder is the home folder (or above it), that folder is not allowed; the
   * workspace's own file and its sidecars (`-wal`, `-shm`, `-journal`) are (issue 36 item 2).
   */
  workspaceFile?: string | null;
}

export interface PathAccessStore {
  /** The user's allowed folders as stored (absolute paths). */
  load(): string[];
  save(folders: string[]): void;
}

export class PathAccess {
  private readonly granted = new Set<string>();
  private readonly grantedNew = new Set<string>();
  /** Folders added by a gesture in this session (the folder dialog, a confirmed code). */
  private readonly grantedFolders = new Set<string>();

  constructor(
    readonly mode: PathAccessMode,
    private readonly workspaceFolder: string | null,
    private readonly store: PathAccessStore = memoryStore(),
    /** Never readable through a request, whatever is allowed or granted (privateFolders). */
    private readonly privateRoots: readonly string[] = privateFolders(),
    /** Browser mode's codes printed in the server's terminal (one per process). */
    private readonly confirmations: FolderConfirmations = folderConfirmations(),
    places: PathAccessPlaces = {},
  ) {
    this.home = places.home === undefined ? homeFolder() : places.home;
    const ws = places.workspaceFile ?? null;
    this.workspaceFiles = ws === null ? [] : ['', '-wal', '-shm', '-journal'].map((suffix) => `${ws}${suffix}`);
  }

  private readonly home: string | null;
  private readonly workspaceFiles: readonly string[];

  /**
   * Whether a folder is the home folder or above it (`/home`, `/`): such a folder is never allowed as a whole, so a
   * workspace kept directly in `~` does not open the home folder (issue 36 item 2).
   */
  private coversHome(folder: string): boolean {
    if (this.home === null) return false;
    const home = resolveLoose(this.home);
    const real = resolveLoose(folder);
    return within(home, real) || within(this.home, folder);
  }

  /**
   * The private folder or file (as listed) that `real` is in, if any. Each is resolved now, through symlinks (the
   * nearest existing ancestor for one not made yet), so a config folder that became a symlink after start is still
   * recognised; the listed path itself is compared too.
   */
  private privateRootOf(real: string): string | undefined {
    return this.privateRoots.find((p) => within(real, p) || within(real, resolveLoose(p)));
  }

  /** Grant one file (Electron: picked in a dialog, dropped). Returns its real path. */
  grant(path: string): string {
    const real = this.regularFile(path, 'path');
    this.granted.add(real);
    return real;
  }

  isGranted(path: string): boolean {
    try {
      return this.granted.has(realpathSync(path));
    } catch {
      return false;
    }
  }

  allowedFolders(): AllowedFolders {
    // The home folder (or a folder above it) is never allowed as a whole, whoever stored it (issue 36 item 2).
    const user = this.store.load().filter((f) => isAbsolute(f) && !this.coversHome(f));
    const workspaceFolder = this.workspaceFolder !== null && !this.coversHome(this.workspaceFolder) ? this.workspaceFolder : null;
    const folders = [...(workspaceFolder ? [workspaceFolder] : []), ...user.filter((f) => f !== workspaceFolder)];
    return { mode: this.mode, folders, userFolders: user };
  }

  /**
   * Replace the user's allowed folders; each must be an existing folder outside the system folders,
   * not the filesystem root. Trusted callers only (the CLI, tests): a request goes through
   * `setAllowedFoldersFromRequest`, which adds no folder the user did not add by a gesture.
   */
  setAllowedFolders(folders: readonly string[]): AllowedFolders {
    const out: string[] = [];
    folders.forEach((f, i) => {
      const real = this.checkFolder(f, `folders[${i}]`);
      if (!out.includes(real)) out.push(real);
    });
    this.store.save(out);
    return this.allowedFolders();
  }

  /**
   * `files.setAllowedFolders` (issue 26): a request may remove or reorder the user's folders, but
   * not add one. In the desktop app a folder is added by choosing it in the native folder dialog
   * (`grantFolder`, called by the main process, never by a request); in browser mode by the code
   * printed in the server's terminal (`requestFolder` + `confirmFolder`). Nothing is stored when
   * any folder is refused. The CLI ('any') is the user at their own shell.
   */
  setAllowedFoldersFromRequest(folders: readonly string[]): AllowedFolders {
    if (this.mode === 'any') return this.setAllowedFolders(folders);
    const current = new Set(this.store.load().map((f) => safeRealpath(f) ?? f));
    const out: string[] = [];
    folders.forEach((f, i) => {
      const field = `folders[${i}]`;
      const real = this.checkFolder(f, field);
      if (!current.has(real) && !this.grantedFolders.has(real)) {
        throw new PathAccessError(
          this.mode === 'grants'
            ? `${field}: ${f} was not chosen in the folder dialog; add it with Settings → Add folder… (a request alone cannot widen what the app may read)`
            : `${field}: ${f} was not confirmed with the code printed in the terminal where fairground serve runs; add it with Settings → Add folder (a request alone cannot widen what the app may read)`,
          field,
          'forbidden',
        );
      }
      if (!out.includes(real)) out.push(real);
    });
    this.store.save(out);
    return this.allowedFolders();
  }

  /**
   * The desktop app's folder dialog (issue 26): the folder the user chose becomes an allowed folder
   * (stored, so it follows the user to other workspaces). Called by the main process after
   * `dialog.showOpenDialog`, never by an API request. Returns its real path.
   */
  grantFolder(path: string): string {
    const real = this.checkFolder(path, 'path');
    this.grantedFolders.add(real);
    const stored = this.store.load();
    if (!stored.some((f) => (safeRealpath(f) ?? f) === real)) this.store.save([...stored, real]);
    return real;
  }

  /**
   * Browser mode's first step of adding a folder: the folder is checked, and a one-time code is
   * printed in the terminal where the server runs (folderConfirmations.ts). Nothing is allowed yet.
   */
  requestFolder(path: string): { folder: string; expiresAt: string } {
    if (this.mode === 'grants') throw new PathAccessError('path: in the desktop app folders are added with Settings → Add folder…, which opens the folder dialog', 'path', 'forbidden');
    const real = this.checkFolder(path, 'path');
    if (this.confirmations.locked) throw new PathAccessError('path: too many wrong codes; restart fairground serve to add folders', 'path', 'forbidden');
    const { expiresAt } = this.confirmations.request(real);
    return { folder: real, expiresAt: new Date(expiresAt).toISOString() };
  }

  /** Browser mode's second step: the code from the terminal adds the folder (stored, as the dialog does). */
  confirmFolder(path: string, code: string): AllowedFolders {
    if (this.mode === 'grants') throw new PathAccessError('path: in the desktop app folders are added with Settings → Add folder…, which opens the folder dialog', 'path', 'forbidden');
    const real = this.checkFolder(path, 'path');
    const outcome = this.confirmations.confirm(real, code);
    const why: Record<Exclude<typeof outcome, 'ok'>, [string, string, 'forbidden' | 'validation']> = {
      none: ['path', `no code was asked for ${real}; press Add folder first`, 'validation'],
      expired: ['code', `the code for ${real} expired; press Add folder for a new one`, 'validation'],
      wrong: ['code', `that is not the code printed in the terminal for ${real}`, 'forbidden'],
      locked: ['code', 'too many wrong codes; restart fairground serve to add folders', 'forbidden'],
    };
    if (outcome !== 'ok') {
      const [field, message, errorCode] = why[outcome];
      throw new PathAccessError(`${field}: ${message}`, field, errorCode);
    }
    this.grantedFolders.add(real);
    const stored = this.store.load();
    if (!stored.some((f) => (safeRealpath(f) ?? f) === real)) this.store.save([...stored, real]);
    return this.allowedFolders();
  }

  /** A folder that may be allowed: absolute, existing, not the filesystem root, a system folder or a private one. Its real path. */
  private checkFolder(f: string, field: string): string {
    if (!isAbsolute(f)) throw new PathAccessError(`${field}: the folder must be an absolute path, got '${f}'`, field, 'validation');
    let real: string;
    try {
      real = realpathSync(f);
    } catch {
      throw new PathAccessError(`${field}: no such folder: ${f}`, field, 'not-found');
    }
    if (!statSync(real).isDirectory()) throw new PathAccessError(`${field}: not a folder: ${f}`, field, 'validation');
    if (real === parse(real).root) throw new PathAccessError(`${field}: the filesystem root cannot be allowed; pick the folder that holds your data`, field, 'forbidden');
    if (isSystemPath(real)) throw new PathAccessError(`${field}: system folders (${SYSTEM_ROOTS.join(', ')}) cannot be allowed`, field, 'forbidden');
    const inside = this.privateRootOf(real);
    if (inside !== undefined) throw new PathAccessError(`${field}: ${f} is inside ${inside}, which holds the app's settings or keys and cannot be allowed`, field, 'forbidden');
    if (this.coversHome(real)) {
      throw new PathAccessError(`${field}: ${f} is your home folder${real === this.home ? '' : ' or above it'}, which holds your keys and credentials; it cannot be allowed as a whole: add the folder that holds your data`, field, 'forbidden');
    }
    return real;
  }

  /**
   * The real path of a file a request named, if this transport may read it; otherwise a
   * PathAccessError saying why (not absolute, not a regular file, not granted / outside the
   * allowed folders).
   */
  checkFile(path: string, field = 'path'): string {
    const real = this.regularFile(path, field);
    if (this.mode === 'any') return real;
    if (this.mode === 'grants' && this.granted.has(real)) return real;
    if (this.insideAllowed(real)) return real;
    throw new PathAccessError(
      this.mode === 'grants'
        ? `${field}: ${path} was not chosen in a file dialog or dropped on the window; pick it with the Browse button`
        : `${field}: ${path} is outside the folders this app may read (${this.allowedFolders().folders.join(', ')}); add its folder with Settings → Add folder`,
      field,
      'forbidden',
    );
  }

  /**
   * The path of a file a request wants to create (a new workspace): absolute, a `.fairground` name
   * not taken yet, in an existing folder this transport may write (browser mode: an allowed folder;
   * Electron: a path chosen in a save dialog, `grantNew`). Returns the path with its folder resolved.
   */
  checkNewFile(path: string, field = 'path'): string {
    if (!isAbsolute(path)) throw new PathAccessError(`${field}: expected an absolute path, got '${path}'`, field, 'validation');
    const folder = safeRealpath(dirname(path));
    if (folder === null || !statSync(folder).isDirectory()) throw new PathAccessError(`${field}: no such folder: ${dirname(path)}`, field, 'not-found');
    const target = join(folder, basename(path));
    if (existsSync(target)) throw new PathAccessError(`${field}: ${target} already exists; open it instead`, field, 'validation');
    if (isSystemPath(folder)) throw new PathAccessError(`${field}: system folders (${SYSTEM_ROOTS.join(', ')}) cannot hold a workspace`, field, 'forbidden');
    const inside = this.privateRootOf(target);
    if (inside !== undefined) throw new PathAccessError(`${field}: ${path} is under ${inside}, which holds the app's settings or your keys and credentials; a workspace cannot be created there`, field, 'forbidden');
    if (this.mode === 'any' || this.grantedNew.has(target) || this.insideAllowed(target)) return target;
    throw new PathAccessError(
      this.mode === 'grants'
        ? `${field}: ${path} was not chosen in a save dialog`
        : `${field}: ${folder} is outside the folders this app may write (${this.allowedFolders().folders.join(', ')}); add it with Settings → Add folder`,
      field,
      'forbidden',
    );
  }

  /** Grant a path chosen in a save dialog (Electron) for `checkNewFile`. */
  grantNew(path: string): string {
    const folder = safeRealpath(dirname(path)) ?? dirname(path);
    const target = join(folder, basename(path));
    this.grantedNew.add(target);
    return target;
  }

  /** The folders and regular files directly inside an allowed folder (browser mode's file picker). */
  browse(folder?: string): { path: string; parent: string | null; entries: BrowseEntry[]; truncated: boolean } {
    const roots = this.allowedFolders().folders.map((f) => safeRealpath(f) ?? f);
    const target = folder ?? roots[0];
    if (!target) throw new PathAccessError(this.noFolderMessage(), 'path', 'forbidden');
    if (!isAbsolute(target)) throw new PathAccessError(`path: the folder must be an absolute path, got '${target}'`, 'path', 'validation');
    const real = safeRealpath(target);
    if (!real) throw new PathAccessError(`path: no such folder: ${target}`, 'path', 'not-found');
    if (!roots.some((r) => within(real, r))) throw new PathAccessError(`path: ${target} is outside the allowed folders (${roots.join(', ')})`, 'path', 'forbidden');
    const inside = this.privateRootOf(real);
    if (inside !== undefined) throw new PathAccessError(`path: ${target} is under ${inside}, which holds the app's settings or your keys and credentials`, 'path', 'forbidden');
    if (!statSync(real).isDirectory()) throw new PathAccessError(`path: not a folder: ${target}`, 'path', 'validation');
    const entries: BrowseEntry[] = [];
    const LIMIT = 5000;
    let truncated = false;
    for (const d of readdirSync(real, { withFileTypes: true })) {
      if (d.name.startsWith('.')) continue;
      const p = join(real, d.name);
      let st: Stats;
      try {
        st = statSync(p);
      } catch {
        continue; // a dangling link
      }
      const rp = safeRealpath(p);
      // A link out of the allowed folders is not shown (and would be refused if named).
      if (!rp || !roots.some((r) => within(rp, r))) continue;
      if (this.privateRootOf(rp) !== undefined) continue;
      if (!st.isDirectory() && !st.isFile()) continue;
      if (entries.length >= LIMIT) {
        truncated = true;
        break;
      }
      entries.push({ name: d.name, path: p, kind: st.isDirectory() ? 'folder' : 'file', size: st.isFile() ? st.size : 0, modifiedAt: st.mtime.toISOString() });
    }
    entries.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'folder' ? -1 : 1));
    const parent = dirname(real);
    return { path: real, parent: parent !== real && roots.some((r) => within(parent, r)) ? parent : null, entries, truncated };
  }

  /**
   * Why there is nothing to browse: no folder is allowed. When the workspace is kept in the home folder (or above it)
   * its folder is not allowed (issue 36 item 2), which the user must be told, with what to do instead.
   */
  private noFolderMessage(): string {
    const add = this.mode === 'grants' ? 'Settings → Add folder… (the folder dialog)' : 'Settings → Add folder';
    if (this.workspaceFolder !== null && this.coversHome(this.workspaceFolder)) {
      return `no folder is allowed yet: this workspace is kept in your home folder (${this.workspaceFolder}), which holds your keys and credentials and is never allowed as a whole; add the folder that holds your data with ${add}`;
    }
    return `no folder is allowed yet; add the folder that holds your data with ${add}`;
  }

  private insideAllowed(real: string): boolean {
    if (this.workspaceFiles.some((f) => f === real || resolveLoose(f) === real)) return true;
    return this.allowedFolders().folders.some((f) => {
      const root = safeRealpath(f);
      return root !== null && within(real, root);
    });
  }

  private regularFile(path: string, field: string): string {
    if (typeof path !== 'string' || !isAbsolute(path)) throw new PathAccessError(`${field}: the path must be absolute, got '${path}'`, field, 'validation');
    let real: string;
    try {
      real = realpathSync(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new PathAccessError(`${field}: ${code === 'ENOENT' ? 'no such file' : `cannot read (${code ?? (err as Error).message})`}: ${path}`, field, code === 'ENOENT' ? 'not-found' : 'forbidden');
    }
    if (isSystemPath(real)) throw new PathAccessError(`${field}: ${path} is a system file (under ${SYSTEM_ROOTS.join(', ')}), not a data file`, field, 'forbidden');
    const inside = this.privateRootOf(real);
    if (inside !== undefined) throw new PathAccessError(`${field}: ${path} is under ${inside} (the app's settings and keys, or your keys and credentials), not a data file`, field, 'forbidden');
    const st = statSync(real);
    if (st.isDirectory()) throw new PathAccessError(`${field}: ${path} is a folder, not a file`, field, 'validation');
    if (!st.isFile()) throw new PathAccessError(`${field}: ${path} is not a regular file (a device, pipe or socket)`, field, 'forbidden');
    try {
      accessSync(real, constants.R_OK);
    } catch {
      throw new PathAccessError(`${field}: no permission to read ${path}`, field, 'forbidden');
    }
    return real;
  }
}

/**
 * Credential places under the home folder (issue 36 item 2): keys, cloud, container and cluster credentials, git and
 * package-registry tokens, password stores and browser profiles. Files or folders; most need not exist.
 */
export const HOME_CREDENTIAL_PLACES: readonly string[] = [
  '.ssh', '.gnupg', '.aws', '.docker', '.kube', '.netrc', '.git-credentials', '.config/git/credentials', '.config/gcloud',
  '.azure', '.config/gh', '.config/hub', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pypirc', '.config/pip', '.cargo/credentials',
  '.cargo/credentials.toml', '.gem/credentials', '.m2/settings.xml', '.m2/settings-security.xml', '.gradle/gradle.properties',
  '.pgpass', '.my.cnf', '.vault-token', '.terraform.d', '.config/doctl', '.oci', '.password-store', '.local/share/keyrings',
  '.huggingface', '.cache/huggingface/token', '.config/rclone', '.s3cfg', '.boto', '.mozilla', '.thunderbird',
  '.config/google-chrome', '.config/chromium', '.config/BraveSoftware', '.config/microsoft-edge', '.config/vivaldi',
  '.bash_history', '.zsh_history', '.python_history', '.psql_history', '.mysql_history',
  'Library/Keychains', 'Library/Application Support/Google/Chrome', 'Library/Application Support/Firefox',
  'Library/Application Support/BraveSoftware', 'Library/Cookies',
];

/** The home folder: HOME when set, else the operating system's answer. */
export function homeFolder(env: Record<string, string | undefined> = process.env): string {
  return env.HOME && isAbsolute(env.HOME) ? env.HOME : homedir();
}

/**
 * Folders and files no request may read, browse, allow or create a workspace in, even inside an allowed folder
 * (issues 26 and 36): the app's own settings (allowed folders, recent workspaces), the folder of the key that seals
 * stored API keys, and the credential places in the home folder (HOME_CREDENTIAL_PLACES). Listed as paths; PathAccess
 * resolves them through symlinks at every check.
 */
export function privateFolders(env: Record<string, string | undefined> = process.env, home: string = homeFolder(env)): string[] {
  const folders = [appConfigDir(env, process.platform, home), dirname(new SecretStore(null, env).keyFile()), ...HOME_CREDENTIAL_PLACES.map((p) => join(home, p))];
  return [...new Set(folders)];
}

export function isSystemPath(real: string): boolean {
  return SYSTEM_ROOTS.some((r) => within(real, r));
}

/**
 * Whether `path` is `root` or inside it, by path components, never by string prefix: `/x/ws-evil` is not inside
 * `/x/ws`, and `/x/ws/..data/f` is (a folder whose name starts with `..` is not the parent).
 */
export function isWithinFolder(path: string, root: string): boolean {
  if (path === root) return true;
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
const within = isWithinFolder;

/**
 * The real path of `p`, through symlinks: its own when it exists, else its nearest existing ancestor's joined with
 * the rest (a path not made yet), so a link anywhere above it is followed.
 */
export function resolveLoose(p: string): string {
  const rest: string[] = [];
  let at = p;
  for (;;) {
    const real = safeRealpath(at);
    if (real !== null) return rest.length === 0 ? real : join(real, ...rest.reverse());
    const up = dirname(at);
    if (up === at) return p;
    rest.push(basename(at));
    at = up;
  }
}

function safeRealpath(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

function memoryStore(): PathAccessStore {
  let folders: string[] = [];
  return { load: () => folders, save: (f) => void (folders = [...f]) };
}
