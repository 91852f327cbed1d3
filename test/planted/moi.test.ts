/**
 * Planted truth, MoI (Lee et al.): a simulated reader whose listwise scores follow
 * s = Σ_j a_j u_{π[j]} − 1 exactly (noise 0; the −1 keeps log-probabilities ≤ 0 and, as Σ a = 1, is a
 * constant shift of u) scores the 3N random orderings of a real MoI run; the fitted a and u stored by
 * the run are compared with the planted ones.
 *
 * Full-length prompts identify (a, u) only up to MoI's family a' = λa + (1 − λ)/N, u' = κu + μ with
 * λ, κ > 0 once the mirror (λ < 0) is excluded (moi.md §2.3 (ii)). The test therefore maps the fitted
 * a back to the planted gauge — λ from a least-squares fit of â − 1/N on a* − 1/N, computed here —
 * and requires max |a_recovered − a*| ≤ 1e-6, λ > 0 (never mirrored), the fitted u an increasing affine
 * image of u* (residual ≤ 1e-6) and Kendall τ(û, u*) = 1, for N = 5 and 10 and U-shaped and primacy
 * curves (biasCurve's definitions restated below). With noise the ranking degrades gracefully; and
 * when the retriever order is planted to disagree with utility, MoI's rerank answers correctly where
 * the retriever order does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MoiMetrics } from '../../src-main/api/contract/moi';
import type { QueryInput } from '../../src-main/store/collectionTypes';
import { addCollection, addSim, kendallTau, openWorkbench, runSpec, type Workbench } from './support';

let wb: Workbench;

/** Planted utilities per query, candidates in retriever order; distinct values, disagreeing with the order. */
function plantedUtilities(n: number, shift: number): number[] {
  return Array.from({ length: n }, (_, i) => Number((((i * 7 + shift) % n) / n + 0.5 / n).toFixed(6)));
}

function curve(shape: 'primacy' | 'u-shaped', n: number): number[] {
  const raw = Array.from({ length: n }, (_, i) => (shape === 'primacy' ? 1 / (i + 1) : 1 / (i + 1) ** 2 + 1 / (2 * (n - i) ** 2)));
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((v) => v / sum);
}

const WORDS = ['amber', 'basalt', 'cedar', 'delta', 'ember', 'fjord', 'granite', 'harbour', 'iris', 'juniper', 'kelp', 'lagoon'];

function setUp(name: string, n: number, queries: number): { utilities: Record<string, Record<string, number>>; u: Record<string, number[]> } {
  const docs: { docId: string; text: string }[] = [];
  const qs: QueryInput[] = [];
  const utilities: Record<string, Record<string, number>> = {};
  const u: Record<string, number[]> = {};
  for (let q = 0; q < queries; q++) {
    const qid = `q${q + 1}`;
    const ids = Array.from({ length: n }, (_, i) => `${qid}-d${i + 1}`);
    ids.forEach((docId, i) => docs.push({ docId, text: `Passage ${i + 1} of question ${q + 1} talks about the ${WORDS[i]} ${WORDS[(i + q + 3) % WORDS.length]} and nothing else.` }));
    u[qid] = plantedUtilities(n, q + 1);
    utilities[qid] = Object.fromEntries(ids.map((d, i) => [d, u[qid]![i]!]));
    qs.push({ queryId: qid, text: `Which word names planted question number ${q + 1}?`, answers: [`answer ${q + 1}`], task: 'planted', metric: 'accuracy', candidates: ids, attrs: { labels: ['answer x', 'answer y', `answer ${q + 1}`] } });
  }
  addCollection(wb.services, name, docs, qs);
  return { utilities, u };
}

function moiSpec(name: string, collection: string, model: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    kind: 'moi',
    name,
    collection,
    retriever: { method: 'candidate-order' },
    n,
    permutations: { set: 'random3n' },
    // The solver's defaults (ALS, then joint Gauss–Newton steps), only the ridge off: plain least squares.
    solver: { orientation: 'bias-non-increasing', ridge: 0 },
    generator: { model },
    decoding: { maxTokens: 8 },
    baselines: [],
    ...extra,
  };
}

interface Fit {
  a: number[];
  u: number[];
  objective: number;
  orientation: string;
}

function fits(runId: number): Map<string, Fit> {
  const items = wb.services.experiments.repo.items(runId, { keyPrefix: '["fit",' });
  return new Map(items.map((it) => [it.queryId, it.payload as unknown as Fit]));
}

/** Least squares y ≈ κx + μ; returns κ, μ and the max residual. */
function affine(x: readonly number[], y: readonly number[]): { k: number; m: number; residual: number } {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
  }
  const k = sxy / sxx;
  const m = my - k * mx;
  return { k, m, residual: Math.max(...x.map((v, i) => Math.abs(k * v + m - y[i]!))) };
}

/**
 * ≤ 1e-6 for both curves, as the issue asks. ALS alone stalls on the U-shaped curve's flat middle
 * (≈1.3e-6 with the tightest stopping rules, 3e-6 with the defaults); the joint Gauss–Newton steps that
 * end each start (core/moi/gaussNewtonPolish.ts) bring it to rounding (≈1e-16 measured).
 */
const TOLERANCE = { primacy: 1e-6, 'u-shaped': 1e-6 } as const;

beforeAll(() => {
  wb = openWorkbench('moi');
});

afterAll(async () => wb.close());

describe('MoI recovers the planted position bias and utility order', () => {
  for (const n of [5, 10]) {
    for (const shape of ['u-shaped', 'primacy'] as const) {
      it(`N = ${n}, ${shape}: a recovered in the planted gauge (max error ≤ 1e-6), never mirrored, τ(u) = 1`, async () => {
        const collection = `moi-${n}-${shape}`;
        const { utilities, u } = setUp(collection, n, 1);
        const model = `Simulated reader (${collection})`;
        addSim(wb.services, model, { collection, bias: shape, utilities, closedBookAccuracy: 0, noise: 0 });
        const runId = await runSpec(wb.services, moiSpec(`moi ${n} ${shape}`, collection, model, n));
        const planted = curve(shape, n);
        const byQuery = fits(runId);
        expect(byQuery.size).toBe(1);
        for (const [qid, fit] of byQuery) {
          expect(fit.a).toHaveLength(n);
          expect(fit.objective).toBeLessThan(1e-20);
          // λ: â − 1/N = λ (a* − 1/N).
          const x = planted.map((v) => v - 1 / n);
          const y = fit.a.map((v) => v - 1 / n);
          const lambda = x.reduce((acc, v, i) => acc + v * y[i]!, 0) / x.reduce((acc, v) => acc + v * v, 0);
          expect(lambda, `${qid}: mirrored`).toBeGreaterThan(0);
          const recovered = fit.a.map((v) => (v - (1 - lambda) / n) / lambda);
          const err = Math.max(...recovered.map((v, j) => Math.abs(v - planted[j]!)));
          expect(err, `${qid}: a ${JSON.stringify(fit.a)} vs ${JSON.stringify(planted)} (λ = ${lambda})`).toBeLessThanOrEqual(TOLERANCE[shape]);
          const fu = affine(u[qid]!, fit.u);
          expect(fu.k).toBeGreaterThan(0);
          // The fitted u mapped back to the planted scale.
          expect(fu.residual / fu.k).toBeLessThanOrEqual(TOLERANCE[shape]);
          expect(kendallTau(fit.u, u[qid]!)).toBe(1);
        }
      });
    }
  }

  it('with noise the ranking degrades gracefully (N = 5, primacy, noise 0.1, i.e. score noise sd 0.01)', async () => {
    const { utilities, u } = setUp('moi-noise', 5, 2);
    const model = 'Simulated reader (moi noise)';
    addSim(wb.services, model, { collection: 'moi-noise', bias: 'primacy', utilities, closedBookAccuracy: 0, noise: 0.1, seed: 5 });
    const runId = await runSpec(wb.services, moiSpec('moi noise', 'moi-noise', model, 5));
    for (const [qid, fit] of fits(runId)) {
      expect(fit.objective).toBeGreaterThan(0);
      expect(kendallTau(fit.u, u[qid]!), qid).toBeGreaterThanOrEqual(0.6);
    }
  });

  it('MoI rerank beats the retriever order when the retriever order is planted to disagree with utility', async () => {
    // Retriever order puts the useful passage last; the primacy reader hardly reads position 5:
    // Σ ã_j u_j = 0.95/5 + … < 0.5 (wrong), while u-descending order puts it first (right).
    const n = 5;
    const docs = Array.from({ length: n }, (_, i) => ({ docId: `r${i + 1}`, text: `Rerank passage ${i + 1} mentions the ${WORDS[i]} and the ${WORDS[i + 5]} only.` }));
    const uVec = [0, 0.05, 0.1, 0.2, 0.95];
    addCollection(wb.services, 'moi-rerank', docs, [
      { queryId: 'r', text: 'Which answer does the rerank question want?', answers: ['the right one'], task: 't', metric: 'accuracy', candidates: docs.map((d) => d.docId), attrs: { labels: ['the wrong one', 'the right one'] } },
    ]);
    const utilities = { r: Object.fromEntries(docs.map((d, i) => [d.docId, uVec[i]!])) };
    addSim(wb.services, 'Simulated reader (rerank)', { collection: 'moi-rerank', bias: 'primacy', utilities, closedBookAccuracy: 0, noise: 0 });
    const runId = await runSpec(wb.services, moiSpec('moi rerank', 'moi-rerank', 'Simulated reader (rerank)', n));
    const rel = [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5];
    const v = (order: number[]) => Math.min(1, order.reduce((acc, p, j) => acc + rel[j]! * uVec[p]!, 0));
    expect(v([0, 1, 2, 3, 4])).toBeLessThan(0.5);
    expect(v([4, 3, 2, 1, 0])).toBeGreaterThanOrEqual(0.5);
    const metrics = wb.services.experiments.metrics(runId) as MoiMetrics;
    const q = metrics.queries.find((x) => x.queryId === 'r')!;
    expect(q.values.retriever).toBe(0);
    expect(q.values.moi).toBe(1);
    expect(fits(runId).get('r')!.u.map((x, i) => [x, i]).sort((a, b) => b[0]! - a[0]!).map((x) => x[1])).toEqual([4, 3, 2, 1, 0]);
  });
});
