/**
 * Issue 13: the one work queue per engine.
 *
 * 1. Queue vs the old per-query barrier on an α = 8-only Fair RAG spec (LaMP-like synthetic queries
 *    from the fair-rag bench, the experiment's own planner): α = 8 leaves about two distinct prompts
 *    per query, so the old executor — each query's prompts in a pool, the next query only after
 *    the last call of this one — kept at most about two calls in flight whatever the server's
 *    capacity. The baseline replays exactly that schedule; the candidate is the kinds' own
 *    `forEachUnit` (every query's prompts drawn lazily into the queue). Both call the same cached
 *    engine over a loopback OpenAI-compatible server with a fixed delay and 8 slots (a GPU server);
 *    prompts are fresh in every repetition, so nothing comes from the cache.
 * 2. Calls in flight per kind: the most requests the server saw at once while `fairground run`
 *    executed the demo's MoI and RichRAG specs and `label utility` labelled the demo
 *    collection, on a remote model with limit 4. Before the queue, MoI, RichRAG and labeling made
 *    one call at a time (baseline 1).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { CachedEngine } from '../../src-main/engine/callCache';
import { RemoteEngine } from '../../src-main/engine/remote/remoteEngine';
import { forEachUnit, lanesFor } from '../../src-main/experiments/concurrency';
import { planQuery } from '../../src-main/experiments/fair-rag/plan';
import { promptRenderer } from '../../src-main/experiments/fair-rag/prompt';
import { createAppServices } from '../../src-main/services/appServices';
import { CallCacheRepo } from '../../src-main/store/callCacheRepo';
import { openWorkspace } from '../../src-main/store/workspace';
import { copyWorkspace, makeDemoWorkspace } from '../experiments/fixture';
import { runCliCaptured } from '../support/cli';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { syntheticQueries } from './fairrag.bench';
import { alternate, alternationRow, row, type BenchContext, type BenchRow } from './harness';

const DELAY_MS = 50;
const SLOTS = 8;

export async function queueBench(ctx: BenchContext): Promise<BenchRow[]> {
  return [...(await barrierRow(ctx)), ...(await inFlightRows(ctx))];
}

async function barrierRow(ctx: BenchContext): Promise<BenchRow[]> {
  const queries = syntheticQueries(Math.max(10, Math.round(60 * ctx.scale)));
  const spec = FairRagSpec.parse({ kind: 'fair-rag', name: 'bench', collection: 'lamp2', retrievers: [{ name: 'bm25', method: 'bm25' }], generator: { model: 'bench' }, k: 5, samples: 100, alphas: [8], deterministic: false, oracle: false });
  const render = promptRenderer(spec);
  const perQuery = queries.map((q) => planQuery(spec, q, render).generations.map((g) => g.prompt));
  const calls = perQuery.reduce((a, p) => a + p.length, 0);
  const server = await FakeOpenAiServer.start({ models: ['bench-model'], delayMs: DELAY_MS });
  const ws = openWorkspace(':memory:');
  const engine = new CachedEngine(new RemoteEngine({ baseUrl: server.baseUrl, model: 'bench-model', maxConcurrency: SLOTS }), new CallCacheRepo(ws.db), { capacity: () => SLOTS });
  const signal = new AbortController().signal;
  let rep = 0;
  const request = (prompt: string, r: number) => ({ prompt: `${r} ${prompt}`, maxTokens: 4, sampling: { temperature: 0 } });
  try {
    const barrier = async () => {
      const r = rep++;
      for (const prompts of perQuery) await forEachUnit(prompts, SLOTS, signal, async (p) => void (await engine.generate(request(p, r))));
    };
    const queued = async () => {
      const r = rep++;
      const all = function* () {
        for (const prompts of perQuery) yield* prompts;
      };
      await forEachUnit(all(), lanesFor(engine), signal, async (p) => void (await engine.generate(request(p, r))));
    };
    const a = await alternate(barrier, queued, { pairs: 3, warmup: 0, per: calls });
    ctx.log(`α=8 only: ${queries.length} queries, ${calls} distinct prompts (${(calls / queries.length).toFixed(2)} per query): barrier ${a.baselineMs.toFixed(1)} ms/call, queue ${a.candidateMs.toFixed(1)} ms/call`);
    return [
      alternationRow(
        {
          suite: 'queue',
          name: `Fair RAG α=8 only, ${queries.length} queries (${calls} prompts), loopback server ${DELAY_MS} ms/request, ${SLOTS} slots`,
          metric: 'ms per call (lower is better)',
          better: 'lower',
          baselineLabel: 'per-query barrier (old)',
          candidateLabel: 'one queue',
          note: `speed-up ${(1 / a.ratio).toFixed(2)}×; the barrier keeps ≈ ${(calls / queries.length).toFixed(1)} calls in flight`,
        },
        a,
      ),
    ];
  } finally {
    await engine.close();
    ws.close();
    await server.close();
  }
}

async function inFlightRows(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-queue-bench-'));
  const server = await FakeOpenAiServer.start({ models: ['lab-model'], delayMs: 40 });
  try {
    const base = await makeDemoWorkspace(dir, 'base.fairground');
    const s = createAppServices(base, { transport: 'http' });
    try {
      await s.models.addRemote({ name: 'lab', baseUrl: server.baseUrl, model: 'lab-model', serverKind: 'vllm', maxConcurrency: 4 });
    } finally {
      await s.close();
    }
    const demo = (name: string) => ({ ...(JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', `${name}.json`), 'utf8')) as object), generator: { remote: 'lab' } });
    const kinds: [string, string[] | Record<string, unknown>][] = [
      ['MoI', demo('moi')],
      ['RichRAG', demo('richrag')],
      ['utility labeling', ['label', 'utility', '--collection', 'Fairground demo', '--remote', 'lab']],
    ];
    const rows: BenchRow[] = [];
    for (const [i, [kind, what]] of kinds.entries()) {
      const ws = copyWorkspace(base, join(dir, `w${i}.fairground`));
      let argv: string[];
      if (Array.isArray(what)) argv = [...what, '--workspace', ws];
      else {
        const file = join(dir, `spec${i}.json`);
        writeFileSync(file, JSON.stringify(what));
        argv = ['run', file, '--workspace', ws];
      }
      server.maxInFlight = 0;
      const t0 = performance.now();
      const r = await runCliCaptured(argv, { cwd: dir });
      if (r.code !== 0) throw new Error(`${kind}: ${r.stderr}`);
      ctx.log(`${kind}: at most ${server.maxInFlight} calls in flight (limit 4) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      rows.push(
        row({
          suite: 'queue',
          name: `${kind}: calls in flight at once (remote model, limit 4, 40 ms per request)`,
          metric: 'calls in flight (higher is better)',
          better: 'higher',
          baselineLabel: 'old: one at a time',
          candidateLabel: 'queue',
          baseline: 1,
          candidate: server.maxInFlight,
          note: 'the most requests the server saw at once',
        }),
      );
    }
    return rows;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
