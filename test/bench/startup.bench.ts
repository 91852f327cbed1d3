/**
 * Issue 18 item 4: how fast `npx fairground` starts in a checkout, as whole processes (spawned,
 * timed from spawn to exit, alternating repetitions):
 *
 * - `fairground --version` from the current build (dist/main/cli.js, what bin/fairground.js now
 *   runs) against the same command through tsx over the sources (what it ran before), and against a
 *   raw `node -e` that prints the same line (the floor: node's own start);
 * - `fairground --help` and a light command (`eval ir` on a 2-query run) against `node -e` printing
 *   the same output (the CLI imports a command's module only when it runs: cli/commands/index.ts);
 * - time to first token, `fairground model try` on the bench model with 1 thread and 1 token,
 *   against a raw node-llama-cpp script that loads the same file with the same settings and
 *   evaluates the same prompt to its first token.
 *
 * The build is brought up to date first (`scripts/build.mjs --main-only --if-stale`); the built runs
 * set FAIRGROUND_USE_DIST=1 so that an edit made during the bench cannot switch them to tsx.
 */
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { alternate, alternationRow, median, type BenchContext, type BenchRow } from './harness';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PROMPT = 'the query asks which document is relevant to fair ranking of passages and the answer';

function runProcess(args: string[], env: Record<string, string> = {}, command: string = process.execPath): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`))));
  });
}

/** Milliseconds from spawn to the first HTTP 200 of `/` (the app page), and to a stderr line matching `readyLine`. */
function firstPage(args: string[], env: Record<string, string>, readyLine?: RegExp): Promise<{ firstMs: number; readyMs: number | undefined }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let firstMs: number | undefined;
    let readyMs: number | undefined;
    let asked = false;
    const finish = () => {
      if (firstMs === undefined || (readyLine && readyMs === undefined)) return;
      child.kill('SIGTERM');
    };
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
      if (!url || asked) return;
      asked = true;
      const get = (): void => {
        http
          .get(url, (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode !== 200) return reject(new Error(`${url}: HTTP ${res.statusCode}`));
              firstMs = performance.now() - t0;
              finish();
            });
          })
          .on('error', () => setTimeout(get, 2));
      };
      get();
    });
    child.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (readyLine && readyMs === undefined && readyLine.test(err)) {
        readyMs = performance.now() - t0;
        finish();
      }
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (firstMs !== undefined && (!readyLine || readyMs !== undefined)) resolve({ firstMs, readyMs });
      else reject(new Error(`${args.join(' ')} exited ${code} before serving: ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

/**
 * Issue 25 item 2: `fairground serve` (built) to the first HTTP 200 of the app page, against a bare
 * Node HTTP server to its first 200 (both print their URL once listening; the GET follows at
 * once), in alternating pairs, on an existing workspace and on a fresh one each time. The time
 * until the workspace is open and set up (serve's `Workspace:` line) is noted beside.
 */
export async function serveRows(ctx: BenchContext, pairs: number, bin: string, dist: Record<string, string>): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-serve-'));
  try {
    const bare = ['-e', "const s = require('node:http').createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + s.address().port + '/'))"];
    const serveArgs = (ws: string) => [bin, 'serve', '--no-open', '--port', '0', '--workspace', ws];
    const existing = join(dir, 'existing.fairground');
    await firstPage(serveArgs(existing), dist, /^Workspace: /m); // creates it with the demo
    let fresh = 0;
    const rows: BenchRow[] = [];
    for (const [label, wsFor] of [
      ['an existing workspace (with the demo)', () => existing],
      ['a fresh workspace (demo set up behind the page)', () => join(dir, `fresh-${fresh++}.fairground`)],
    ] as const) {
      const b: number[] = [];
      const c: number[] = [];
      const ready: number[] = [];
      const runBare = async () => b.push((await firstPage(bare, {})).firstMs);
      const runServe = async () => {
        const r = await firstPage(serveArgs(wsFor()), dist, /^Workspace: /m);
        c.push(r.firstMs);
        ready.push(r.readyMs as number);
      };
      await runBare();
      await runServe(); // warm-up pair, not recorded
      b.length = 0;
      c.length = 0;
      ready.length = 0;
      for (let p = 0; p < pairs; p++) {
        if (p % 2 === 0) {
          await runBare();
          await runServe();
        } else {
          await runServe();
          await runBare();
        }
      }
      const ratios = c.map((x, i) => x / (b[i] as number)).sort((x, y) => x - y);
      ctx.log(`serve, ${label}: bare node ${median(b).toFixed(0)} ms, fairground serve ${median(c).toFixed(0)} ms to the first 200; workspace open after ${median(ready).toFixed(0)} ms`);
      rows.push(
        alternationRow(
          {
            suite: 'startup',
            metric: 'ms to the first HTTP 200',
            better: 'lower',
            name: `\`fairground serve\` (built) to the first 200 of the app page on ${label} vs a bare Node HTTP server to its first 200`,
            baselineLabel: 'bare node http',
            candidateLabel: 'fairground serve',
            note: `the workspace opens behind the page (app.startup): open and set up after ${median(ready).toFixed(0)} ms [${Math.min(...ready).toFixed(0)}–${Math.max(...ready).toFixed(0)}]; goal ≤ 3× on an existing workspace`,
          },
          { baselineMs: median(b), candidateMs: median(c), ratio: median(ratios), low: ratios[0] as number, high: ratios[ratios.length - 1] as number, pairs, baselineTimes: b, candidateTimes: c },
        ),
      );
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startupBench(ctx: BenchContext): Promise<BenchRow[]> {
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--main-only', '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
  const current = existsSync(join(root, 'dist', 'main', 'build-inputs.json'));
  ctx.log(current ? 'dist/main is current' : 'dist/main could not be stamped current (sources changed during the build); built runs are forced');
  const pairs = Math.max(3, Math.round(7 * Math.min(1, ctx.scale)));
  const bin = join(root, 'bin', 'fairground.js');
  const dist = { FAIRGROUND_USE_DIST: '1' };
  const rows: BenchRow[] = [];

  const version = await runProcess([bin, '--version'], dist);
  const raw = () => runProcess(['-e', `process.stdout.write(${JSON.stringify(version)})`]);
  const built = () => runProcess([bin, '--version'], dist);
  const sources = () => runProcess([bin, '--version'], { FAIRGROUND_USE_SOURCE: '1' });
  const vsTsx = await alternate(sources, built, { pairs });
  ctx.log(`--version: tsx ${vsTsx.baselineMs.toFixed(0)} ms, built ${vsTsx.candidateMs.toFixed(0)} ms`);
  const vsRaw = await alternate(raw, built, { pairs });
  ctx.log(`--version: raw node ${vsRaw.baselineMs.toFixed(0)} ms, built ${vsRaw.candidateMs.toFixed(0)} ms`);
  // `--help` and a light command (eval ir on a two-query file) against node printing the same output:
  // since the CLI loads each command's module on demand, neither loads the other commands.
  const help = await runProcess([bin, '--help'], dist);
  const vsRawHelp = await alternate(() => runProcess(['-e', `process.stdout.write(${JSON.stringify(help)})`]), () => runProcess([bin, '--help'], dist), { pairs });
  ctx.log(`--help: raw node ${vsRawHelp.baselineMs.toFixed(0)} ms, built ${vsRawHelp.candidateMs.toFixed(0)} ms`);
  const small = mkdtempSync(join(tmpdir(), 'fg-bench-startup-ir-'));
  let vsRawIr;
  try {
    writeFileSync(join(small, 'q.qrels'), '1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n');
    writeFileSync(join(small, 'r.trec'), '1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d3 1 1.0 r\n');
    const irArgs = [bin, 'eval', 'ir', '--run', join(small, 'r.trec'), '--qrels', join(small, 'q.qrels'), '-m', 'AP', '-m', 'nDCG@10'];
    const irOut = await runProcess(irArgs, dist);
    // The floor: node reading both files and printing the same lines.
    const rawIr = `const fs = require('node:fs'); fs.readFileSync(${JSON.stringify(join(small, 'r.trec'))}); fs.readFileSync(${JSON.stringify(join(small, 'q.qrels'))}); process.stdout.write(${JSON.stringify(irOut)})`;
    vsRawIr = await alternate(() => runProcess(['-e', rawIr]), () => runProcess(irArgs, dist), { pairs });
    ctx.log(`eval ir (2 queries): raw node ${vsRawIr.baselineMs.toFixed(0)} ms, built ${vsRawIr.candidateMs.toFixed(0)} ms`);
  } finally {
    rmSync(small, { recursive: true, force: true });
  }
  rows.push(...(await serveRows(ctx, pairs, bin, dist)));
  const common = { suite: 'startup', metric: 'ms per process', better: 'lower' as const };
  rows.push(
    alternationRow({ ...common, name: '`fairground --version`, checkout: built output vs tsx over the sources', baselineLabel: 'tsx (before)', candidateLabel: 'built (now)' }, vsTsx),
    alternationRow(
      { ...common, name: '`fairground --version` from the build vs a raw node process printing the same line', baselineLabel: 'node -e', candidateLabel: 'built CLI', note: 'cli.js holds only the dispatch and the command list; command modules load on demand' },
      vsRaw,
    ),
    alternationRow(
      { ...common, name: '`fairground --help` from the build vs a raw node process printing the same text', baselineLabel: 'node -e', candidateLabel: 'built CLI', note: 'lists every command without loading any command module' },
      vsRawHelp,
    ),
    alternationRow(
      {
        ...common,
        name: '`fairground eval ir` on a 2-query run from the build vs a raw node process reading both files and printing the same lines',
        baselineLabel: 'node -e',
        candidateLabel: 'built CLI',
        note: 'a light command loads only its own chunks (reading a run no longer loads yaml: 1.94× before)',
      },
      vsRawIr,
    ),
  );

  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-startup-'));
  try {
    const modelDir = join(tmpdir(), 'fairground-bench');
    mkdirSync(modelDir, { recursive: true });
    const modelPath = join(modelDir, 'bench-seed0.gguf');
    if (!existsSync(modelPath)) await writeTinyGguf(modelPath, { preset: 'bench', seed: 0 });
    const script = join(dir, 'raw-first-token.mjs');
    // The engine's settings for this call: CPU, 1 thread, context 4096 capped by the model's, one sequence.
    writeFileSync(
      script,
      `import { getLlama, LlamaLogLevel } from ${JSON.stringify(join(root, 'node_modules', 'node-llama-cpp', 'dist', 'index.js'))};
const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.warn });
const model = await llama.loadModel({ modelPath: ${JSON.stringify(modelPath)} });
const context = await model.createContext({ contextSize: Math.min(4096, model.trainContextSize || 4096), batchSize: 512, sequences: 1, threads: 1 });
const sequence = context.getSequence();
for await (const token of sequence.evaluate(model.tokenize(${JSON.stringify(PROMPT)}), { temperature: 0 })) {
  process.stdout.write(model.detokenize([token]) + '\\n');
  break;
}
await context.dispose();
await model.dispose();
await llama.dispose();
`,
    );
    // Each run also records the CPU time (user + system) of its whole process tree through
    // /usr/bin/time where there is one: on a busy machine wall times swing by 2x, CPU time much less.
    const cpu = { raw: [] as number[], cli: [] as number[] };
    const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
    const cpuFile = join(dir, 'cpu.txt');
    const timed = async (args: string[], env: Record<string, string>, into: number[]): Promise<void> => {
      if (!timeBin) {
        await runProcess(args, env);
        return;
      }
      await runProcess(['-o', cpuFile, '-f', '%U %S', process.execPath, ...args], env, timeBin);
      const [user, sys] = readFileSync(cpuFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      into.push(((user ?? 0) + (sys ?? 0)) * 1000);
    };
    const cliArgs = [bin, 'model', 'try', modelPath, '--prompt', PROMPT, '--max-tokens', '1', '--threads', '1', '--gpu', 'off', '--workspace', join(dir, 'ws.fairground')];
    const ttft = await alternate(() => timed([script], {}, cpu.raw), () => timed(cliArgs, dist, cpu.cli), { pairs: Math.max(3, pairs - 2) });
    ctx.log(`first token: raw node-llama-cpp ${ttft.baselineMs.toFixed(0)} ms, fairground model try ${ttft.candidateMs.toFixed(0)} ms`);
    rows.push(
      alternationRow(
        {
          ...common,
          name: 'time to first token, `fairground model try` (built, bench model, 1 thread) vs a raw node-llama-cpp script',
          baselineLabel: 'raw node-llama-cpp',
          candidateLabel: 'fairground model try',
          note: 'process start to exit, 1 token; the CLI also starts the engine worker process',
        },
        ttft,
      ),
    );
    // The warm-up pair is recorded too; the measured pairs are the last ones.
    const measured = ttft.pairs;
    if (cpu.raw.length >= measured && cpu.cli.length >= measured) {
      const rawCpu = cpu.raw.slice(-measured);
      const cliCpu = cpu.cli.slice(-measured);
      const ratios = cliCpu.map((c, i) => c / (rawCpu[i] as number)).sort((x, y) => x - y);
      ctx.log(`first token CPU: raw node-llama-cpp ${median(rawCpu).toFixed(0)} ms, fairground model try ${median(cliCpu).toFixed(0)} ms`);
      rows.push(
        alternationRow(
          {
            ...common,
            metric: 'CPU ms per process tree',
            name: 'time to first token as CPU time (user + system of every process), the same runs',
            baselineLabel: 'raw node-llama-cpp',
            candidateLabel: 'fairground model try',
            note: 'both include node-llama-cpp testing its binary in a child process; the CLI adds its own process and the worker process start',
          },
          { baselineMs: median(rawCpu), candidateMs: median(cliCpu), ratio: median(ratios), low: ratios[0] as number, high: ratios[ratios.length - 1] as number, pairs: measured, baselineTimes: rawCpu, candidateTimes: cliCpu },
        ),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
