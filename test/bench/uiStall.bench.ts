/**
 * Issue 17 item 6: how long the UI process's event loop stalls while a 100k-document import
 * commits, on the product's path. Each side starts browser mode (the real HTTP server on
 * 127.0.0.1), imports the corpus through the API (`collections.import`) and polls the job through
 * the API every 100 ms, as the UI's job tray does, until it ends:
 * - baseline: the services and SQLite in the server's thread (`startBrowserMode`, what
 *   `fairground serve --in-process` and the app before item 6 run);
 * - candidate: the services in the service host's worker thread (`startHostedBrowserMode`, what
 *   `fairground serve` and the Electron shell run).
 * Measured in the server's thread from the import request to the job's end: the longest
 * event-loop stall (perf_hooks monitorEventLoopDelay, 10 ms resolution) and the longest API round
 * trip of the polls. Alternating repetitions (A B, B A, …, each on a fresh workspace): medians per
 * side, and the median of the per-pair ratios with its range.
 */
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startBrowserMode, startHostedBrowserMode, type ServedApp } from '../../src-main/server/browserMode';
import { median, type BenchContext, type BenchRow } from './harness';

const WORDS = 'fair ranking exposure retrieval generation utility passage answer model query document provider group attribution sample'.split(' ');

function corpus(path: string, n: number): void {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const words = Array.from({ length: 40 }, (_, j) => WORDS[(i * 7 + j * 13) % WORDS.length]).join(' ');
    lines.push(JSON.stringify({ id: `d${i}`, text: `${words} ${i}` }));
  }
  writeFileSync(path, lines.join('\n') + '\n');
}

interface Sample {
  /** Longest event-loop stall of the server's thread (ms). */
  stallMs: number;
  /** Longest round trip of a `jobs.get` poll (ms). */
  apiMs: number;
  /** Import request to the job's end (ms). */
  importMs: number;
  polls: number;
}

async function importOnce(start: (workspacePath: string) => Promise<ServedApp>, folder: string, corpusFile: string, docs: number): Promise<Sample> {
  // Browser mode reads files in the workspace's folder (allowed folders): the corpus is linked there.
  mkdirSync(folder);
  const file = join(folder, 'corpus.jsonl');
  linkSync(corpusFile, file);
  const app = await start(join(folder, 'w.fairground'));
  try {
    const call = async (method: string, input: unknown): Promise<{ ok: boolean; data?: { id: string; status: string; error: string | null }; error?: { message: string } }> => {
      const res = await fetch(`${app.server.url}api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${app.server.token}` },
        body: JSON.stringify(input),
      });
      return (await res.json()) as never;
    };
    const h = monitorEventLoopDelay({ resolution: 10 });
    h.enable();
    const t0 = performance.now();
    const started = await call('collections.import', { collectionName: 'stall', kind: 'corpus', files: [file] });
    if (!started.ok) throw new Error(`collections.import: ${started.error?.message}`);
    let apiMs = 0;
    let polls = 0;
    for (;;) {
      await new Promise((r) => setTimeout(r, 100));
      const p0 = performance.now();
      const job = await call('jobs.get', { id: started.data!.id });
      apiMs = Math.max(apiMs, performance.now() - p0);
      polls++;
      if (!job.ok) throw new Error(`jobs.get: ${job.error?.message}`);
      if (job.data!.status === 'queued' || job.data!.status === 'running') continue;
      if (job.data!.status !== 'succeeded') throw new Error(`import ${job.data!.status}: ${job.data!.error}`);
      break;
    }
    const importMs = performance.now() - t0;
    h.disable();
    const listed = await call('collections.list', {});
    const count = (listed.data as unknown as { counts: { documents: number } }[])[0]?.counts.documents;
    if (count !== docs) throw new Error(`imported ${count} documents, expected ${docs}`);
    return { stallMs: h.max / 1e6, apiMs, importMs, polls };
  } finally {
    await app.close();
  }
}

export async function uiStallBench(ctx: BenchContext): Promise<BenchRow[]> {
  const docs = Math.max(1000, Math.round(100_000 * ctx.scale));
  const pairs = ctx.scale >= 1 ? 3 : 1;
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-stall-'));
  try {
    const file = join(dir, 'corpus.jsonl');
    corpus(file, docs);
    ctx.log(`corpus of ${docs} documents written`);
    const staticDir = join(dir, 'no-ui');
    let n = 0;
    const workspace = () => join(dir, `w${n++}`);
    const inProcess = () => importOnce((w) => startBrowserMode({ workspacePath: w, staticDir }), workspace(), file, docs);
    const hosted = () => importOnce((w) => startHostedBrowserMode({ workspacePath: w, staticDir }), workspace(), file, docs);
    const base: Sample[] = [];
    const cand: Sample[] = [];
    const show = (side: string, s: Sample) =>
      ctx.log(`${side}: longest stall ${s.stallMs.toFixed(0)} ms, longest API poll ${s.apiMs.toFixed(0)} ms (${s.polls} polls), import ${(s.importMs / 1000).toFixed(1)} s`);
    for (let p = 0; p < pairs; p++) {
      // A B, then B A: a drift in machine load hits both sides alike.
      for (const side of p % 2 === 0 ? ['in', 'host'] : ['host', 'in']) {
        const s = side === 'in' ? await inProcess() : await hosted();
        (side === 'in' ? base : cand).push(s);
        show(side === 'in' ? 'services in the server thread' : 'services in the host thread', s);
      }
    }
    const summarise = (pick: (s: Sample) => number) => {
      const ratios = base.map((b, i) => pick(cand[i]!) / pick(b)).sort((x, y) => x - y);
      return { baseline: median(base.map(pick)), candidate: median(cand.map(pick)), ratio: median(ratios), spread: { low: ratios[0]!, high: ratios.at(-1)!, pairs } };
    };
    const secs = (xs: Sample[]) => `${(median(xs.map((s) => s.importMs)) / 1000).toFixed(1)} s`;
    const note = `browser mode's HTTP server, import and 100 ms job polls through the API; median import ${secs(base)} in-process, ${secs(cand)} hosted; ${pairs} alternating pair(s), each on a fresh workspace`;
    const size = docs.toLocaleString('en-US');
    return [
      {
        suite: 'uistall',
        name: `longest event-loop stall of the UI process (the HTTP server's thread) during a ${size}-document import`,
        metric: 'ms',
        baselineLabel: 'services in the server thread (--in-process)',
        candidateLabel: 'services in the host worker thread',
        better: 'lower',
        ...summarise((s) => s.stallMs),
        note,
      },
      {
        suite: 'uistall',
        name: `longest API round trip (jobs.get poll) during a ${size}-document import`,
        metric: 'ms',
        baselineLabel: 'services in the server thread (--in-process)',
        candidateLabel: 'services in the host worker thread',
        better: 'lower',
        ...summarise((s) => s.apiMs),
        note,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
