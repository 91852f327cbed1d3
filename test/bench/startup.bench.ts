/**
 * Issue 18 item 4: how fast `npx fairground` starts in a checkout, as whole processes (spawned,
 * timed from spawn to exit, alternating repetitions):
 *
 * - `fairground --version` from the current build (dist/main/cli.js, what bin/fairground.js now
 *   runs) against the same command through tsx over the sources (what it ran before), and against a
 *   raw `node -e` that prints the same line (the floor: node's own start);
 * - time to first token, `fairground model try` on the bench model with 1 thread and 1 token,
 *   against a raw node-llama-cpp script that loads the same file with the same settings and
 *   evaluates the same prompt to its first token.
 *
 * The build is brought up to date first (`scripts/build.mjs --main-only --if-stale`); the built runs
 * set FAIRGROUND_USE_DIST=1 so that an edit made during the bench cannot switch them to tsx.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { alternate, alternationRow, type BenchContext, type BenchRow } from './harness';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PROMPT = 'the query asks which document is relevant to fair ranking of passages and the answer';

function runProcess(args: string[], env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${args.join(' ')} exited ${code}: ${err.trim().split('\n').slice(-3).join(' | ')}`))));
  });
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
  const common = { suite: 'startup', metric: 'ms per process', better: 'lower' as const };
  rows.push(
    alternationRow({ ...common, name: '`fairground --version`, checkout: built output vs tsx over the sources', baselineLabel: 'tsx (before)', candidateLabel: 'built (now)' }, vsTsx),
    alternationRow(
      { ...common, name: '`fairground --version` from the build vs a raw node process printing the same line', baselineLabel: 'node -e', candidateLabel: 'built CLI', note: 'the difference is loading the CLI bundle and its packages' },
      vsRaw,
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
    const rawTtft = () => runProcess([script]);
    const cliTtft = () => runProcess([bin, 'model', 'try', modelPath, '--prompt', PROMPT, '--max-tokens', '1', '--threads', '1', '--gpu', 'off', '--workspace', join(dir, 'ws.fairground')], dist);
    const ttft = await alternate(rawTtft, cliTtft, { pairs: Math.max(3, pairs - 2) });
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
