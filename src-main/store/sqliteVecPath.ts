/** Where sqlite-vec's loadable extension is loaded from: never from inside an asar archive. */
import * as sqliteVec from 'sqlite-vec';

/**
 * The file SQLite's loader must open for a path that resolves inside Electron's `app.asar`: its
 * `app.asar.unpacked` twin (electron-builder's asarUnpack puts sqlite-vec there). Electron reads
 * files inside the archive for Node's own fs and require, but SQLite's `load_extension` calls the
 * system's dlopen, which cannot (issue 26 item 5). Any other path is returned unchanged.
 */
export function asarUnpackedPath(path: string): string {
  return path.replace(/([\\/])app\.asar(?=[\\/])/, '$1app.asar.unpacked');
}

/** sqlite-vec's loadable extension (vec0.so / .dylib / .dll) outside any asar archive. */
export function sqliteVecPath(resolved: string = sqliteVec.getLoadablePath()): string {
  return asarUnpackedPath(resolved);
}
