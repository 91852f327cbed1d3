/**
 * Issue 25 items 1 and 5: the per-call overhead of `fairground run` around the engine. Whole
 * processes, timed from spawn to exit in alternating pairs (the order flipped every pair):
 *
 * - candidate: `fairground run SPEC --threads 1` (the built CLI) on a fresh copy of a workspace
 *   where the demo is set up (collection, tiny GGUF, threads 1) and nothing has run: every call is
 *   computed, the cache is empty;
 * - baseline: a raw node-llama-cpp loop (baselines/rawLlamaCalls.mjs) issuing the same calls —
 *   the prompts, max tokens and JSON-schema grammars read back from the call cache of a first run
 *   of the same spec, in the order they were computed — greedy, 1 thread, one sequence, the same
 *   context and batch sizes.
 *
 * Specs: the demo Fair RAG spec (resources/demo/experiments/fair-rag.json) with the tiny GGUF as
 * generator and judge, and the same with α = 8 only (no oracle or deterministic arm) and 20 samples.
 * Each row is per call (the process's time ÷ the calls it made): wall and CPU (user + system of the
 * process tree, from /usr/bin/time). The demo's one-time set-up (`run --dry-run` on an empty
 * workspace: the demo collection, the tiny model) is timed once and reported in the note.
 *
 * FAIRGROUND_BENCH_BASE_CLI=/path/to/bin/fairground.js adds a third process per pair: another
 * checkout's CLI (its dist built) on the same workspace copy, for before/after rows of a change.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { median, type BenchContext, type BenchRow } from './harness';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

interface Measured {
  wallMs: number;
  /** User + system CPU of the process and every child it waited for (NaN without /usr/bin/time). */
  cpuMs: number;
  out: string;
}

function runTimed(args: string[], env: Record<string, string>, cpuFile: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const argv = timeBin ? ['-o', cpuFile, '-f', '%U %S', process.execPath, ...args] : args;
    const t0 = performance.now();
    const child = spawn(timeBin ?? process.execPath, argv, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - t0;
      if (code !== 0) return reject(new Error(`${args.slice(0, 3).join(' ')} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
      let cpuMs = Number.NaN;
      if (timeBin) {
        const [user, sys] = readFileSync(cpuFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
        cpuMs = ((user ?? 0) + (sys ?? 0)) * 1000;
      }
      resolve({ wallMs, cpuMs, out });
    });
  });
}

interface Call {
  prompt: string;
  maxTokens: number;
  jsonSchema?: unknown;
}

/** The calls a finished run computed, in the order it stored them. */
function callsOf(workspace: string): Call[] {
  const db = new Database(workspace, { readonly: true });
  try {
    const rows = db.prepare(`SELECT op, request FROM llm_call_cache ORDER BY rowid`).all() as { op: string; request: string }[];
    return rows.map((r) => {
      if (r.op !== 'generate') throw new Error(`the run made a ${r.op} call; the raw loop issues generations only`);
      const q = JSON.parse(r.request) as { prompt?: string; maxTokens: number; jsonSchema?: unknown; sampling: { temperature: number }; messages?: unknown; stop?: unknown; grammar?: unknown };
      if (q.prompt === undefined || q.sampling.temperature !== 0 || q.stop !== undefined || q.grammar !== undefined) throw new Error('the raw loop issues greedy text-prompt generations only');
      return { prompt: q.prompt, maxTokens: q.maxTokens, ...(q.jsonSchema !== undefined ? { jsonSchema: q.jsonSchema } : {}) };
    });
  } finally {
    db.close();
  }
}

function modelPathOf(workspace: string): string {
  const db = new Database(workspace, { readonly: true });
  try {
    const row = db.prepare(`SELECT path FROM models WHERE path LIKE '%.gguf'`).get() as { path: string } | undefined;
    if (!row) throw new Error('the demo set-up registered no GGUF');
    return row.path;
  } finally {
    db.close();
  }
}

interface Sides {
  raw: Measured[];
  now: Measured[];
  base: Measured[];
}

function summary(label: string, xs: number[], calls: number): string {
  const per = xs.map((x) => x / calls).sort((a, b) => a - b);
  return `${label} ${median(per).toFixed(1)} [${per[0]!.toFixed(1)}–${per[per.length - 1]!.toFixed(1)}]`;
}

/** Median and range of per-pair ratios a[i] / b[i]. */
function pairRatios(a: number[], b: number[]): { ratio: number; low: number; high: number } {
  const r = a.map((x, i) => x / b[i]!).sort((x, y) => x - y);
  return { ratio: median(r), low: r[0]!, high: r[r.length - 1]! };
}

export async function runOverheadBench(ctx: BenchContext): Promise<BenchRow[]> {
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--main-only', '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
  const bin = join(root, 'bin', 'fairground.js');
  const baseCli = process.env.FAIRGROUND_BENCH_BASE_CLI;
  const pairs = Math.max(2, Math.round(5 * Math.min(1, ctx.scale)));
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-runoverhead-'));
  // The candidate's records of node-llama-cpp's binary tests (worker/bindingTests.ts) are the bench's own: its
  // first run of each spec (the warm-up) tests the binary, every measured run starts without the test.
  const dist = { FAIRGROUND_USE_DIST: '1', FAIRGROUND_BINDING_TESTS: join(dir, 'llama-binding-tests.json') };
  const cpuFile = join(dir, 'cpu.txt');
  const rows: BenchRow[] = [];
  try {
    const demo = JSON.parse(readFileSync(join(root, 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as { k: number; samples: number; alphas: number[] } & Record<string, unknown>;
    const fair = { ...demo, name: 'Fair RAG demo (tiny GGUF, bench)', generator: { model: 'fairground-tiny' } };
    const alpha8 = { ...fair, name: 'Fair RAG alpha 8 (tiny GGUF, bench)', alphas: [8], samples: 20, oracle: false, deterministic: false };
    for (const [key, spec, what] of [
      ['demo', fair, `the demo Fair RAG spec (k = ${String(fair.k)}, N = ${String(fair.samples)}, α ${fair.alphas.join('/')}, oracle, deterministic, LLM-judged attribution)`],
      ['alpha8', alpha8, 'the same with α = 8 only and N = 20 (no oracle or deterministic arm)'],
    ] as const) {
      const specFile = join(dir, `${key}.json`);
      writeFileSync(specFile, JSON.stringify(spec));
      // The demo set up once (collection, tiny model, threads 1); each measured run gets a fresh copy.
      const tpl = join(dir, `${key}-template`);
      mkdirSync(tpl);
      const setup = await runTimed([bin, 'run', specFile, '--dry-run', '--threads', '1', '--workspace', join(tpl, 'ws.fairground')], dist, cpuFile);
      const fresh = (name: string): string => {
        const d = join(dir, `${key}-${name}`);
        rmSync(d, { recursive: true, force: true });
        mkdirSync(d);
        copyFileSync(join(tpl, 'ws.fairground'), join(d, 'ws.fairground'));
        return join(d, 'ws.fairground');
      };
      const runArgs = (cli: string, ws: string) => [cli, 'run', specFile, '--threads', '1', '--workspace', ws];
      // A first run (also the warm-up) stores every call it computed: the raw loop's calls.
      const first = fresh('first');
      await runTimed(runArgs(bin, first), dist, cpuFile);
      const calls = callsOf(first);
      const callsFile = join(dir, `${key}-calls.json`);
      writeFileSync(callsFile, JSON.stringify(calls));
      const modelPath = modelPathOf(first);
      const rawArgs = [join(root, 'test', 'bench', 'baselines', 'rawLlamaCalls.mjs'), modelPath, callsFile, '1', 'auto'];
      const rawOut = (await runTimed(rawArgs, {}, cpuFile)).out.trim().split('\n')[0];
      ctx.log(`${key}: ${calls.length} calls (${calls.filter((c) => c.jsonSchema !== undefined).length} judgments); raw loop: ${rawOut}; demo set-up ${(setup.wallMs / 1000).toFixed(1)} s wall, ${(setup.cpuMs / 1000).toFixed(1)} s CPU`);
      if (baseCli) await runTimed(runArgs(baseCli, fresh('base-warm')), dist, cpuFile);

      const sides: Sides = { raw: [], now: [], base: [] };
      for (let p = 0; p < pairs; p++) {
        const order: (keyof Sides)[] = p % 2 === 0 ? ['raw', 'now', 'base'] : ['base', 'now', 'raw'];
        for (const side of order) {
          if (side === 'base' && !baseCli) continue;
          const m = side === 'raw' ? await runTimed(rawArgs, {}, cpuFile) : await runTimed(runArgs(side === 'now' ? bin : baseCli!, fresh(side)), dist, cpuFile);
          sides[side].push(m);
        }
        ctx.log(`${key} pair ${p + 1}: raw ${(sides.raw[p]!.wallMs / 1000).toFixed(1)} s (CPU ${(sides.raw[p]!.cpuMs / 1000).toFixed(1)}), run ${(sides.now[p]!.wallMs / 1000).toFixed(1)} s (CPU ${(sides.now[p]!.cpuMs / 1000).toFixed(1)})${baseCli ? `, base ${(sides.base[p]!.wallMs / 1000).toFixed(1)} s (CPU ${(sides.base[p]!.cpuMs / 1000).toFixed(1)})` : ''}`);
      }
      const n = calls.length;
      const wall = (s: Measured[]) => s.map((m) => m.wallMs);
      const cpu = (s: Measured[]) => s.map((m) => m.cpuMs);
      ctx.log(`${key} ms per call: ${summary('raw wall', wall(sides.raw), n)}, ${summary('run wall', wall(sides.now), n)}; ${summary('raw CPU', cpu(sides.raw), n)}, ${summary('run CPU', cpu(sides.now), n)}`);
      const common = { suite: 'runoverhead', better: 'lower' as const, baselineLabel: 'raw node-llama-cpp loop', candidateLabel: '`fairground run`' };
      const name = `\`fairground run\` of ${what}, tiny GGUF, 1 thread, ${n} calls, fresh workspace, whole processes`;
      const note = `per call; the demo's one-time set-up (not in the row) ${(setup.wallMs / 1000).toFixed(1)} s wall, ${(setup.cpuMs / 1000).toFixed(1)} s CPU`;
      const w = pairRatios(wall(sides.now), wall(sides.raw));
      rows.push({ ...common, name, metric: 'wall ms per call', baseline: median(wall(sides.raw)) / n, candidate: median(wall(sides.now)) / n, ratio: w.ratio, spread: { low: w.low, high: w.high, pairs }, note });
      if (timeBin) {
        const c = pairRatios(cpu(sides.now), cpu(sides.raw));
        rows.push({ ...common, name: `${name}: CPU`, metric: 'CPU ms per call (user + system, process tree)', baseline: median(cpu(sides.raw)) / n, candidate: median(cpu(sides.now)) / n, ratio: c.ratio, spread: { low: c.low, high: c.high, pairs }, note });
      }
      // The raw loop less its binary-test process (node-llama-cpp forks it on every start; Fairground's worker
      // runs it once per binary): what the pipeline costs around the engine itself, the test left out of both.
      const rawOwn = sides.raw.map((m) => Number(/own CPU ms (\d+)/.exec(m.out)?.[1] ?? Number.NaN));
      if (timeBin && rawOwn.every(Number.isFinite)) {
        const tests = sides.raw.map((m, i) => m.cpuMs - rawOwn[i]!);
        const c = pairRatios(cpu(sides.now), rawOwn);
        ctx.log(`${key}: the raw loop's binary-test process ${summary('CPU ms per call', tests, n)} (${(median(tests) / 1000).toFixed(2)} s per process)`);
        rows.push({
          ...common,
          baselineLabel: 'raw node-llama-cpp loop without its binary test',
          name: `${name}: CPU, node-llama-cpp's binary test left out of the baseline`,
          metric: 'CPU ms per call (user + system)',
          baseline: median(rawOwn) / n,
          candidate: median(cpu(sides.now)) / n,
          ratio: c.ratio,
          spread: { low: c.low, high: c.high, pairs },
          note: `the raw loop's own process only: its binary-test child (${(median(tests) / 1000).toFixed(2)} s of CPU, forked by getLlama on every start) is not counted; Fairground's worker runs that test once per binary`,
        });
      }
      if (baseCli) {
        const bw = pairRatios(wall(sides.now), wall(sides.base));
        const bc = pairRatios(cpu(sides.now), cpu(sides.base));
        ctx.log(`${key} vs base: wall ${bw.ratio.toFixed(3)} [${bw.low.toFixed(3)}–${bw.high.toFixed(3)}], CPU ${bc.ratio.toFixed(3)} [${bc.low.toFixed(3)}–${bc.high.toFixed(3)}]; ${summary('base wall', wall(sides.base), n)}, ${summary('base CPU', cpu(sides.base), n)}`);
        const vs = { ...common, baselineLabel: 'base checkout', candidateLabel: 'this checkout', name: `${name}: this checkout vs ${baseCli}` };
        rows.push({ ...vs, metric: 'wall ms per call', baseline: median(wall(sides.base)) / n, candidate: median(wall(sides.now)) / n, ratio: bw.ratio, spread: { low: bw.low, high: bw.high, pairs } });
        rows.push({ ...vs, name: `${vs.name}: CPU`, metric: 'CPU ms per call', baseline: median(cpu(sides.base)) / n, candidate: median(cpu(sides.now)) / n, ratio: bc.ratio, spread: { low: bc.low, high: bc.high, pairs } });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
