/**
 * Where an output file (`-o FILE`, an export, a manifest, a sidecar) may be written, and the one way every writer
 * writes it (issue 26 item 5, issue 36 item 5): a temporary sibling, then a rename.
 *
 * A rename replaces whatever is at the path, so it is only safe over nothing or a regular file: a FIFO, a device node
 * (`/dev/full`, as root), a socket or a folder would be replaced by a plain file and the command would report success.
 * Those are refused, naming the path. A symbolic link is refused too (a link planted at an output path would otherwise
 * redirect the write), unless the user asks to follow links (`--follow-symlinks`): then the file it points to is
 * replaced and the link stays (a link to something that is not a regular file, or to nothing, is still refused).
 *
 * A writer with several files (the main file and its sidecars) checks them all with `checkOutputTargets` before it
 * computes, stores or writes anything. A replaced file keeps its permission bits (a 0600 file stays 0600).
 */
import { closeSync, fchmodSync, lstatSync, openSync, realpathSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface OutputTargetOptions {
  /** Write through a symbolic link at the path (the linked regular file is replaced; the link stays). Default: refuse links. */
  followSymlinks?: boolean;
}

/** A checked output path. */
export interface OutputTarget {
  /** The path as checked (absolute, or as the caller gave it). */
  readonly path: string;
  /** The path as the user gave it, for messages. */
  readonly shown: string;
  /** The path the finished file is renamed onto: `path`, or the linked file when following a link. */
  readonly dest: string;
  /** Permission bits of the regular file that will be replaced (kept on the new file); null when nothing is there. */
  readonly mode: number | null;
  readonly options: OutputTargetOptions;
}

function kindOf(st: Stats): string {
  if (st.isDirectory()) return 'a folder';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/**
 * Check one output path: nothing there or a regular file (or, with `followSymlinks`, a link to a regular file).
 * Throws, naming `shown` (the path as the user gave it), for anything else; nothing is written or removed.
 */
export function checkOutputTarget(path: string, shown: string = path, options: OutputTargetOptions = {}): OutputTarget {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { path, shown, dest: path, mode: null, options };
    throw err;
  }
  if (st.isFile()) return { path, shown, dest: path, mode: st.mode & 0o7777, options };
  if (st.isSymbolicLink()) {
    if (!options.followSymlinks) {
      throw new Error(`${shown} is a symbolic link; refusing to write through it (give the real path, or pass --follow-symlinks to replace the file it points to)`);
    }
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new Error(`${shown} is a symbolic link to a missing file; refusing to write through it (give the real path)`);
    }
    const rs = statSync(real);
    if (!rs.isFile()) throw new Error(`${shown} is a symbolic link to ${kindOf(rs)} (${real}); output is written only to regular files, never over anything else`);
    return { path, shown, dest: real, mode: rs.mode & 0o7777, options };
  }
  throw new Error(`${shown} is ${kindOf(st)}, not a regular file; refusing to replace it (output is written only to regular files)`);
}

/**
 * Check every file a writer will produce (its main file and each sidecar) before anything is written: the first
 * refusal throws. Two entries naming the same file are refused as well (one would overwrite the other).
 */
export function checkOutputTargets(targets: readonly { path: string; shown?: string }[], options: OutputTargetOptions = {}): OutputTarget[] {
  const checked = targets.map((t) => checkOutputTarget(t.path, t.shown ?? t.path, options));
  const seen = new Map<string, string>();
  for (const t of checked) {
    const other = seen.get(t.dest);
    if (other !== undefined) throw new Error(`${t.shown} and ${other} are the same file; refusing to write both`);
    seen.set(t.dest, t.shown);
  }
  return checked;
}

/** The path the finished output is renamed onto (kept for callers that only need the check). */
export function outputTargetPath(path: string, shown: string = path, options: OutputTargetOptions = {}): string {
  return checkOutputTarget(path, shown, options).dest;
}

/** A temporary sibling being written; `commit` renames it onto the target, `abort` removes it. */
export interface PartialOutput {
  readonly path: string;
  readonly fd: number;
  write(bytes: string | Uint8Array): void;
  /** Close, check the target again (something may have appeared there meanwhile), rename into place. */
  commit(): void;
  /** Close and remove the temporary file (idempotent; never throws for a file already gone). */
  abort(): void;
}

/**
 * Open a temporary sibling of `target.dest` (created exclusively, with the replaced file's mode when there was one).
 * The caller writes, then commits or aborts.
 */
export function openPartialOutput(target: OutputTarget): PartialOutput {
  const tmp = join(dirname(target.dest), `.${basename(target.dest)}.${process.pid}-${Math.random().toString(36).slice(2)}.partial`);
  const fd = openSync(tmp, 'wx', target.mode ?? 0o666);
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    closeSync(fd);
  };
  try {
    // The mode given to open() is reduced by the umask; the replaced file's bits are set exactly.
    if (target.mode !== null) fchmodSync(fd, target.mode);
  } catch (err) {
    close();
    rmSync(tmp, { force: true });
    throw err;
  }
  return {
    path: tmp,
    fd,
    write(bytes) {
      const buf = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
      for (let at = 0; at < buf.length; ) at += writeSync(fd, buf, at, buf.length - at);
    },
    commit() {
      try {
        close();
      } catch (err) {
        rmSync(tmp, { force: true });
        throw err;
      }
      commitOutputFile(target, tmp);
    },
    abort() {
      try {
        close();
      } finally {
        rmSync(tmp, { force: true });
      }
    },
  };
}

/**
 * Rename a finished temporary file (written by a writer of its own, e.g. the GGUF writer) onto a checked target: the
 * target is checked again first (something may have appeared there meanwhile), and the temporary file is removed when
 * it is refused.
 */
export function commitOutputFile(target: OutputTarget, tmp: string): void {
  try {
    const again = checkOutputTarget(target.path, target.shown, target.options);
    renameSync(tmp, again.dest);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Write `content` to a checked target atomically (temporary sibling, then rename), keeping the replaced file's mode. */
export function writeOutputTarget(target: OutputTarget, content: string | Uint8Array): void {
  const partial = openPartialOutput(target);
  try {
    partial.write(content);
  } catch (err) {
    partial.abort();
    throw err;
  }
  partial.commit();
}

/**
 * Check `path` and write `content` there atomically and only over nothing or a regular file: a temporary sibling
 * renamed into place. Throws, naming `shown`, before anything is written when the target is refused.
 */
export function writeOutputFile(path: string, content: string | Uint8Array, shown: string = path, options: OutputTargetOptions = {}): void {
  writeOutputTarget(checkOutputTarget(path, shown, options), content);
}
