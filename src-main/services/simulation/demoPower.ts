/**
 * Where the bundled demo specs' power reaches 0.8 (issue 23 item 3: "for each bundled demo spec, report (README and
 * the panel) the number of queries and samples at which power reaches 0.8 for a stated effect"). Measured with
 * `scripts/powerGrid.ts` on the simulated reader (20 runs per point; the power table in docs/simulated-reader.md gives every grid point,
 * seed, CPU time and load); `simulate power` and the panel show these beside a run of the same spec, and a
 * table in test/services/simulation/demoPower.test.ts keeps them equal to the docs'.
 *
 * A spec counts as the bundled one when it equals a file of resources/demo/experiments once both are read by
 * the kind's schema, name and description aside: an edited copy (other queries, samples, test) gets none.
 */
import { canonicalJson } from '../../core/canonicalJson';
import { defaultExperimentRegistry } from '../../experiments/kinds';
import { demoSpecs } from '../desktopService';

export interface MeasuredPowerPoint {
  /** The planted effect E (simulate power's effect). */
  effect: number;
  queries: number;
  /** Fair RAG's samples N per arm; null for the other kinds. */
  samples: number | null;
  power: number;
  low: number;
  high: number;
  runs: number;
  /** Which result reached the target: the star after the spec's correction, or the tested cell's raw p ≤ α. */
  criterion: string;
  seeds: string;
}

export interface MeasuredDemoPower {
  /** The bundled file, e.g. 'moi.json'. */
  file: string;
  target: number;
  points: MeasuredPowerPoint[];
  /** Measured points that did not reach the target, for the shape of the curve. */
  below: string;
  source: string;
}

const SOURCE = "docs/simulated-reader.md (power grids); scripts/powerGrid.ts on the simulated reader, 20 runs per point, 28 Nov 2026";

/** By bundled file. */
export const DEMO_POWER: Record<string, Omit<MeasuredDemoPower, 'file'>> = {
  'fair-rag.json': {
    target: 0.8,
    points: [
      { effect: 1, queries: 8, samples: 20, power: 1, low: 0.84, high: 1, runs: 20, criterion: 'star after Holm (within-query exchange test)', seeds: '20261128' },
      { effect: 0.5, queries: 32, samples: 50, power: 0.9, low: 0.7, high: 0.97, runs: 20, criterion: 'star after Holm (within-query exchange test)', seeds: '20261228, 20261600' },
    ],
    below: 'E = 1: 0.15 at 4 queries × N 20, 0.30 at 4 × 50; E = 0.5: 0.40 at 16 × 50 and 16 × 200',
    source: SOURCE,
  },
  'moi.json': {
    target: 0.8,
    points: [{ effect: 1, queries: 240, samples: null, power: 0.95, low: 0.76, high: 0.99, runs: 20, criterion: "MoI vs the retriever order alone (one comparison: Holm leaves α), ROUGE-L, paired t", seeds: '20262100, 20262200' }],
    below: 'E = 1: 0.15 at 48 queries, 0.58 at 144; 1.00 at 480. With Holm over the demo\'s 5 methods ≈ 120–240 queries (projected, not measured)',
    source: SOURCE,
  },
  'richrag.json': {
    target: 0.8,
    points: [
      { effect: 1, queries: 144, samples: null, power: 0.85, low: 0.64, high: 0.95, runs: 20, criterion: 'star after Holm over 9 conditions (list-wise vs RAG-Fusion, F1, paired t)', seeds: '20261700, 20261800' },
      { effect: 1, queries: 72, samples: null, power: 0.95, low: 0.76, high: 0.99, runs: 20, criterion: 'the tested cell\'s raw p ≤ α (no correction)', seeds: '20261500' },
    ],
    below: 'E = 1, star after Holm: 0.15 at 24 queries, 0.70 at 72 and 96',
    source: SOURCE,
  },
};

function comparable(kind: string, spec: Record<string, unknown>): string | null {
  const k = defaultExperimentRegistry().get(kind);
  if (!k) return null;
  const parsed = k.schema.safeParse(spec);
  if (!parsed.success) return null;
  const { name: _name, description: _description, ...rest } = parsed.data as Record<string, unknown>;
  return canonicalJson(rest);
}

/** The measured power of the bundled demo spec `spec` is (null: not a bundled spec, or one without a measurement). */
export function measuredDemoPower(spec: Record<string, unknown>, dir?: string): MeasuredDemoPower | null {
  const kind = String(spec.kind);
  const own = comparable(kind, spec);
  if (own === null) return null;
  for (const demo of dir === undefined ? (bundledForms ??= comparableDemoSpecs()) : comparableDemoSpecs(dir)) {
    if (demo.kind === kind && demo.form === own) return { file: demo.file, ...DEMO_POWER[demo.file]! };
  }
  return null;
}

/** The bundled demo specs that have a measurement, each in its comparable form: read once per process (they ship with the app). */
let bundledForms: { file: string; kind: string; form: string | null }[] | undefined;

function comparableDemoSpecs(dir?: string): { file: string; kind: string; form: string | null }[] {
  return (dir === undefined ? demoSpecs() : demoSpecs(dir)).filter((d) => DEMO_POWER[d.file] !== undefined).map((d) => ({ file: d.file, kind: d.kind, form: comparable(d.kind, d.spec) }));
}
