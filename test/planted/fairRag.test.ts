/**
 * Planted truth, Fair RAG (Kim & Diaz): a simulated reader with planted binary utilities and a
 * primacy bias answers the prompts of a real Fair RAG run (stored retrieval run as the retriever, PL
 * sampling, prompt rendering, generation, utility, NLI attribution, metrics). The test computes the
 * expectation of EU, EAR and EE-D of every α arm independently, by enumerating every top-k prefix of
 * the Plackett-Luce policy over the planted scores (fair-rag.md §1: s̄ = 1 + (s − min)/(max − min),
 * logits s̄^α), and checks the stored metrics against it within the sampling error of N rankings.
 *
 * The reader's rule (engine/sim/simEngine.ts, restated here): with a = primacy bias over the k = 3
 * positions (∝ 1/j), ã = a / max a = [1, 1/2, 1/3], closed-book accuracy 0 and noise 0, a prompt is
 * answered correctly iff Σ_j ã_j u(d_j) ≥ 0.5 — a useful document in position 1 or 2 suffices, one in
 * position 3 alone does not. The judge says a shown document entails the output iff it is useful and
 * the output is right.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FairRagMetrics } from '../../src-main/api/contract/fairRag';
import { RetrievalRepo } from '../../src-main/store/retrievalRepo';
import { addCollection, addSim, openWorkbench, permutations, runSpec, type Workbench } from './support';

const K = 3;
const N = 500;
const ALPHAS = [0, 1, 2, 4, 8];
const LABELS = ['comedy', 'romance', 'thriller', 'documentary'];

/** Planted retriever scores and utilities; q2's retriever disagrees with utility. */
const PLANTED: Record<string, { answer: string; scores: Record<string, number>; useful: string[] }> = {
  q1: { answer: 'comedy', scores: { a: 3, b: 2.5, c: 1, d: 2, e: 0.5 }, useful: ['a', 'c'] },
  q2: { answer: 'thriller', scores: { f: 1, g: 4, h: 3, i: 2, j: 0 }, useful: ['f'] },
};

const TEXTS: Record<string, string> = {
  a: 'A wedding caterer serves the cake to the wrong party twice.',
  b: 'A botanist records the last flowering of a rare orchid.',
  c: 'Two clowns open a detective agency that never solves anything.',
  d: 'A courier finds her parcels arrive one day before they are sent.',
  e: 'A choir from a mining town tours the capital for one summer.',
  f: 'A night nurse notices the same visitor signs in under new names.',
  g: 'A baker and a violinist meet at the same bus stop every Sunday.',
  h: 'A storm chaser keeps a diary for the stranger who saved her van.',
  i: 'Penguins on a melting shelf are filmed through one long winter.',
  j: 'A retired pilot restores a seaplane in his back garden.',
};

let wb: Workbench;
let metrics: FairRagMetrics;
let baseSpec: Record<string, unknown>;

beforeAll(async () => {
  wb = openWorkbench('fairrag');
  const s = wb.services;
  const docs = Object.entries(TEXTS).map(([docId, text]) => ({ docId, text, attrs: { provider: `p-${docId}` } }));
  const queries = Object.entries(PLANTED).map(([queryId, p]) => ({
    queryId,
    text: `Which tag fits the film ${queryId === 'q1' ? 'about a circus on a car park' : 'about a man who is never seen twice'}? Answer with one of: ${LABELS.join(', ')}.`,
    answers: [p.answer],
    task: 'tags',
    metric: 'accuracy',
    candidates: Object.keys(p.scores),
    attrs: { labels: LABELS },
  }));
  const judgments = Object.entries(PLANTED).flatMap(([queryId, p]) => Object.keys(p.scores).map((docId) => ({ queryId, docId, kind: 'utility' as const, label: p.useful.includes(docId) ? 1 : 0 })));
  const collectionId = addCollection(s, 'planted-fair', docs, queries, judgments);
  const results = Object.entries(PLANTED).flatMap(([queryId, p]) =>
    Object.entries(p.scores)
      .sort((x, y) => y[1] - x[1])
      .map(([docId, score], r) => ({ queryId, docId, rank: r + 1, score })),
  );
  const run = new RetrievalRepo(s.workspace.db).createRun({ collectionId, name: 'planted-scores', method: 'bm25', params: {} }, results);
  addSim(s, 'Simulated reader (primacy)', { collection: 'planted-fair', bias: 'primacy', closedBookAccuracy: 0, noise: 0, seed: 1 });
  baseSpec = {
    kind: 'fair-rag',
    name: 'planted fair rag',
    collection: 'planted-fair',
    retrievers: [{ name: 'planted', method: 'run', params: { runId: run.id } }],
    generator: { model: 'Simulated reader (primacy)' },
    decoding: { maxTokens: 16 },
    k: K,
    samples: N,
    alphas: ALPHAS,
    oracle: true,
    attribution: { judge: 'nli-llm', format: 'json' },
  };
  const runId = await runSpec(s, baseSpec);
  metrics = s.experiments.metrics(runId) as FairRagMetrics;
}, 60_000);

afterAll(async () => wb.close());

interface Expectation {
  eu: number;
  ear: number;
  exposure: Map<string, number>;
}

/** Enumerate every ordered top-k prefix of the PL policy (independent of the code under test). */
function expectation(queryId: string, alpha: number): Expectation {
  const p = PLANTED[queryId]!;
  const ids = Object.keys(p.scores);
  const s = ids.map((d) => p.scores[d]!);
  const min = Math.min(...s);
  const max = Math.max(...s);
  const logits = new Map(ids.map((d) => [d, (1 + (p.scores[d]! - min) / (max - min)) ** alpha]));
  const rel = [1, 1 / 2, 1 / 3];
  let eu = 0;
  let ear = 0;
  const exposure = new Map(ids.map((d) => [d, 0]));
  const seen = new Set<string>();
  for (const perm of permutations(ids)) {
    const prefix = perm.slice(0, K);
    const key = prefix.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    let prob = 1;
    const left = new Set(ids);
    for (const d of prefix) {
      const z = [...left].reduce((acc, x) => acc + Math.exp(logits.get(x)! - logits.get(d)!), 0);
      prob *= 1 / z;
      left.delete(d);
    }
    const v = prefix.reduce((acc, d, j) => acc + rel[j]! * (p.useful.includes(d) ? 1 : 0), 0);
    const correct = v >= 0.5 ? 1 : 0;
    eu += prob * correct;
    ear += (prob * correct * prefix.filter((d) => p.useful.includes(d)).length) / K;
    for (const d of prefix) exposure.set(d, exposure.get(d)! + prob);
  }
  return { eu, ear, exposure };
}

const row = (queryId: string, alpha: number) => metrics.perQuery.find((r) => r.queryId === queryId && r.alpha === alpha && r.policy !== 'oracle')!;

describe('Fair RAG on planted truth', () => {
  it('EU, EAR and EE-D of every α arm equal their expectation within the sampling error', () => {
    for (const q of Object.keys(PLANTED)) {
      for (const alpha of ALPHAS) {
        const e = expectation(q, alpha);
        const r = row(q, alpha);
        expect(r, `${q} α=${alpha}`).toBeDefined();
        expect(r.samples).toBe(N);
        const sdEu = Math.sqrt((e.eu * (1 - e.eu)) / N);
        expect(Math.abs(r.eu - e.eu), `${q} α=${alpha} EU ${r.eu} vs ${e.eu}`).toBeLessThanOrEqual(4 * sdEu + 1e-9);
        expect(Math.abs(r.ear! - e.ear), `${q} α=${alpha} EAR ${r.ear} vs ${e.ear}`).toBeLessThanOrEqual(4 * Math.sqrt(e.ear * (1 - e.ear) / N) + 1e-9);
        // E[Σ ε̂²] = Σ ε² + ε(1 − ε)/N for ε̂ the share of N rankings with d in the top k.
        const eps = [...e.exposure.values()];
        const eeD = eps.reduce((acc, x) => acc + x * x + (x * (1 - x)) / N, 0);
        const sdEeD = Math.sqrt(eps.reduce((acc, x) => acc + (4 * x * x * x * (1 - x)) / N, 0));
        expect(Math.abs(r.eeD - eeD), `${q} α=${alpha} EE-D ${r.eeD} vs ${eeD}`).toBeLessThanOrEqual(5 * sdEeD + 1e-6);
        expect(r.eeDNorm).toBeCloseTo(r.eeD / K, 12);
      }
    }
    // A worked value: α = 0 is uniform over the 60 prefixes, ε_d = 3/5 for every d.
    expect(expectation('q1', 0).exposure.get('a')).toBeCloseTo(0.6, 12);
  });

  it('the oracle puts a useful document first, so its normalised EU is 1', () => {
    for (const q of Object.keys(PLANTED)) {
      const oracle = metrics.perQuery.find((r) => r.queryId === q && r.policy === 'oracle')!;
      expect(oracle.eu).toBe(1);
      // u_max (Eq. 29) is taken over the α arms and the oracle; the oracle's EU over it is 1.
      for (const a of ALPHAS) {
        expect(row(q, a).uMax).toBe(1);
        expect(oracle.eu / row(q, a).uMax!).toBe(1);
        expect(row(q, a).euNorm).toBeCloseTo(row(q, a).eu, 12);
      }
    }
  });

  it('ordering across α as theory predicts: EE-D rises with α; EU rises when the retriever agrees with utility and falls when it disagrees', () => {
    for (const q of Object.keys(PLANTED)) {
      const eeD = ALPHAS.map((a) => row(q, a).eeD);
      for (let i = 1; i < eeD.length; i++) expect(eeD[i]!, `${q} EE-D α=${ALPHAS[i]}`).toBeGreaterThan(eeD[i - 1]!);
    }
    const eu1 = ALPHAS.map((a) => row('q1', a).eu);
    const eu2 = ALPHAS.map((a) => row('q2', a).eu);
    expect(eu1[4]!).toBeGreaterThan(eu1[0]! + 0.1);
    expect(eu2[4]!).toBeLessThan(eu2[0]! - 0.1);
    // At α = 8 the policy is (almost) the retriever's ranking: q1 = [a, b, d] (a useful, first) → right;
    // q2 = [g, h, i] (no useful document) → wrong.
    expect(expectation('q1', 8).eu).toBeGreaterThan(0.99);
    expect(expectation('q2', 8).eu).toBeLessThan(0.01);
  });

  it('the citation judge attributes exactly what the NLI judge does: the reader cites the useful documents it was shown when it answers right', async () => {
    // Same seed, same rankings; the prompts only gain the citation instruction, which the reader's
    // answer rule ignores. Its outputs carry "[j]" marks, which the answer metric must not see.
    const runId = await runSpec(wb.services, { ...baseSpec, name: 'planted fair rag (citations)', attribution: { judge: 'citation' } });
    const cited = wb.services.experiments.metrics(runId) as FairRagMetrics;
    expect(cited.perQuery).toHaveLength(metrics.perQuery.length);
    for (const r of metrics.perQuery) {
      const c = cited.perQuery.find((x) => x.queryId === r.queryId && x.alpha === r.alpha && x.policy === r.policy)!;
      expect(c.eu, `${r.queryId} α=${r.alpha} ${r.policy} EU`).toBe(r.eu);
      expect(c.ear, `${r.queryId} α=${r.alpha} ${r.policy} EAR`).toBe(r.ear);
      expect(c.eaeD, `${r.queryId} α=${r.alpha} ${r.policy} EAE-D`).toBe(r.eaeD);
    }
    // And the marks are there: q1's oracle ranking starts with a useful document, answered right.
    const outputs = wb.services.experiments.repo.items(runId, { keyPrefix: '["g",' }).map((it) => String((it.payload as { output?: string }).output ?? ''));
    expect(outputs.some((o) => /^comedy( \[\d\])+$/.test(o))).toBe(true);
  });

  it('the run, its manifest and its export say "simulated reader" and record the profile', async () => {
    const runId = metrics.runId;
    const exported = await wb.services.experiments.export(runId, 'manifest');
    const text = JSON.stringify(exported.manifest);
    expect(text).toContain('simulated reader');
    expect(text).toContain('"bias":"primacy"');
    expect(metrics.generator).toMatch(/Simulated reader/);
  });
});
