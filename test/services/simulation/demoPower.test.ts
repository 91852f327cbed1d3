/**
 * Where power reaches 0.8 (issue 23 item 3): the first grid point of a `simulate power` report, hand-built rows;
 * the bundled demo specs' measured points (services/simulation/demoPower.ts) are matched to the bundled spec
 * only (an edited copy gets none), their intervals are the Wilson intervals of their counts, and the README
 * states each of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PowerRow } from '../../../src-main/api/contract/models';
import { DEMO_POWER, measuredDemoPower } from '../../../src-main/services/simulation/demoPower';
import { gridPoint, powerTargets, wilson } from '../../../src-main/services/simulation/power';

const row = (effect: number, queries: number, samples: number | null, significant: number, reps = 20): PowerRow => ({
  effect,
  queries,
  samples,
  reps,
  significant,
  power: significant / reps,
  ...wilson(significant, reps),
  meanDifference: null,
});
const demo = (file: string) => JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', file), 'utf8')) as Record<string, unknown>;

describe('powerTargets', () => {
  it('takes the fewest queries, then the fewest samples, whose power is ≥ the target; effect 0 is no target', () => {
    const rows = [row(0, 8, 20, 1), row(1, 16, 50, 19), row(1, 8, 50, 16), row(1, 8, 20, 15), row(0.5, 8, 20, 3), row(0.5, 32, 20, 12)];
    const t = powerTargets(rows);
    expect(t.map((x) => x.effect)).toEqual([0.5, 1]);
    // 0.5: 0.15 at 8 × 20, 0.60 at 32 × 20: not reached; the largest point is 32 × 20.
    expect(t[0]).toMatchObject({ effect: 0.5, target: 0.8, reached: null, largest: { queries: 32, samples: 20, power: 0.6 } });
    // 1: 8 × 20 has 0.75 < 0.8, 8 × 50 has exactly 0.80 (≥), 16 × 50 has 0.95: 8 × 50 comes first.
    expect(t[1]!.reached).toMatchObject({ queries: 8, samples: 50, power: 0.8 });
    expect(t[1]!.largest).toMatchObject({ queries: 16, samples: 50 });
    expect(powerTargets(rows, 0.96)[1]!.reached).toBeNull();
    expect(gridPoint({ queries: 8, samples: 50 })).toBe('8 queries × N = 50');
    expect(gridPoint({ queries: 1, samples: null })).toBe('1 query');
  });
});

describe('the bundled demo specs’ measured power', () => {
  it('belongs to the bundled spec as shipped (name and description aside), not to an edited copy', () => {
    const moi = demo('moi.json');
    expect(measuredDemoPower(moi)).toMatchObject({ file: 'moi.json', target: 0.8, points: [{ effect: 1, queries: 240, power: 0.95 }] });
    expect(measuredDemoPower({ ...moi, name: 'my copy', description: 'renamed' })?.file).toBe('moi.json');
    expect(measuredDemoPower({ ...moi, n: 3 })).toBeNull();
    expect(measuredDemoPower({ ...moi, significance: { test: 'randomization', correction: 'holm', alpha: 0.05 } })).toBeNull();
    const fair = demo('fair-rag.json');
    expect(measuredDemoPower(fair)?.points.map((p) => gridPoint(p))).toEqual(['8 queries × N = 20', '32 queries × N = 50']);
    expect(measuredDemoPower({ ...fair, samples: 7 })).toBeNull();
    expect(measuredDemoPower(demo('richrag.json'))?.file).toBe('richrag.json');
    // The GGUF variants were not measured (random weights carry no signal).
    expect(measuredDemoPower(demo('moi-gguf.json'))).toBeNull();
    expect(measuredDemoPower({ kind: 'moi', name: 'broken' })).toBeNull();
  });

  it('each point’s interval is the Wilson interval of its runs, and docs/simulated-reader.md states the point', () => {
    const readme = readFileSync(join(process.cwd(), 'docs', 'simulated-reader.md'), 'utf8');
    for (const [file, m] of Object.entries(DEMO_POWER)) {
      for (const p of m.points) {
        const w = wilson(Math.round(p.power * p.runs), p.runs);
        expect([p.low, p.high], `${file} ${gridPoint(p)}`).toEqual([Number(w.low.toFixed(2)), Number(w.high.toFixed(2))]);
        expect(readme, `${file} ${gridPoint(p)}`).toContain(`**${gridPoint(p)}**`);
      }
    }
  });
});
