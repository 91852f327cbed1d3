/**
 * Fair RAG's planned LLM calls against the naive pipeline (issue 10), from the experiment's own
 * planner (src-main/experiments/fair-rag/plan.ts): the naive pipeline generates once per sampled
 * ranking; the plan generates once per distinct prompt of a query. Each ratio is planned / naive
 * calls for a LaMP-like workload (profiles of 20 items, k = 5, N = 100 samples, the LaMP-2 prompt
 * template), per α arm and for the whole spec (α ∈ {1, 2, 4, 8}, deterministic top-k, oracle);
 * also the planning time per query. Pure counting, no engine: seconds.
 */
import { performance } from 'node:perf_hooks';
import { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { createRng } from '../../src-main/core/random/rng';
import { planCounts, planQuery, type PlanQuery, type QueryPlan } from '../../src-main/experiments/fair-rag/plan';
import { promptRenderer } from '../../src-main/experiments/fair-rag/prompt';
import { row, type BenchContext, type BenchRow } from './harness';

const PROFILE = 20;
const TAGS = ['comedy', 'romance', 'action', 'drama', 'horror', 'sci-fi', 'documentary'];
const WORDS = 'a young detective travels across the city to find her brother while an old rival plots revenge during the winter festival'.split(' ');

export function syntheticQueries(n: number): PlanQuery[] {
  const rng = createRng(5);
  const sentence = (len: number) => Array.from({ length: len }, () => WORDS[rng.nextInt(WORDS.length)]).join(' ');
  return Array.from({ length: n }, (_, q) => {
    const candidates = Array.from({ length: PROFILE }, (_, i) => ({
      docId: `u${q}-p${i}`,
      title: '',
      text: sentence(20 + rng.nextInt(30)),
      attrs: { tag: TAGS[rng.nextInt(TAGS.length)] },
      useful: rng.nextFloat() < 0.3,
      provider: null,
    }));
    const text = `Which tag does this movie relate to among the following tags? Just answer with the tag name without further explanation. tags: [${TAGS.join(', ')}] description: ${sentence(25)}`;
    return {
      queryId: `u${q}`,
      text,
      task: 'LaMP-2',
      retrievalText: text,
      answers: [TAGS[rng.nextInt(TAGS.length)]!],
      candidates,
      metric: 'accuracy',
      lowerIsBetter: false,
      worst: null,
      scores: { bm25: candidates.map(() => rng.nextFloat() * 10) },
    };
  });
}

export async function fairragBench(ctx: BenchContext): Promise<BenchRow[]> {
  const queries = syntheticQueries(Math.max(10, Math.round(200 * ctx.scale)));
  const spec = FairRagSpec.parse({
    kind: 'fair-rag',
    name: 'bench',
    collection: 'lamp2',
    retrievers: [{ name: 'bm25', method: 'bm25' }],
    generator: { model: 'bench' },
    k: 5,
    samples: 100,
    alphas: [1, 2, 4, 8],
  });
  const render = promptRenderer(spec);
  const t0 = performance.now();
  const plans: QueryPlan[] = queries.map((q) => planQuery(spec, q, render));
  const planMs = (performance.now() - t0) / queries.length;
  const total = planCounts(plans);
  ctx.log(`${queries.length} queries: ${total.naiveGenerations} sampled rankings, ${total.distinctGenerations} distinct prompts, planning ${planMs.toFixed(1)} ms per query`);

  // Per arm: the naive calls are its samples; the planned ones its distinct prompts (per query).
  const perArm = new Map<string, { naive: number; planned: number }>();
  for (const p of plans) {
    const distinct = new Map<string, Set<string>>();
    for (const s of p.samples) {
      const arm = perArm.get(s.condition) ?? { naive: 0, planned: 0 };
      perArm.set(s.condition, arm);
      arm.naive++;
      const seen = distinct.get(s.condition) ?? new Set<string>();
      distinct.set(s.condition, seen);
      seen.add(s.payload.promptHash);
    }
    for (const [condition, seen] of distinct) perArm.get(condition)!.planned += seen.size;
  }

  const rows: BenchRow[] = [];
  const base = { suite: 'fairrag', metric: 'LLM generations', better: 'lower' as const, baselineLabel: 'naive (one per sample)', candidateLabel: 'planned (distinct prompts)' };
  rows.push(
    row({
      ...base,
      name: `whole spec: ${queries.length} LaMP-2-like queries, 1 retriever, α ∈ {1,2,4,8} + deterministic + oracle, N=100, k=5`,
      baseline: total.naiveGenerations,
      candidate: total.distinctGenerations,
      note: `prompts shared across arms of a query count once; planning ${planMs.toFixed(1)} ms/query`,
    }),
  );
  for (const [condition, c] of perArm) rows.push(row({ ...base, name: `arm ${condition}`, baseline: c.naive, candidate: c.planned }));
  return rows;
}
