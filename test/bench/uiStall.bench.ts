/**
 * Issue 17 item 6: how long the UI process's event loop stalls while a 100k-document import
 * commits. Baseline: the import runs in the process that serves the UI (browser mode's server, or
 * Electron's main process), as the app does today. Candidate: the same import in a worker thread
 * while the UI process's loop is measured, which is what moving services and SQLite off the UI
 * process gives. Longest stall = the largest event-loop delay (perf_hooks monitorEventLoopDelay,
 * 10 ms resolution) seen from the import's start to its end. Alternating pairs on a busy machine
 * are too slow at this size, so each side runs once; the note gives both import times.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { contract } from '../../src-main/api/contract/index';
import { createAppServices } from '../../src-main/services/appServices';
import { row, type BenchContext, type BenchRow } from './harness';

const WORDS = 'fair ranking exposure retrieval generation utility passage answer model query document provider group attribution sample'.split(' ');

function corpus(path: string, n: number): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 40 }, (_, j) => WORDS[(i * 7 + j * 13) % WORDS.length]).join(' ');
    lines.push(JSON.stringify({ id: `d${i}`, text: `${words} ${i}` }));
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

async function measure(run: () => Promise<void>): Promise<{ maxStallMs: number; ms: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  h.disable();
  return { maxStallMs: h.max / 1e6, ms };
}

export async function uiStallBench(ctx: BenchContext): Promise<BenchRow[]> {
  const docs = Math.max(1000, Math.round(100_000 * ctx.scale));
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-stall-'));
  try {
    const file = join(dir, 'corpus.jsonl');
    corpus(file, docs);
    ctx.log(`corpus of ${docs} documents written`);
    const inProcess = await measure(async () => {
      const s = createAppServices(join(dir, 'in.fairground'), { transport: 'http', pathAccess: 'any' });
      const job = s.collections.startImport(contract['collections.import'].input.parse({ collectionName: 'stall', kind: 'corpus', files: [file] }));
      const done = await s.jobs.wait(job.id);
      await s.close();
      if (done.status !== 'succeeded') throw new Error(`in-process import ${done.status}: ${done.error}`);
    });
    ctx.log(`in the UI process: longest stall ${inProcess.maxStallMs.toFixed(0)} ms, import ${(inProcess.ms / 1000).toFixed(1)} s`);
    const offThread = await measure(
      () =>
        new Promise<void>((resolve, reject) => {
          // The worker is TypeScript: register tsx's loader in it first (loader flags do not reach workers).
          const tsx = import.meta.resolve('tsx/esm/api');
          const entry = new URL('./uiStall.worker.ts', import.meta.url).href;
          const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
          const w = new Worker(boot, { eval: true, workerData: { workspace: join(dir, 'off.fairground'), file } });
          w.once('message', (m: { status: string; error: string | null }) => (m.status === 'succeeded' ? resolve() : reject(new Error(`worker import ${m.status}: ${m.error}`))));
          w.once('error', reject);
        }),
    );
    ctx.log(`off the UI thread: longest stall ${offThread.maxStallMs.toFixed(0)} ms, import ${(offThread.ms / 1000).toFixed(1)} s`);
    return [
      row({
        suite: 'ui',
        name: `longest event-loop stall of the UI process during a ${docs.toLocaleString('en-US')}-document import`,
        metric: 'ms',
        baselineLabel: 'import in the UI process',
        candidateLabel: 'import in a worker thread',
        baseline: inProcess.maxStallMs,
        candidate: offThread.maxStallMs,
        better: 'lower',
        note: `one run each; import ${(inProcess.ms / 1000).toFixed(1)} s in-process, ${(offThread.ms / 1000).toFixed(1)} s in the worker; the app still imports in-process (item 6's move is not done)`,
      }),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
