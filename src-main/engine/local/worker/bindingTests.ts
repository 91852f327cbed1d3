/**
 * node-llama-cpp's binary self-test, run once per binary rather than once per worker (issue 25).
 *
 * On Linux, `getLlama` tests every prebuilt llama.cpp binary before loading it: it forks a Node
 * process (`testBindingBinary.js`) that loads node-llama-cpp's modules and the binary, initialises
 * its backends and reports back. On the 2-core machines of this project that is ≈ 0.87 s of CPU and
 * ≈ 0.8 s of wall time on every worker start — every `fairground run`, every model the app loads —
 * to learn what the last start already learned. The test exists so an incompatible binary (a CUDA
 * build without a driver) crashes a throwaway process and node-llama-cpp falls back to the next
 * binary instead of crashing the caller.
 *
 * Here the caller is already a throwaway process (the engine's worker), so a test that passed is
 * remembered and not repeated while nothing it depends on has changed:
 *
 * - The record's key: the binary's path, size and modification time, its extra backends' folder,
 *   the GPU type asked for, the node-llama-cpp test script's own bytes, Node's version and ABI, the
 *   platform, CPU model and kernel release. Anything else changed (a GPU driver) shows up as a
 *   failed load, and the parent then loads again with `bindingTests: 'always'` (localEngine.ts),
 *   which runs the real test and forgets a record whose binary now fails it.
 * - Only a test that really passed (the test process reported "done" and exited with 0) is recorded;
 *   a failed one removes its record.
 * - The test process's messages (ready → start → loaded → test → done → exit) are node-llama-cpp's
 *   internal protocol, so a record is used only while `testBindingBinary.js` has bytes whose
 *   protocol this file was checked against (KNOWN_TEST_SCRIPTS; test/engine/bindingTests.test.ts
 *   fails when the installed file is not one of them). Any other version runs every test.
 * - Mechanism: while `getLlama` runs, `child_process.fork` (which node-llama-cpp imports from
 *   `node:child_process`; `syncBuiltinESMExports` updates that binding) is wrapped. A fork of the
 *   test script returns a stand-in child that starts the real test process only when the binary it
 *   names has no record; every other fork goes through untouched. Where node-llama-cpp forks its test
 *   through Electron's `utilityProcess` instead (it tries that first under Electron, and falls back to
 *   `child_process.fork` where the module has no `utilityProcess`, as in the app's utility-process
 *   worker), nothing is wrapped and every test runs.
 *
 * The records are one JSON file, FAIRGROUND_BINDING_TESTS (a path, or `off` to run every test),
 * else the platform's cache folder + fairground/llama-binding-tests.json. A damaged file reads as
 * empty. Writes are a temporary file renamed over it; two workers racing lose at most one record,
 * whose binary is then tested again.
 */
import childProcess from 'node:child_process';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { cpus, homedir, release } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { PassThrough } from 'node:stream';

/** sha256 of node-llama-cpp's dist/bindings/utils/testBindingBinary.js whose message protocol this file follows (3.22.1). */
export const KNOWN_TEST_SCRIPTS: readonly string[] = ['87857f7fcddbf87c4d14a32331f88b3fefb5c40471f7b0151e94d46d881d6354'];

export type BindingTestMode = 'cached' | 'always';

/** What happened to the binary tests of one `getLlama`. */
export interface BindingTestReport {
  /**
   * Binaries whose test was skipped on a record, in order (the last is the one loaded). Each record
   * is taken out of the file when it is used and put back by `confirmSkipped` once the binary loaded
   * with the GPU type its test saw: a process that dies loading it leaves no record behind, so the
   * next start tests it.
   */
  skipped: { binary: string; gpu: unknown; key: string }[];
  /** Binaries tested for real: passed (and now recorded) or failed. */
  tested: { binary: string; passed: boolean }[];
  /** Which came last, a skipped or a real test: the binary node-llama-cpp then loaded (it tries them in turn). */
  last?: 'skipped' | 'tested';
}

/** The records file, or null when FAIRGROUND_BINDING_TESTS is `off` or `0`. */
export function bindingTestsFile(env: Record<string, string | undefined> = process.env, platform: string = process.platform, home: string = homedir()): string | null {
  const o = env.FAIRGROUND_BINDING_TESTS;
  if (o === 'off' || o === '0') return null;
  if (o) return o;
  const name = 'llama-binding-tests.json';
  if (platform === 'darwin') return join(home, 'Library', 'Caches', 'Fairground', name);
  if (platform === 'win32') return join(env.LOCALAPPDATA ?? join(home, 'AppData', 'Local'), 'Fairground', 'Cache', name);
  const xdg = env.XDG_CACHE_HOME;
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'fairground', name);
}

interface StartMessage {
  type: 'start';
  bindingBinaryPath: string;
  extBackendsPath?: string;
  gpu: unknown;
}

interface RecordsFile {
  version: 1;
  passed: Record<string, { binary: string; at: string }>;
}

function readRecords(file: string): RecordsFile {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<RecordsFile>;
    if (parsed.version === 1 && parsed.passed && typeof parsed.passed === 'object' && !Array.isArray(parsed.passed)) return { version: 1, passed: parsed.passed };
  } catch {
    // missing or damaged: no records
  }
  return { version: 1, passed: {} };
}

function writeRecords(file: string, records: RecordsFile): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(records, null, 1)}\n`);
    renameSync(tmp, file);
  } catch {
    // an unwritable cache folder: every start tests again, as node-llama-cpp alone does
  }
}

/** The record key of one binary's test (`scriptSha`: the test script's sha256), or null when a file it names cannot be read. */
export function bindingTestKey(start: StartMessage, scriptSha: string): string | null {
  try {
    const stamp = (p: string) => {
      const s = statSync(p);
      return [p, s.size, s.mtimeMs];
    };
    const h = createHash('sha256');
    h.update(
      JSON.stringify([
        stamp(start.bindingBinaryPath),
        start.extBackendsPath === undefined ? null : stamp(start.extBackendsPath),
        start.gpu,
        scriptSha,
        process.version,
        process.versions.modules,
        process.platform,
        process.arch,
        release(),
        cpus()[0]?.model ?? '',
      ]),
    );
    return h.digest('hex');
  } catch {
    return null;
  }
}

function recordPassed(file: string, key: string, binary: string, records: RecordsFile = readRecords(file)): void {
  records.passed[key] = { binary, at: new Date().toISOString() };
  writeRecords(file, records);
}

/**
 * After a `getLlama` that skipped tests: true (and the record put back) when the binary it loaded —
 * the last one it skipped, unless a real test came after — reports the GPU type its recorded test
 * saw; false when it does not (the record stays out, so the next start tests it: a GPU driver went
 * away, say).
 */
export function confirmSkipped(file: string | null, report: BindingTestReport, loadedGpu: unknown): boolean {
  const used = report.skipped[report.skipped.length - 1];
  // A real test after the skip: the skipped binary failed to load and node-llama-cpp went on to a tested one
  // (the skipped one's record stays out, so the next start tests it).
  if (!used || file === null || report.last !== 'skipped') return true;
  if (used.gpu !== loadedGpu) return false;
  recordPassed(file, used.key, used.binary);
  return true;
}

type Fork = typeof childProcess.fork;

/**
 * Runs `fn` (a `getLlama`) with node-llama-cpp's binary tests answered from the records where they
 * passed before (mode 'cached') or all run and recorded (mode 'always'); `file` null runs every test
 * and records nothing. `onSkip` is called as a test is skipped, before its binary loads. The caller
 * then calls `confirmSkipped` with the loaded binary's GPU type.
 */
export async function withBindingTests<T>(
  file: string | null,
  mode: BindingTestMode,
  fn: () => Promise<T>,
  onSkip?: (binary: string) => void,
): Promise<{ result: T; report: BindingTestReport }> {
  const report: BindingTestReport = { skipped: [], tested: [] };
  if (file === null) return { result: await fn(), report };
  // The default export is the CommonJS exports object, which syncBuiltinESMExports copies into the ES module's bindings.
  const cjs = childProcess as { fork: Fork };
  const original = cjs.fork;
  const wrapped = function (this: unknown, modulePath: string | URL, ...rest: unknown[]) {
    const path = modulePath instanceof URL ? modulePath.pathname : String(modulePath);
    const options = (rest.find((r) => r !== null && typeof r === 'object' && !Array.isArray(r)) ?? {}) as childProcess.ForkOptions;
    if (basename(path) === 'testBindingBinary.js' && options.env?.TEST_BINDING_CP === 'true') {
      let sha: string | undefined;
      try {
        sha = createHash('sha256').update(readFileSync(path)).digest('hex');
      } catch {
        sha = undefined;
      }
      if (sha !== undefined && KNOWN_TEST_SCRIPTS.includes(sha)) {
        return new TestChild(() => (original as (...a: unknown[]) => childProcess.ChildProcess).call(this, modulePath, ...rest), sha, file, mode, report, onSkip) as unknown as childProcess.ChildProcess;
      }
    }
    return (original as (...a: unknown[]) => childProcess.ChildProcess).call(this, modulePath, ...rest);
  } as Fork;
  cjs.fork = wrapped;
  syncBuiltinESMExports();
  try {
    return { result: await fn(), report };
  } finally {
    if (cjs.fork === wrapped) cjs.fork = original;
    syncBuiltinESMExports();
  }
}

/**
 * Stands in for node-llama-cpp's test process. It says "ready" at once; the "start" message names
 * the binary: with a record, it answers "loaded" and "done" and exits 0 without a process;
 * without one, it starts the real test process, hands it the "start" message and relays every
 * message and the exit, recording the binary when the real test passed.
 */
class TestChild extends EventEmitter {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  killed = false;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  private real: childProcess.ChildProcess | undefined;
  private fake = false;
  private exited = false;

  constructor(
    private readonly spawnReal: () => childProcess.ChildProcess,
    private readonly scriptSha: string,
    private readonly file: string,
    private readonly mode: BindingTestMode,
    private readonly report: BindingTestReport,
    private readonly onSkip: ((binary: string) => void) | undefined,
  ) {
    super();
    setImmediate(() => this.emit('message', { type: 'ready' }));
  }

  get pid(): number | undefined {
    return this.real?.pid;
  }

  get connected(): boolean {
    return this.real ? this.real.connected : !this.exited && !this.killed;
  }

  send(message: { type?: string }, ...rest: unknown[]): boolean {
    if (this.real) return this.real.send(message as childProcess.Serializable, ...(rest as []));
    if (this.fake) {
      if (message.type === 'test') setImmediate(() => this.emit('message', { type: 'done' }));
      else if (message.type === 'exit') setImmediate(() => this.exit(0, null));
      return true;
    }
    if (message.type !== 'start') return true;
    const start = message as StartMessage;
    const key = bindingTestKey(start, this.scriptSha);
    const records = readRecords(this.file);
    if (key !== null && this.mode === 'cached' && records.passed[key]) {
      this.fake = true;
      delete records.passed[key];
      writeRecords(this.file, records);
      this.report.skipped.push({ binary: start.bindingBinaryPath, gpu: start.gpu, key });
      this.report.last = 'skipped';
      this.onSkip?.(start.bindingBinaryPath);
      setImmediate(() => this.emit('message', { type: 'loaded' }));
      return true;
    }
    this.startReal(start, key);
    return true;
  }

  kill(signal: NodeJS.Signals | number = 'SIGTERM'): boolean {
    if (this.real) return this.real.kill(signal);
    if (this.exited || this.killed) return false;
    this.killed = true;
    setImmediate(() => this.exit(null, typeof signal === 'string' ? signal : 'SIGKILL'));
    return true;
  }

  private startReal(start: StartMessage, key: string | null): void {
    const real = (this.real = this.spawnReal());
    real.stdout?.pipe(this.stdout);
    real.stderr?.pipe(this.stderr);
    let passed = false;
    real.on('message', (m: { type?: string }) => {
      if (m.type === 'ready') {
        real.send(start);
        return;
      }
      if (m.type === 'done') passed = true;
      this.emit('message', m);
    });
    real.on('error', (err) => this.emit('error', err));
    real.on('exit', (code, signal) => {
      const ok = passed && code === 0;
      this.report.tested.push({ binary: start.bindingBinaryPath, passed: ok });
      this.report.last = 'tested';
      if (key !== null) {
        const records = readRecords(this.file);
        if (ok) recordPassed(this.file, key, start.bindingBinaryPath, records);
        else if (records.passed[key]) {
          delete records.passed[key];
          writeRecords(this.file, records);
        }
      }
      this.exit(code, signal);
    });
  }

  private exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exited) return;
    this.exited = true;
    this.exitCode = code;
    this.signalCode = signal;
    this.stdout.end();
    this.stderr.end();
    this.emit('exit', code, signal);
    this.emit('close', code, signal);
  }
}
