/**
 * Fair RAG's power simulation (services/simulation/power.ts; Table 2: the α arms vs the deterministic
 * ranking): the deterministic top-1 document of the spec's first retriever has planted utility e for its
 * query and every other candidate 0, so the deterministic arm answers right with probability
 * c + (1 − c)·ã₁·e and a sampled arm with c + (1 − c)·e·E[ã at that document's position, 0 when it is not
 * sampled]: a difference linear in e (the collection's own labels would make the two arms' difference
 * depend on how good the retriever is, not on e: power 0.20 / 0.27 / 0.17 was measured at e = 0 / 0.5 / 1,
 * the mean difference even negative). The test is Table 2's interval with the most α runs.
 */
import type { KindPower, PowerTestOutcome } from '../registry';
import { withGenerator } from '../readerSpec';

export const FAIR_RAG_EFFECT = "the planted utility of the deterministic top-1 document of the spec's first retriever (every other candidate 0): the gap between the deterministic arm and the sampled α arms that Table 2 tests grows linearly with it";

export const fairRagPower: KindPower = {
  effect: FAIR_RAG_EFFECT,
  samples: (spec) => Number(spec.samples ?? 100),
  /** Per selected query, the top-1 document of the first retriever (read through the kind's own prompt preview, so it is the ranking the run uses) gets utility e. */
  async plant(scratch, base, spec, selected) {
    const name = 'Simulated reader (power: deterministic ranking)';
    scratch.addSim(name, { ...base, seed: 0 });
    const probe = { ...(withGenerator(spec, name) as Record<string, unknown>), name: 'power probe' };
    const cid = scratch.collections.byName(String(spec.collection))!.id;
    const queries = new Map(scratch.collections.listQueries(cid, { limit: 1_000_000_000 }).items.map((q) => [q.queryId, q]));
    let allDocs: string[] | null = null;
    const top = new Map<string, { top1: string; candidates: string[] }>();
    for (const qid of selected) {
      let ranking: string[];
      try {
        ranking = (await scratch.previewPrompt(probe, qid)).ranking;
      } catch {
        continue; // a query the run skips (no candidates, no answer): nothing to plant
      }
      const q = queries.get(qid);
      allDocs ??= q?.candidates ? null : scratch.collections.listDocuments(cid, { limit: 1_000_000_000 }).items.map((d) => d.docId);
      const candidates = q?.candidates ?? allDocs ?? [];
      if (ranking[0] !== undefined) top.set(qid, { top1: ranking[0], candidates });
    }
    return (effect) => ({ utilityScale: 1, utilities: Object.fromEntries([...top].map(([qid, t]) => [qid, Object.fromEntries(t.candidates.map((d) => [d, d === t.top1 ? effect : 0]))])) });
  },
  primaryTest(metrics): PowerTestOutcome {
    const t = metrics.table2 as {
      alpha: number;
      test: string;
      correction?: string;
      rows: { retriever: string; cells: { lower: number; upper: number; runs: number; significant: boolean; pValue?: number | null; difference: number | null; pairedDifference?: number | null }[] }[];
    };
    const row = t.rows[0];
    const cells = row?.cells ?? [];
    const cell = [...cells].sort((a, b) => b.runs - a.runs)[0];
    return {
      significant: cell?.significant ?? false,
      pValue: cell?.pValue ?? null,
      familySignificant: cells.some((c) => c.significant),
      // What the test tests: the per-query paired difference where the table has it (deterministic − … reversed: arms − deterministic).
      difference: cell ? (cell.pairedDifference !== undefined ? cell.pairedDifference : cell.difference) : null,
      description: cell ? `EU of the α runs with EE-D̄ in [${cell.lower}, ${cell.upper}) vs the deterministic ranking on ${row!.retriever} (Table 2, the interval with the most runs)` : 'Table 2 (no cell)',
      alpha: t.alpha,
      test: t.test,
      correction: t.correction ?? 'none',
    };
  },
};
