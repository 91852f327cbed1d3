/**
 * `eval compare`'s default test (two-sided paired t-test over queries, Holm over every run × measure
 * test) under a planted null (issue 23 item 2), for scripts/calibration.ts:
 *
 * each replication ranks every qrels query's documents (its judged ones plus `unjudged` others) three
 * times uniformly at random — the baseline and two runs — so the runs are exchangeable per query and
 * every difference the test sees is noise. The qrels are the demo collection's relevance judgments
 * (`demo`: its 4 judged queries) or planted ones (`planted`: `queries` queries, 3–8 judged documents
 * each with grades 0–2). Counted: the first comparison's raw p ≤ α (the test's own level) and any of
 * the family's corrected p ≤ α (the family-wise rate the stars hold).
 */
import { createRng, type Rng } from '../src-main/core/random/rng';
import { evaluateIrRuns } from '../src-main/services/evaluation/irEvaluation';

export interface EvalCompareNullResult {
  design: string;
  queries: number;
  runs: number;
  comparisons: number;
  rawRejected: number;
  familyRejected: number;
  alpha: number;
  test: string;
  correction: string;
}

export interface Qrel {
  q: string;
  d: string;
  rel: number;
}

function plantedQrels(rng: Rng, queries: number): Qrel[] {
  const out: Qrel[] = [];
  for (let q = 0; q < queries; q++) {
    const judged = 3 + rng.nextInt(6);
    for (let i = 0; i < judged; i++) out.push({ q: `q${q}`, d: `q${q}-d${i}`, rel: rng.nextInt(3) });
  }
  return out;
}

function randomRun(rng: Rng, docsByQuery: Map<string, string[]>, name: string): string {
  const lines: string[] = [];
  for (const [q, docs] of docsByQuery) {
    const order = rng.shuffled(docs);
    order.forEach((d, i) => lines.push(`${q} Q0 ${d} ${i + 1} ${(order.length - i).toFixed(3)} ${name}`));
  }
  return lines.join('\n');
}

export function evalCompareNull(options: { qrels: Qrel[] | 'planted'; queries?: number; runs: number; seed: number; unjudged?: number; measures?: string[]; alpha?: number }): EvalCompareNullResult {
  const rng = createRng(options.seed);
  const alpha = options.alpha ?? 0.05;
  const measures = options.measures ?? ['AP', 'nDCG@10'];
  const unjudged = options.unjudged ?? 5;
  let rawRejected = 0;
  let familyRejected = 0;
  let comparisons = 0;
  let queries = 0;
  for (let r = 0; r < options.runs; r++) {
    const qrels = options.qrels === 'planted' ? plantedQrels(rng, options.queries ?? 50) : options.qrels;
    const docsByQuery = new Map<string, string[]>();
    for (const j of qrels) docsByQuery.set(j.q, [...(docsByQuery.get(j.q) ?? []), j.d]);
    for (const [q, docs] of docsByQuery) for (let i = 0; i < unjudged; i++) docs.push(`${q}-unjudged${i}`);
    queries = docsByQuery.size;
    const ev = evaluateIrRuns({
      runs: ['baseline', 'run1', 'run2'].map((name) => ({ name, text: randomRun(rng, docsByQuery, name) })),
      qrels: { name: 'qrels', text: qrels.map((j) => `${j.q} 0 ${j.d} ${j.rel}`).join('\n') },
      measures,
      baseline: 'baseline',
      test: 't',
      correction: 'holm',
      alpha,
      permutations: 10_000,
      seed: 42,
    });
    comparisons = ev.comparisons.length;
    if (ev.comparisons[0] && ev.comparisons[0].pValue <= alpha) rawRejected++;
    if (ev.comparisons.some((c) => c.significant)) familyRejected++;
  }
  return { design: options.qrels === 'planted' ? `planted qrels, ${queries} queries` : `demo qrels, ${queries} queries`, queries, runs: options.runs, comparisons, rawRejected, familyRejected, alpha, test: 'two-sided paired t-test over queries', correction: 'holm' };
}
