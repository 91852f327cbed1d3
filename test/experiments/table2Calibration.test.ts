/**
 * Issue 23 item 2: Table 2's significance marks hold their level. A planted null of the Fair RAG
 * demo's exact design — 8 queries, α ∈ {0, 1, 2, 4, 8}, N = 20 samples per arm, k = 3, one
 * deterministic generation per query, half the queries with 0/1 utilities (movie-tag accuracy)
 * and half continuous in [0, 1] (headline ROUGE-L) — where every ranking has the same utility
 * distribution, so no arm differs from the deterministic baseline. Per run, Table 2 (core code,
 * table2()) is computed and the most populated interval's test read. Over R runs the rejection rate
 * of the default test (paired sign-flip over queries, exact) at α = 0.05 must lie inside the
 * binomial 95% band around 0.05 for R runs; the paper's unpaired Student t-test
 * (kim-diaz-unpaired-t) falls outside it (the issue measured 0.200 [0.138, 0.280] and
 * 0.223 [0.198, 0.250]; here 0.204 [0.180, 0.230] at the default seed). The paired t-test on the
 * same differences measures 0.064 [0.055, 0.073] over 3,000 runs (seed 2): slightly liberal, which
 * is why it is an option and not the default.
 *
 * The seed is printed; FG_SEED=<n> reruns another planted draw, FG_RUNS=<n> changes R (default 1,000).
 */
import { describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../src-main/core/random/rng';
import { wilsonInterval } from '../../src-main/core/stats/boundedInterval';
import type { QueryArmMetrics } from '../../src-main/experiments/fair-rag/queryMetrics';
import { table2, type Table2Options } from '../../src-main/experiments/fair-rag/table2';

const SEED = process.env.FG_SEED ? Number(process.env.FG_SEED) : 20261127;
const RUNS = process.env.FG_RUNS ? Number(process.env.FG_RUNS) : 1000;
const ALPHA = 0.05;
const QUERIES = 8;
const SAMPLES = 20;
const ALPHAS = [0, 1, 2, 4, 8];

/** The binomial 95% acceptance band of a level-α test over `runs` runs: the central 95% of Binomial(runs, α), as rates. */
function binomialBand(runs: number, p: number): { lo: number; hi: number } {
  const pmf: number[] = [];
  let logC = 0;
  for (let k = 0; k <= runs; k++) {
    if (k > 0) logC += Math.log((runs - k + 1) / k);
    pmf.push(Math.exp(logC + k * Math.log(p) + (runs - k) * Math.log(1 - p)));
  }
  let cdf = 0;
  let lo = 0;
  let hi = runs;
  for (let k = 0; k <= runs; k++) {
    const before = cdf;
    cdf += pmf[k]!;
    if (before < 0.025 && cdf >= 0.025) lo = k;
    if (before < 0.975 && cdf >= 0.975) hi = k;
  }
  return { lo: lo / runs, hi: hi / runs };
}

function beta(rng: Rng, a: number, b: number): number {
  // Jöhnk-free: ratio of gammas via sums of exponentials is enough for integer shapes.
  const g = (k: number) => {
    let s = 0;
    for (let i = 0; i < k; i++) s -= Math.log(rng.nextOpenFloat());
    return s;
  };
  const x = g(a);
  return x / (x + g(b));
}

/** EE-D̄ of an α arm on the demo's queries (4–5 candidates, k = 3): α = 0 near k/n, rising to 1 at α = 8. */
function eeDNorm(rng: Rng, alpha: number): number {
  switch (alpha) {
    case 0:
      return 0.6 + 0.15 * rng.nextFloat();
    case 1:
      return 0.62 + 0.16 * rng.nextFloat();
    case 2:
      return 0.66 + 0.2 * rng.nextFloat();
    case 4:
      return 0.82 + 0.17 * rng.nextFloat();
    default:
      return 1;
  }
}

/** One planted-null run: per-query arms whose utilities do not depend on the ranking. */
export function plantedNullRun(rng: Rng): QueryArmMetrics[] {
  const out: QueryArmMetrics[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const binary = q % 2 === 0;
    // The query's utility distribution: accuracy p ~ U(.3, .7), or ROUGE-L ~ Beta(a, 3), a ∈ {2, 3} (mean .4 or .5):
    // queries differ less than one generation's utility varies, so the two groups' variances are far apart (the issue: ~10×).
    const p = 0.3 + 0.4 * rng.nextFloat();
    const a = 2 + rng.nextInt(2);
    const b = 3;
    const draw = () => (binary ? (rng.nextFloat() < p ? 1 : 0) : beta(rng, a, b));
    const arm = (policy: 'pl' | 'deterministic', alpha: number | null, samples: number): QueryArmMetrics => {
      let s = 0;
      for (let i = 0; i < samples; i++) s += draw();
      const eu = s / samples;
      return { queryId: `q${q}`, retriever: 'bm25', condition: `${policy}${alpha ?? ''}`, policy, alpha, eeDNorm: policy === 'pl' ? eeDNorm(rng, alpha!) : 1, eu, euNorm: eu } as QueryArmMetrics;
    };
    out.push(arm('deterministic', null, 1));
    for (const al of ALPHAS) out.push(arm('pl', al, SAMPLES));
  }
  return out;
}

interface Rates {
  runs: number;
  /** Most populated interval, its test's raw p ≤ α. */
  rejected: number;
  /** Any interval of the row significant after the table's correction (family-wise). */
  familyRejected: number;
  meanRunsInCell: number;
}

function simulate(seed: number, runs: number, opts: Table2Options): Rates {
  const rng = createRng(seed);
  let rejected = 0;
  let familyRejected = 0;
  let cellRuns = 0;
  for (let r = 0; r < runs; r++) {
    const row = table2(plantedNullRun(rng), ['bm25'], 'sim', 'raw', { ...opts, seed: seed + r })[0]!;
    const cell = [...row.cells].sort((x, y) => y.runs - x.runs)[0]!;
    cellRuns += cell.runs;
    if (cell.pValue !== null && cell.pValue <= ALPHA) rejected++;
    if (row.cells.some((c) => c.significant)) familyRejected++;
  }
  return { runs, rejected, familyRejected, meanRunsInCell: cellRuns / runs };
}

const show = (name: string, r: Rates) => {
  const w = wilsonInterval(r.rejected, r.runs);
  const f = wilsonInterval(r.familyRejected, r.runs);
  return `${name}: null rejection rate ${(r.rejected / r.runs).toFixed(3)} [${w.lower.toFixed(3)}, ${w.upper.toFixed(3)}] (most populated interval, ${r.meanRunsInCell.toFixed(1)} runs on average); family-wise with the table's correction ${(r.familyRejected / r.runs).toFixed(3)} [${f.lower.toFixed(3)}, ${f.upper.toFixed(3)}]`;
};

describe(`Table 2 under a planted null of the demo design (seed ${SEED}, ${RUNS} runs)`, () => {
  const band = binomialBand(RUNS, ALPHA);
  it("the default paired sign-flip test over queries rejects at its level; the paper's unpaired t-test does not", () => {
    const paired = simulate(SEED, RUNS, { test: 'paired-randomization', correction: 'holm' });
    const paper = simulate(SEED, RUNS, { test: 'kim-diaz-unpaired-t', correction: 'none' });
    console.log(`seed ${SEED}, ${RUNS} runs, α = ${ALPHA}, binomial 95% band [${band.lo.toFixed(3)}, ${band.hi.toFixed(3)}]`);
    console.log(show('paired-randomization (default, Holm)', paired));
    console.log(show('kim-diaz-unpaired-t (paper, no correction)', paper));
    expect(paired.meanRunsInCell).toBeGreaterThan(15);
    const rate = paired.rejected / RUNS;
    expect(rate).toBeGreaterThanOrEqual(band.lo);
    expect(rate).toBeLessThanOrEqual(band.hi);
    // Holm keeps the family-wise rate at or below α (within the band's upper edge).
    expect(paired.familyRejected / RUNS).toBeLessThanOrEqual(band.hi);
    expect(paper.rejected / RUNS).toBeGreaterThan(band.hi);
  });
});
