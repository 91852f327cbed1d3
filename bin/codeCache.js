// Runs a one-file entry of dist/main (runMain) from its CommonJS twin (runMain.cjs,
// built beside runMain.js by scripts/build.mjs) through vm.Script with V8's code cache (issue 25
// item 2). Compiling the 1.5 MB run bundle, eagerly at load and lazily over the run, costs a process
// about 0.17 s of CPU; with the code V8 compiled in an earlier process handed back to it
// (`cachedData`), V8 deserializes that code instead. ES modules cannot be given a code cache in
// Node 20, hence the CommonJS twin; its `import.meta.url` is a parameter of the wrapper below.
//
// The cache is one file per entry, bundle and runtime, in a per-user cache folder (codeCacheDir):
//   <entry>-<key>.v8cache, key = sha256 of the bundle's bytes, the Node and V8 versions, the
//   platform and architecture, and the process's V8 options (execArgv, NODE_OPTIONS),
// so a rebuilt bundle never meets an old cache (V8 itself checks only the source's length).
// The file holds a magic line, the sha256 of V8's data (V8 does not checksum it in release builds,
// so a corrupt file is caught here), one byte of flags (a complete command made it; it replaced a
// cache V8 rejected), and the data.
// A missing, corrupt or rejected cache means a plain compile, and the same behaviour; the cache is
// then written after the command succeeded (temporary file + rename, so a reader never sees half
// a file), and any failure to write it (a read-only folder, a full disk) is ignored. A cache made by
// `--help` or `--dry-run` (which compile little) is marked partial and replaced after the next
// complete command. A cache V8 rejects twice in a row (V8 flags that change while the command
// runs) is left alone rather than rewritten by every run. FAIRGROUND_CODE_CACHE=off runs without a
// cache; FAIRGROUND_CODE_CACHE=<folder> puts it there (a folder others may write is not used: V8
// runs what a code cache holds). FAIRGROUND_CODE_CACHE_LOG=<file> appends
// one JSON line per process saying what happened (tests, benchmarks); nothing is ever printed.
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import vm from 'node:vm';

const MAGIC = Buffer.from('FGV8CC1\n', 'latin1');
const HEADER = MAGIC.length + 32 + 1;
/** Cache files kept per entry (other bundles or runtimes sharing the folder), newest first. */
const KEEP = 4;

/**
 * The per-user folder of code caches, or null when FAIRGROUND_CODE_CACHE is `off` or `0`:
 * FAIRGROUND_CODE_CACHE, else the platform's cache folder (XDG_CACHE_HOME or ~/.cache on Linux,
 * ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows) + fairground/code-cache.
 */
export function codeCacheDir(env = process.env, platform = process.platform, home = homedir()) {
  const o = env.FAIRGROUND_CODE_CACHE;
  if (o === 'off' || o === '0') return null;
  if (o) return resolve(o);
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'Fairground', 'code-cache');
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'Fairground', 'Cache', 'code-cache');
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'fairground', 'code-cache');
}

/** The cache key of a bundle's bytes in this runtime (see the header). */
export function codeCacheKey(bundle, env = process.env) {
  const h = createHash('sha256');
  h.update(bundle);
  h.update(JSON.stringify([process.version, process.versions.v8, process.platform, process.arch, process.execArgv, env.NODE_OPTIONS ?? '']));
  return h.digest('hex').slice(0, 40);
}

/** V8's data out of a cache file's bytes, or null when it is not one or is damaged. */
export function parseCacheFile(bytes) {
  if (bytes.length <= HEADER || !bytes.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const data = bytes.subarray(HEADER);
  const sum = createHash('sha256').update(data).digest();
  if (!sum.equals(bytes.subarray(MAGIC.length, MAGIC.length + 32))) return null;
  const flags = bytes[HEADER - 1];
  return { data, complete: (flags & 1) !== 0, afterRejection: (flags & 2) !== 0 };
}

/** A cache file's bytes for V8's data. */
export function cacheFileBytes(data, complete, afterRejection = false) {
  return Buffer.concat([MAGIC, createHash('sha256').update(data).digest(), Buffer.from([(complete ? 1 : 0) | (afterRejection ? 2 : 0)]), data]);
}

/**
 * Loads the CommonJS bundle `file` with the code cache of `dir` (null: none). Returns its exports and
 * `done(succeeded)`, to call when the command has finished: it writes the cache when there was none
 * usable (or only a partial one and this command was `complete`) and the command succeeded.
 */
export function loadWithCodeCache(file, { dir = codeCacheDir(), complete = true, env = process.env } = {}) {
  const bytes = readFileSync(file);
  const entry = basename(file).replace(/\.c?js$/, '');
  const cacheFile = dir === null ? null : join(dir, `${entry}-${codeCacheKey(bytes, env)}.v8cache`);
  /** none | accepted | rejected (by V8) | corrupt (ours) | unsafe (folder not private) | off */
  let status = cacheFile === null ? 'off' : privateFolder(dir) ? 'none' : 'unsafe';
  let cached = null;
  if (status === 'none') {
    let raw = null;
    try {
      raw = readFileSync(cacheFile);
    } catch {
      // no cache yet (or unreadable): a plain compile
    }
    if (raw !== null) {
      cached = parseCacheFile(raw);
      if (cached === null) status = 'corrupt';
    }
  }
  const wrapper = `(function (exports, require, module, __filename, __dirname, __fgImportMetaUrl) {${bytes.toString('utf8')}\n})`;
  const script = new vm.Script(wrapper, {
    filename: file,
    ...(cached !== null ? { cachedData: cached.data } : {}),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cached !== null) status = script.cachedDataRejected ? 'rejected' : 'accepted';
  const module = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), pathToFileURL(file).href);
  module.loaded = true;

  const done = (succeeded) => {
    // Rejected again although written after a rejection: this process's V8 flags change while it runs
    // (setFlagsFromString), so a cache written at its end never fits its start; stop rewriting it.
    const hopeless = status === 'rejected' && cached.afterRejection;
    const write = cacheFile !== null && status !== 'unsafe' && succeeded && !hopeless && (status !== 'accepted' || (complete && !cached.complete));
    let wrote = false;
    if (write) wrote = writeCache(cacheFile, entry, script, complete, status === 'rejected');
    logCache(env, { entry, cacheFile, status, complete, wrote });
  };
  return { exports: module.exports, status, cacheFile, done };
}

/**
 * Whether V8 may be handed code from `dir`: V8 trusts a code cache as it trusts the script, so the
 * folder must be this user's and writable by no one else (POSIX); a folder not made yet is (it is
 * made private). Anything else (a shared FAIRGROUND_CODE_CACHE) runs without a cache.
 */
function privateFolder(dir) {
  if (typeof process.getuid !== 'function') return true;
  try {
    const st = statSync(dir);
    return st.isDirectory() && st.uid === process.getuid() && (st.mode & 0o022) === 0;
  } catch (err) {
    return err?.code === 'ENOENT' || err?.code === 'ENOTDIR';
  }
}

/** FAIRGROUND_CODE_CACHE_LOG (tests, benchmarks): one JSON line per process; never fails the command. */
function logCache(env, line) {
  if (!env.FAIRGROUND_CODE_CACHE_LOG) return;
  try {
    appendFileSync(env.FAIRGROUND_CODE_CACHE_LOG, `${JSON.stringify(line)}\n`);
  } catch {
    // a log for tests only
  }
}

function writeCache(cacheFile, entry, script, complete, afterRejection) {
  const dir = dirname(cacheFile);
  const tmp = `${cacheFile}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(tmp, cacheFileBytes(script.createCachedData(), complete, afterRejection), { mode: 0o600 });
    renameSync(tmp, cacheFile);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the folder is not there or not ours to write
    }
    return false;
  }
  try {
    // Other bundles' (or runtimes') caches of this entry: keep the newest few.
    const others = readdirSync(dir)
      .filter((n) => n.startsWith(`${entry}-`) && n.endsWith('.v8cache') && join(dir, n) !== cacheFile)
      .map((n) => ({ path: join(dir, n), mtime: statSync(join(dir, n)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const o of others.slice(KEEP - 1)) rmSync(o.path, { force: true });
  } catch {
    // another process removed one first
  }
  return true;
}

/**
 * Runs `main()` of a one-file entry: its CommonJS twin through the code cache when the twin is there
 * and the cache is not off, else the ES module. A command is `complete` unless it asks for help or a
 * dry run (see the header).
 */
export async function runEntry(cjsFile, esmFile, argv = process.argv.slice(2), env = process.env) {
  const dir = codeCacheDir(env);
  if (dir === null || vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER === undefined) {
    logCache(env, { entry: basename(esmFile, '.js'), cacheFile: null, status: 'off', complete: false, wrote: false });
    const { main } = await import(pathToFileURL(esmFile).href);
    return main();
  }
  const complete = !argv.some((a) => a === '--help' || a === '-h' || a === '--dry-run');
  const loaded = loadWithCodeCache(cjsFile, { dir, complete, env });
  await loaded.exports.main();
  loaded.done((process.exitCode ?? 0) === 0);
}
