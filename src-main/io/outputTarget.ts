/**
 * Where an output file (`-o FILE`, an export, a manifest) may be written atomically (temporary sibling, then rename).
 *
 * A rename replaces whatever is at the path, so it is only safe over nothing or a regular file: a FIFO, a device node
 * (`/dev/full`, as root), a socket or a folder would be replaced by a plain file and the command would report success.
 * Those are refused, naming the path. A symbolic link is written through: the file it points to is replaced, the link
 * stays (a link to something that is not a regular file, or to nothing, is refused).
 */
import { lstatSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';

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
 * The path to rename the finished output onto: `target` itself when nothing or a regular file is there, the linked
 * regular file when `target` is a symbolic link to one. Throws (naming `shown`, the path as the user gave it) for
 * anything else; nothing is written or removed.
 */
export function outputTargetPath(target: string, shown: string = target): string {
  let st: Stats;
  try {
    st = lstatSync(target);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return target;
    throw err;
  }
  if (st.isFile()) return target;
  if (st.isSymbolicLink()) {
    let real: string;
    try {
      real = realpathSync(target);
    } catch {
      throw new Error(`${shown} is a symbolic link to a missing file; refusing to write through it (give the real path)`);
    }
    const rs = statSync(real);
    if (!rs.isFile()) throw new Error(`${shown} is a symbolic link to ${kindOf(rs)} (${real}); output is written only to regular files, never over anything else`);
    return real;
  }
  throw new Error(`${shown} is ${kindOf(st)}, not a regular file; refusing to replace it (output is written only to regular files)`);
}

/**
 * Write `content` to `target` atomically and only over nothing or a regular file (through a link to
 * one): a temporary sibling renamed into place (issue 26 item 5: every CLI output file goes through
 * here). Throws, naming `shown`, before anything is written when the target is refused.
 */
export function writeOutputFile(target: string, content: string | Uint8Array, shown: string = target): void {
  const dest = outputTargetPath(target, shown);
  const tmp = join(dirname(dest), `.${basename(dest)}.${process.pid}-${Math.random().toString(36).slice(2)}.partial`);
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
