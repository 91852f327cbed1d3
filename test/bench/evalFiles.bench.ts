/**
 * Issue 18 item 1: run files read without an object per line. `eval ir` on the issue's workload
 * (500 queries × 1,000 documents; AP, nDCG@10, P@10, RR), the command in-process against the
 * previous implementation (one object per line, a regex split and trim per line, one global Set
 * of joined keys: test/bench/baselines/runParserV0.ts, then evaluateRun on the row objects), and
 * the reading of `eval exposure`'s 500k-line stochastic run (1,000 queries × 100 samples × k = 5)
 * by both readers, in alternating repetitions.
 *
 * The issue's peers (trec_eval 10.0 in C, Fair-RAG's expected_exposure in Python) cannot be built
 * or installed here (no network), so the previous implementation is the baseline; the issue
 * measured it at 4.05× trec_eval (eval ir) and 1.9× expected_exposure (eval exposure).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src-main/cli/main';
import { evaluateRun } from '../../src-main/core/ir/evaluateRun';
import { formatMeasureTsv, measureRows } from '../../src-main/io/measureCsv';
import { readQrelsFile } from '../../src-main/io/trec/qrels';
import { readRunColumns } from '../../src-main/io/trec/run';
import { readRunFileV0 } from './baselines/runParserV0';
import { alternate, alternationRow, median, type BenchContext, type BenchRow } from './harness';

const MEASURES = ['AP', 'nDCG@10', 'P@10', 'RR'];

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

export async function evalFilesBench(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-eval-'));
  try {
    const queries = Math.max(20, Math.round(500 * ctx.scale));
    const rnd = lcg(18);
    let run = '';
    let qrels = '';
    for (let q = 0; q < queries; q++) {
      const judged = new Set<number>();
      for (let d = 0; d < 1000; d++) run += `${q} Q0 doc${q}-${d} ${d + 1} ${(1000 - d + rnd()).toFixed(4)} bm25\n`;
      while (judged.size < 50) judged.add(Math.floor(rnd() * 1500));
      for (const d of judged) qrels += `${q} 0 doc${q}-${d} ${Math.floor(rnd() * 3)}\n`;
    }
    writeFileSync(join(dir, 'run.trec'), run);
    writeFileSync(join(dir, 'test.qrels'), qrels);

    const sink = () => {
      const s = new PassThrough();
      s.resume();
      return s;
    };
    const candidate = async () => {
      const code = await runCli(['eval', 'ir', '--run', 'run.trec', '--qrels', 'test.qrels', ...MEASURES.flatMap((m) => ['-m', m])], { stdout: sink(), stderr: sink(), stdin: new PassThrough(), cwd: dir, env: {} });
      if (code !== 0) throw new Error(`eval ir exited ${code}`);
    };
    const baseline = () => {
      const ev = evaluateRun(readRunFileV0(join(dir, 'run.trec')), readQrelsFile(join(dir, 'test.qrels')), MEASURES);
      return formatMeasureTsv(measureRows(ev, { perQuery: false }));
    };
    const ir = await alternate(baseline, candidate, { pairs: 5 });
    ctx.log(`eval ir ${queries}×1000: previous ${ir.baselineMs.toFixed(0)} ms, streamed ${ir.candidateMs.toFixed(0)} ms`);

    const stochQueries = Math.max(20, Math.round(1000 * ctx.scale));
    let stoch = '';
    for (let q = 0; q < stochQueries; q++) {
      for (let s = 0; s < 100; s++) {
        const start = Math.floor(rnd() * 20);
        for (let r = 0; r < 5; r++) stoch += `q${q} Q${s} d${(start + r * 3) % 20} ${r + 1} ${5 - r} pl\n`;
      }
    }
    writeFileSync(join(dir, 'stochastic.trec'), stoch);
    const lines = stochQueries * 500;
    const exp = await alternate(
      () => readRunFileV0(join(dir, 'stochastic.trec')).length,
      async () => (await readRunColumns(join(dir, 'stochastic.trec'))).length,
      { pairs: 5 },
    );
    ctx.log(`stochastic run ${lines} lines: previous ${exp.baselineMs.toFixed(0)} ms, columns ${exp.candidateMs.toFixed(0)} ms`);
    const runFile = join(dir, 'run.trec');
    const qrelsFile = join(dir, 'test.qrels');
    const stochQrels = join(dir, 'stochastic.qrels');
    let candidates = '';
    for (let q = 0; q < stochQueries; q++) for (let d = 0; d < 20; d++) candidates += `q${q} 0 d${d} ${rnd() < 0.3 ? 1 : 0}\n`;
    writeFileSync(stochQrels, candidates);
    const processes = await processRows(ctx, dir, [
      {
        title: `\`fairground eval ir\`, ${queries} queries × 1000 docs, 4 measures`,
        cliArgs: ['eval', 'ir', '--run', runFile, '--qrels', qrelsFile, ...MEASURES.flatMap((m) => ['-m', m])],
        baseline: 'evalIrV0Main',
        baselineArgs: [runFile, qrelsFile, ...MEASURES],
        inputs: [runFile, qrelsFile],
        previousNote: 'the issue: 366 MiB for v0.1 vs 40 MiB for trec_eval (C), 4.05× its time; goal ≤ 1.5× and ≤ 100 MiB',
      },
      {
        title: `\`fairground eval exposure\`, ${lines} lines (${stochQueries} queries × 100 samples × k=5, 20 candidates)`,
        cliArgs: ['eval', 'exposure', '--run', join(dir, 'stochastic.trec'), '--qrels', stochQrels, '-k', '5'],
        baseline: 'evalExposureV0Main',
        baselineArgs: [join(dir, 'stochastic.trec'), stochQrels, '5'],
        inputs: [join(dir, 'stochastic.trec'), stochQrels],
        previousNote: "v0.1's reader with the same exposure code and no input checks; the issue measured v0.1 at 1.9× Fair-RAG's expected_exposure",
      },
    ]);
    const peer = await trecEvalRow(ctx, dir, runFile, qrelsFile, queries);
    return [
      ...peer,
      ...processes,
      alternationRow(
        {
          suite: 'evalfiles',
          name: `eval ir (in-process CLI), ${queries} queries × 1000 docs, AP nDCG@10 P@10 RR`,
          metric: 'ms',
          better: 'lower',
          baselineLabel: 'previous reader + row objects',
          candidateLabel: 'read and evaluated one query at a time',
          note: 'same output; trec_eval cannot be built here (no network): the issue measured the previous implementation at 4.05× trec_eval',
        },
        ir,
      ),
      alternationRow(
        {
          suite: 'evalfiles',
          name: `reading eval exposure's stochastic run, ${lines} lines (${stochQueries} queries × 100 samples × k=5)`,
          metric: 'ms',
          better: 'lower',
          baselineLabel: 'previous reader',
          candidateLabel: 'streamed columns',
          note: "Fair-RAG's expected_exposure cannot be installed here; the issue put 63% of eval exposure in the previous reader, at 1.9× the peer",
        },
        exp,
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Run `node ...args` and return its stdout and its peak resident set (KiB, from a preloaded exit hook). */
function nodeProcess(args: string[], preload: string, env: Record<string, string> = {}): Promise<{ stdout: string; maxRssKiB: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', preload, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const rss = /maxrss=(\d+)/.exec(err);
      if (code !== 0 || !rss) reject(new Error(`${args.join(' ')} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`));
      else resolve({ stdout: out, maxRssKiB: Number(rss[1]) });
    });
  });
}

/** One command of the process rows: how the built CLI and v0.1's bundled baseline are run. */
interface ProcessCase {
  title: string;
  cliArgs: string[];
  baseline: string;
  baselineArgs: string[];
  inputs: string[];
  previousNote: string;
}

/**
 * Evaluation commands as whole processes on the issue's workloads: the built CLI against v0.1's
 * implementation bundled the same way (baselines/*V0Main.ts), and against a raw node process that
 * only streams the input files line by line (the floor of reading them in node); wall time and
 * peak RSS of each process, alternating pairs.
 */
async function processRows(ctx: BenchContext, dir: string, cases: ProcessCase[]): Promise<BenchRow[]> {
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--main-only', '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
  const preload = join(dir, 'maxrss.cjs');
  // VmHWM (this program's own peak), not getrusage's maxRSS: on Linux that one keeps the peak of the
  // image before exec, i.e. of the forked copy of this bench process, and hides smaller children.
  writeFileSync(
    preload,
    "const { readFileSync } = require('node:fs');\n" +
      "process.on('exit', () => { let kib = process.resourceUsage().maxRSS; try { kib = Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]); } catch {} process.stderr.write(`maxrss=${kib}\\n`); });\n",
  );
  const floor = join(dir, 'readLines.cjs');
  writeFileSync(
    floor,
    "const rl = require('node:readline'); const fs = require('node:fs');\n" +
      '(async () => { let n = 0; for (const f of process.argv.slice(2)) for await (const l of rl.createInterface({ input: fs.createReadStream(f) })) if (l) n++; process.stdout.write(`${n}\\n`); })();\n',
  );
  const rows: BenchRow[] = [];
  for (const c of cases) {
    const bundle = join(dir, `${c.baseline}.mjs`);
    await build({ entryPoints: [join(root, 'test', 'bench', 'baselines', `${c.baseline}.ts`)], bundle: true, platform: 'node', format: 'esm', outfile: bundle, logLevel: 'error' });
    const cli = () => nodeProcess([join(root, 'bin', 'fairground.js'), ...c.cliArgs], preload, { FAIRGROUND_USE_DIST: '1' });
    const previous = () => nodeProcess([bundle, ...c.baselineArgs], preload);
    const raw = () => nodeProcess([floor, ...c.inputs], preload);
    const [a, got] = [(await previous()).stdout, (await cli()).stdout];
    if (a !== got) throw new Error(`${c.title}: output differs from v0.1's:\n${a}\n---\n${got}`);
    for (const [label, baseline, name] of [
      ['v0.1 (whole run, object per line)', previous, 'previous'],
      ['node streaming the input files line by line (no parsing)', raw, 'floor'],
    ] as const) {
      const rss = { baseline: [] as number[], candidate: [] as number[] };
      const timed = await alternate(
        async () => rss.baseline.push((await baseline()).maxRssKiB / 1024),
        async () => rss.candidate.push((await cli()).maxRssKiB / 1024),
        { pairs: 5, warmup: 0 },
      );
      const ratios = rss.candidate.map((x, i) => x / rss.baseline[i]!).sort((x, y) => x - y);
      ctx.log(`${c.title} vs ${name}: ${timed.baselineMs.toFixed(0)} vs ${timed.candidateMs.toFixed(0)} ms, ${median(rss.baseline).toFixed(0)} vs ${median(rss.candidate).toFixed(0)} MiB`);
      const what = `${c.title} (built CLI, whole process) vs ${label}`;
      rows.push(
        alternationRow({ suite: 'evalfiles', name: what, metric: 'ms per process', better: 'lower', baselineLabel: name, candidateLabel: 'built CLI' }, timed),
        {
          suite: 'evalfiles',
          name: what,
          metric: 'peak RSS, MiB',
          better: 'lower',
          baselineLabel: name,
          candidateLabel: 'built CLI',
          baseline: median(rss.baseline),
          candidate: median(rss.candidate),
          ratio: median(ratios),
          spread: { low: ratios[0]!, high: ratios[ratios.length - 1]!, pairs: ratios.length },
          note: name === 'previous' ? c.previousNote : 'a bare node process is ~40 MiB',
        },
      );
    }
  }
  return rows;
}

/** trec_eval's name for each of MEASURES (its -m option and the first column it prints). */
const TREC_EVAL_MEASURES: Record<string, [option: string, printed: string]> = { AP: ['map', 'map'], 'nDCG@10': ['ndcg_cut.10', 'ndcg_cut_10'], 'P@10': ['P.10', 'P_10'], RR: ['recip_rank', 'recip_rank'] };

/**
 * A trec_eval binary to measure against (issue 25 item 4): FAIRGROUND_TREC_EVAL, else `trec_eval`
 * on PATH, else ~/.cache/fairground/trec_eval. None is bundled; build it from usnistgov/trec_eval
 * with its own Makefile (`make`, which compiles with -g and no -O, as it ships).
 */
function findTrecEval(): string | undefined {
  const candidates = [process.env.FAIRGROUND_TREC_EVAL, ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'trec_eval')), join(homedir(), '.cache', 'fairground', 'trec_eval')];
  return candidates.find((c): c is string => c !== undefined && c !== '' && existsSync(c));
}

/**
 * `fairground eval ir` (built CLI, whole process) against trec_eval 10.0 on the same files, as CPU
 * time (user + system, from getrusage of each child) and wall time, alternating pairs; the four
 * means must agree to trec_eval's 4 decimals. No row when no trec_eval is found.
 */
export async function trecEvalRow(ctx: BenchContext, dir: string, runFile: string, qrelsFile: string, queries: number): Promise<BenchRow[]> {
  const trecEval = findTrecEval();
  if (!trecEval) {
    ctx.log('trec_eval not found (FAIRGROUND_TREC_EVAL, PATH, ~/.cache/fairground/trec_eval): no peer row');
    return [];
  }
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--main-only', '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
  const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
  if (!timeBin) {
    ctx.log('no /usr/bin/time: no trec_eval CPU row');
    return [];
  }
  const cpuFile = join(dir, 'cpu.txt');
  // NODE_EXTRA_CA_CERTS makes every node process parse that certificate bundle before any script
  // runs (this sandbox sets it to the system bundle: ≈ 80 ms of CPU per process); `eval ir` opens no
  // TLS connection, so both processes run without it, and its cost is measured and logged apart.
  const extraCa = process.env.NODE_EXTRA_CA_CERTS;
  const baseEnv: Record<string, string | undefined> = { ...process.env };
  delete baseEnv.NODE_EXTRA_CA_CERTS;
  const timed = (command: string[], env: Record<string, string> = {}): { out: string; cpuMs: number; wallMs: number } => {
    const t0 = performance.now();
    const r = spawnSync(timeBin, ['-o', cpuFile, '-f', '%U %S', ...command], { cwd: dir, encoding: 'utf8', env: { ...baseEnv, ...env }, maxBuffer: 1 << 26 });
    const wallMs = performance.now() - t0;
    if (r.status !== 0) throw new Error(`${command.join(' ')} exited ${r.status}: ${r.stderr}`);
    const [user, sys] = readFileSync(cpuFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    return { out: r.stdout, cpuMs: ((user ?? 0) + (sys ?? 0)) * 1000, wallMs };
  };
  const peer = () => timed([trecEval, ...MEASURES.flatMap((m) => ['-m', TREC_EVAL_MEASURES[m]![0]]), qrelsFile, runFile]);
  const ours = () => timed([process.execPath, join(root, 'bin', 'fairground.js'), 'eval', 'ir', '--run', runFile, '--qrels', qrelsFile, ...MEASURES.flatMap((m) => ['-m', m])], { FAIRGROUND_USE_DIST: '1' });
  const a = peer();
  const c = ours();
  for (const m of MEASURES) {
    const theirs = new RegExp(`^${TREC_EVAL_MEASURES[m]![1]}\\s+all\\s+(\\S+)$`, 'm').exec(a.out)?.[1];
    const mine = new RegExp(`^${m}\\tall\\t(\\S+)$`, 'm').exec(c.out)?.[1];
    if (theirs === undefined || mine === undefined || Math.abs(Number(theirs) - Number(mine)) > 5e-5) throw new Error(`eval ir and trec_eval disagree on ${m}: ${mine} vs ${theirs}`);
  }
  const pairs = 7;
  const cpu = { b: [] as number[], c: [] as number[] };
  const wall = { b: [] as number[], c: [] as number[] };
  // Node's own start-up, the fixed part of ours: a bare `node -e 0`, and `node -e 0` with the certificates.
  const bare: number[] = [];
  const bareCa: number[] = [];
  const bareNode = () => timed([process.execPath, '-e', '0']);
  const bareNodeCa = () => timed([process.execPath, '-e', '0'], extraCa ? { NODE_EXTRA_CA_CERTS: extraCa } : {});
  for (let p = 0; p < pairs; p++) {
    const order = p % 2 === 0 ? [peer, ours] : [ours, peer];
    for (const f of order) {
      const r = f();
      (f === peer ? cpu.b : cpu.c).push(r.cpuMs);
      (f === peer ? wall.b : wall.c).push(r.wallMs);
    }
    bare.push(bareNode().cpuMs);
    if (extraCa) bareCa.push(bareNodeCa().cpuMs);
  }
  ctx.log(
    `node -e 0: CPU ${median(bare).toFixed(0)} ms${extraCa ? `; with NODE_EXTRA_CA_CERTS (${extraCa}, as this environment sets it) ${median(bareCa).toFixed(0)} ms: the certificates are left out of both timed processes` : ''}`,
  );
  const row = (metric: string, xs: { b: number[]; c: number[] }, note: string): BenchRow => {
    const ratios = xs.c.map((x, i) => x / xs.b[i]!).sort((x, y) => x - y);
    return {
      suite: 'evalfiles',
      name: `\`fairground eval ir\`, ${queries} queries × 1000 docs, 4 measures (built CLI, whole process) vs trec_eval 10.0 (C)`,
      metric,
      better: 'lower',
      baselineLabel: 'trec_eval',
      candidateLabel: 'built CLI',
      baseline: median(xs.b),
      candidate: median(xs.c),
      ratio: median(ratios),
      spread: { low: ratios[0]!, high: ratios[ratios.length - 1]!, pairs },
      note,
    };
  };
  ctx.log(`eval ir vs trec_eval: CPU ${median(cpu.b).toFixed(0)} vs ${median(cpu.c).toFixed(0)} ms, wall ${median(wall.b).toFixed(0)} vs ${median(wall.c).toFixed(0)} ms`);
  return [
    row(
      'CPU ms per process (user + system)',
      cpu,
      `same means to 4 decimals; ${trecEval} (its Makefile's build: -g, no -O); \`node -e 0\` alone ${median(bare).toFixed(0)} ms of CPU${extraCa ? ` (${median(bareCa).toFixed(0)} ms with NODE_EXTRA_CA_CERTS, unset for both processes)` : ''}; goal ≤ 1.0`,
    ),
    row('ms per process', wall, ''),
  ];
}
