/**
 * MoI's power simulation (services/simulation/power.ts; Table 1: MoI's order vs the retriever order of
 * the same passages): the planted effect is the strength of the reader's position bias (`biasStrength`,
 * engine/sim/profile.ts). At e = 0 the reader spreads its total attention evenly over the positions, so no
 * order of the same passages can change an answer and every ordering method answers each query with the
 * same probability (interior, not saturated: the answer rule keeps Σ ã); the gap the reader makes between
 * two orders is linear in e, and e = 1 is the spec's own reader.
 */
import type { KindPower } from '../registry';

export const MOI_EFFECT = "the strength of the reader's position bias (0: the same total attention spread evenly over the positions, so no order of the same passages changes an answer; 1: the spec's reader): the gap between MoI's order and the retriever order that Table 1 tests grows linearly with it";

export const moiPower: KindPower = {
  effect: MOI_EFFECT,
  plant: () => Promise.resolve((effect) => ({ biasStrength: effect })),
  primaryTest(metrics) {
    const t = metrics.table1 as { rows: { method: string; cells: { significant: boolean; pValue: number | null; difference: number | null }[] }[]; columns: { measure: string }[]; baseline: string | null; alpha: number; test: string; correction: string };
    const row = t.rows.find((r) => r.method === 'moi');
    const cell = row?.cells[0];
    return { significant: cell?.significant ?? false, pValue: cell?.pValue ?? null, familySignificant: t.rows.some((r) => r.cells[0]?.significant === true), difference: cell?.difference ?? null, description: `MoI vs ${t.baseline ?? 'the retriever order'} on ${t.columns[0]?.measure ?? 'the primary measure'} (Table 1)`, alpha: t.alpha, test: t.test, correction: t.correction };
  },
};
