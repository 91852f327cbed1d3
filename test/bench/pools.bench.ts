/**
 * Issue 13 item 3: throughput of a remote model with 1, 2 and 4 endpoints. Each endpoint is a
 * loopback OpenAI-compatible server (test/support/fakeOpenAiServer.ts) answering after a fixed
 * delay, with a per-endpoint limit of concurrent requests — the shape of a GPU server whose batch
 * slots are full — so throughput is bounded by the pool's total capacity, and the ideal speed-up
 * of k endpoints over one is k. The issue asks for ≥ 0.8 × k; the row's ratio is the median over
 * alternating repetitions of (time with k endpoints) ÷ (time with one), so speed-up = 1 / ratio.
 */
import { RemoteEngine } from '../../src-main/engine/remote/remoteEngine';
import { FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { alternate, alternationRow, type BenchContext, type BenchRow } from './harness';

const delayMs = 200;
const limitPerEndpoint = 2;

export async function poolsBench(ctx: BenchContext): Promise<BenchRow[]> {
  const calls = Math.max(16, Math.round(32 * ctx.scale));
  const servers = await Promise.all(Array.from({ length: 4 }, () => FakeOpenAiServer.start({ delayMs })));
  let batch = 0;
  /** All `calls` generations through a fresh engine on the first `k` servers; distinct prompts every time. */
  const run = (k: number) => async () => {
    const engine = new RemoteEngine({
      model: 'fake-model',
      endpoints: servers.slice(0, k).map((s) => ({ baseUrl: s.baseUrl, maxConcurrency: limitPerEndpoint })),
    });
    const b = batch++;
    try {
      await Promise.all(Array.from({ length: calls }, (_, i) => engine.generate({ prompt: `batch ${b} call ${i}`, maxTokens: 8, sampling: { temperature: 0 } })));
    } finally {
      await engine.close();
    }
  };
  try {
    const rows: BenchRow[] = [];
    for (const k of [2, 4]) {
      const a = await alternate(run(1), run(k), { pairs: 5, per: calls });
      const speedup = 1 / a.ratio;
      ctx.log(
        `${k} endpoints: ${(1000 / a.candidateMs).toFixed(1)} calls/s vs ${(1000 / a.baselineMs).toFixed(1)} with one; speed-up ${speedup.toFixed(2)} (pairs ${(1 / a.high).toFixed(2)}–${(1 / a.low).toFixed(2)}; ≥ ${(0.8 * k).toFixed(1)} asked)`,
      );
      rows.push(
        alternationRow(
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
        ),
      );
    }
    return rows;
  } finally {
    await Promise.all(servers.map((s) => s.close()));
  }
}
