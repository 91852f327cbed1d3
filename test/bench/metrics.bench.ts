/**
 * Metric computation at scale. The baseline is the same computation at a tenth of the size, so
 * each ratio is the per-item cost growth: ≈1 means linear scaling (alternating repetitions of the
 * two sizes; the ratio is the median pair's, with the range over pairs).
 */
import { expectedExposure } from '../../src-main/core/exposure/expectedExposure';
import { gfrc2 } from '../../src-main/core/fairness/gfrc2';
import type { GfrcInput } from '../../src-main/core/fairness/gfrcInput';
import { createRng } from '../../src-main/core/random/rng';
import { samplePlackettLuce } from '../../src-main/core/sampling/plackettLuce';
import { textMetric } from '../../src-main/core/text/textMetrics';
import { alternate, alternationRow, type BenchContext, type BenchRow } from './harness';

const WORDS = 'fair ranking exposure retrieval generation utility passage answer model query document provider group attribution sample'.split(' ');

function sentence(rng: ReturnType<typeof createRng>, n: number): string {
  return Array.from({ length: n }, () => WORDS[rng.nextInt(WORDS.length)]).join(' ');
}

function exposureWorkload(queries: number) {
  const rng = createRng(1);
  return Array.from({ length: queries }, (_, q) => {
    const items = Array.from({ length: 20 }, (_, i) => ({ id: `q${q}d${i}`, score: rng.nextFloat(), useful: rng.nextFloat() < 0.3 }));
    const rankings = samplePlackettLuce({ items, alpha: 2, k: 5, samples: 100, rng: rng.fork(q) });
    return { items, rankings };
  });
}

function gfrcWorkload(conversations: number): GfrcInput[] {
  const rng = createRng(2);
  return Array.from({ length: conversations }, () => {
    const nuggets = [];
    let pos = 0;
    for (let t = 1; t <= 6; t++) {
      pos += 10 + rng.nextInt(20);
      for (let j = 0; j < 3; j++) {
        pos += 2 + rng.nextInt(5);
        const group = rng.nextInt(3);
        nuggets.push({ turn: t, end: pos, length: 2, level: rng.nextInt(3), groups: { G: [0, 1, 2].map((g) => (g === group ? 1 : 0)) } });
      }
    }
    const input: GfrcInput = { L: 1000, l_max: 2, attributeSets: [{ name: 'G', kind: 'nominal', measure: 'jsd', target: [1 / 3, 1 / 3, 1 / 3] }], nuggets };
    return input;
  });
}

export async function metricsBench(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const big = Math.max(10, Math.round(1000 * ctx.scale));
  const small = Math.max(1, Math.round(big / 10));

  const expSmall = exposureWorkload(small);
  const expBig = exposureWorkload(big);
  const runExposure = (w: ReturnType<typeof exposureWorkload>) => w.forEach((q) => expectedExposure({ items: q.items, rankings: q.rankings, k: 5 }));
  // The small size runs ten times per repetition, so both sides of a pair do the same work and
  // last long enough for a busy scheduler's time slices to average out.
  const tenTimes = (fn: () => void) => () => {
    for (let i = 0; i < 10; i++) fn();
  };
  const exp = await alternate(tenTimes(() => runExposure(expSmall)), () => runExposure(expBig), { pairs: 7, per: [10 * small, big] });
  rows.push(alternationRow({ suite: 'metrics', name: `EE-D/R/L, ${big} queries × 100 samples`, metric: 'ms per query', better: 'lower', baselineLabel: `${small} queries`, candidateLabel: `${big} queries`, note: `total ${(exp.candidateMs * big).toFixed(0)} ms` }, exp));

  const gSmall = gfrcWorkload(small);
  const gBig = gfrcWorkload(big);
  const g = await alternate(tenTimes(() => gSmall.forEach((c) => gfrc2(c))), () => gBig.forEach((c) => gfrc2(c)), { pairs: 7, per: [10 * small, big] });
  rows.push(alternationRow({ suite: 'metrics', name: `GFRC2, ${big} conversations`, metric: 'ms per conversation', better: 'lower', baselineLabel: `${small}`, candidateLabel: `${big}`, note: `total ${(g.candidateMs * big).toFixed(0)} ms` }, g));

  const pairsBig = Math.max(100, Math.round(10_000 * ctx.scale));
  const pairsSmall = Math.round(pairsBig / 10);
  const rng = createRng(3);
  const pairs = Array.from({ length: pairsBig }, () => ({ p: sentence(rng, 12 + rng.nextInt(20)), r: sentence(rng, 12 + rng.nextInt(20)) }));
  for (const impl of ['rouge-score', 'pltrdy'] as const) {
    const m = textMetric('rougeL', { impl });
    const score = (n: number) => {
      for (let i = 0; i < n; i++) m.score(pairs[i]!.p, [pairs[i]!.r]);
    };
    const a = await alternate(tenTimes(() => score(pairsSmall)), () => score(pairsBig), { pairs: 5, per: [10 * pairsSmall, pairsBig] });
    rows.push(
      alternationRow(
        { suite: 'metrics', name: `ROUGE-L (${impl}), ${pairsBig} pairs`, metric: 'µs per pair', better: 'lower', baselineLabel: `${pairsSmall} pairs`, candidateLabel: `${pairsBig} pairs`, note: `total ${(a.candidateMs * pairsBig).toFixed(0)} ms` },
        a,
        (ms) => 1000 * ms,
      ),
    );
  }
  return rows;
}
