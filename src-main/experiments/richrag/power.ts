/**
 * RichRAG's power simulation (services/simulation/power.ts; Table 1: the first list-wise condition vs the
 * baseline, RAG-Fusion): the documents the baseline shows for a query (read once from a probe run of the
 * spec on the reader at noise 0: its retrieval and RAG-Fusion are deterministic) get no sub-aspect
 * coverage, and every other document its coverage scaled by e (`coverages`, `utilityScale`): the baseline
 * answers each aspect with the closed-book probability at every e, the list-wise ranker finds the covering
 * documents of the pool more often and they help more as e grows, and at e = 0 no document helps either
 * row, so the two rows are equal in distribution. (Scaling every coverage instead leaves the rows' gap tiny
 * and not monotone: both lists cover most aspects and the answer rule saturates.)
 */
import type { KindPower } from '../registry';
import { withGenerator } from '../readerSpec';

export const RICHRAG_EFFECT = "the sub-aspect coverage of the pool's documents that the baseline (RAG-Fusion) does not show, whose own documents cover nothing (0: no document helps either row): the gap between the list-wise ranker's condition and the baseline that Table 1 tests grows with it";

export const richRagPower: KindPower = {
  effect: RICHRAG_EFFECT,
  async plant(scratch, base, spec, selected) {
    const name = 'Simulated reader (power: baseline documents)';
    scratch.addSim(name, { ...base, seed: 0, noise: 0 });
    const probe: Record<string, unknown> = { ...(withGenerator(spec, name) as Record<string, unknown>), name: 'power probe', queries: [...selected] };
    delete probe.tasks;
    const runId = await scratch.runToEnd(probe);
    const baseline = (scratch.metrics(runId) as { table1: { baseline: string | null } }).table1.baseline;
    const hidden: Record<string, Record<string, number>> = {};
    for (const { queryId, payload } of scratch.items(runId, baseline ?? '')) {
      const p = payload as { type?: string; ranking?: string[] };
      if (p.type !== 'generation' || !p.ranking) continue;
      hidden[queryId] = Object.fromEntries(p.ranking.map((d) => [d, 0]));
    }
    return (effect) => ({ utilityScale: effect, coverages: hidden });
  },
  primaryTest(metrics) {
    const t = metrics.table1 as { measures: string[]; baseline: string | null; alpha: number; test: string; correction: string; rows: { condition: string; framework: string; cells: Record<string, { significant: boolean; pValue: number | null; delta: number | null }> }[] };
    const measure = t.measures[0]!;
    const candidates = t.rows.filter((r) => r.condition !== t.baseline);
    const row = candidates.find((r) => r.framework === 'listwise') ?? candidates[0];
    const cell = row?.cells[measure];
    return { significant: cell?.significant ?? false, pValue: cell?.pValue ?? null, familySignificant: candidates.some((r) => r.cells[measure]?.significant === true), difference: cell?.delta ?? null, description: `${row?.condition ?? '?'} vs ${t.baseline ?? 'baseline'} on ${measure} (Table 1)`, alpha: t.alpha, test: t.test, correction: t.correction };
  },
};
