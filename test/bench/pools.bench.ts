/**
 * Issue 13 item 3, issue 24 item 8: throughput of a remote model with 1, 2 and 4 endpoints. Each
 * endpoint is a loopback OpenAI-compatible server (test/support/fakeOpenAiServer.ts) answering
 * after a fixed delay, with a per-endpoint limit of concurrent requests — the shape of a GPU
 * server whose batch slots are full — so throughput is bounded by the pool's total capacity, and
 * the ideal speed-up of k endpoints over one is k. The issue asks for ≥ 0.8 × k; the row's ratio is
 * the median over repetitions (1, 2 and 4 endpoints in alternating order) of (time with k
 * endpoints) ÷ (time with one), so speed-up = 1 / ratio. 200 ms per request, as the issue measured.
 *
 * What a pool loses to the ideal is CPU time per request on the client's one event loop (here
 * shared with the fake servers): every round's 8 answers arrive together and are handled one after
 * another, so the round takes 200 ms plus 8 requests' CPU with 4 endpoints against 2 with one. The
 * client's transport was undici's fetch, about 3× the CPU per request of node:http (2.2–3.2 ms
 * against 0.6–0.9 ms on loopback on the shared 2-core machine); it now uses node:http. On a
 * machine loaded far beyond its cores the per-request CPU stretches and the ratio drops: read the
 * row with its load.
 */
import { RemoteEngine } from '../../src-main/engine/remote/remoteEngine';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { alternationRow, median, type Alternation, type BenchContext, type BenchRow } from './harness';

const delayMs = 200;
const limitPerEndpoint = 2;
const repetitions = 5;

export async function poolsBench(ctx: BenchContext): Promise<BenchRow[]> {
  const calls = Math.max(8, Math.round(24 * ctx.scale));
  const servers = await Promise.all(Array.from({ length: 4 }, () => FakeOpenAiServer.start({ delayMs })));
  let batch = 0;
  /** Wall time (ms) of all `calls` generations through a fresh engine on the first `k` servers; distinct prompts every time. */
  const run = async (k: number): Promise<number> => {
    const engine = new RemoteEngine({
      model: 'fake-model',
      endpoints: servers.slice(0, k).map((s) => ({ baseUrl: s.baseUrl, maxConcurrency: limitPerEndpoint })),
    });
    const b = batch++;
    const t0 = performance.now();
    try {
      await Promise.all(Array.from({ length: calls }, (_, i) => engine.generate({ prompt: `batch ${b} call ${i}`, maxTokens: 8, sampling: { temperature: 0 } })));
      return performance.now() - t0;
    } finally {
      await engine.close();
    }
  };
  try {
    // One warm-up round, then repetitions in alternating order (1, 2, 4 endpoints / 4, 2, 1 / …) so a
    // drift in machine load hits every size alike; both ratios use the same one-endpoint runs.
    for (const k of [1, 2, 4]) await run(k);
    const times: Record<number, number[]> = { 1: [], 2: [], 4: [] };
    for (let r = 0; r < repetitions; r++) {
      for (const k of r % 2 === 0 ? [1, 2, 4] : [4, 2, 1]) times[k]!.push(await run(k));
    }
    return [2, 4].map((k) => {
      const ratios = times[k]!.map((t, r) => t / times[1]![r]!).sort((x, y) => x - y);
      const a: Alternation = {
        baselineMs: median(times[1]!) / calls,
        candidateMs: median(times[k]!) / calls,
        ratio: median(ratios),
        low: ratios[0]!,
        high: ratios[ratios.length - 1]!,
        pairs: repetitions,
        baselineTimes: times[1]!,
        candidateTimes: times[k]!,
      };
      const speedup = 1 / a.ratio;
      ctx.log(
        `${k} endpoints: ${(1000 / a.candidateMs).toFixed(1)} calls/s vs ${(1000 / a.baselineMs).toFixed(1)} with one (ideal ${((1000 / delayMs) * limitPerEndpoint).toFixed(1)} per endpoint); speed-up ${speedup.toFixed(2)} (repetitions ${(1 / a.high).toFixed(2)}–${(1 / a.low).toFixed(2)}; ≥ ${(0.8 * k).toFixed(1)} asked)`,
      );
      return alternationRow(
        {
          suite: 'pools',
          name: `remote pool, ${k} endpoints vs 1 (${calls} calls, ${delayMs} ms per request, ${limitPerEndpoint} in flight per endpoint)`,
          metric: 'ms per call',
          better: 'lower',
          baselineLabel: '1 endpoint',
          candidateLabel: `${k} endpoints`,
          note: `speed-up ${speedup.toFixed(2)}× (ideal ${k}, asked ≥ ${(0.8 * k).toFixed(1)}); loopback fake servers with a fixed delay`,
        },
        a,
      );
    });
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}
