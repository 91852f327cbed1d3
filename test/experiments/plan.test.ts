/** The Fair RAG planner: arms, seeded rankings and prompt de-duplication on hand-built cases. */
import { describe, expect, it } from 'vitest';
import { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { armRankings, armsOf, planCounts, planQuery, type PlanQuery } from '../../src-main/experiments/fair-rag/plan';
import { promptRenderer } from '../../src-main/experiments/fair-rag/prompt';

const doc = (id: string, useful: boolean) => ({ docId: id, title: '', text: `text of ${id}`, attrs: {}, useful, provider: useful ? 'p1' : 'p2' });

const query: PlanQuery = {
  queryId: 'q1',
  text: 'Question?',
  retrievalText: 'Question?',
  task: null,
  answers: ['a'],
  metric: 'accuracy',
  lowerIsBetter: false,
  worst: null,
  candidates: [doc('a', true), doc('b', true), doc('c', false)],
  // Two retrievers that agree: their rankings (and prompts) coincide.
  scores: { r1: [3, 2, 1], r2: [30, 20, 10] },
};

function spec(over: Record<string, unknown> = {}) {
  return FairRagSpec.parse({
    kind: 'fair-rag',
    name: 'plan',
    collection: 'c',
    retrievers: [
      { name: 'r1', method: 'bm25' },
      { name: 'r2', method: 'bm25' },
    ],
    generator: { model: 'm' },
    promptTemplate: '{{#documents}}[{{index}}] {{text}}\n{{/documents}}{{query}}',
    k: 2,
    samples: 10,
    alphas: [1000],
    ...over,
  });
}

describe('Fair RAG plan', () => {
  it('lists the arms in a fixed order', () => {
    expect(armsOf(spec({ alphas: [1, 2] })).map((a) => a.condition)).toEqual(['r1/alpha=1', 'r1/alpha=2', 'r1/deterministic', 'r2/alpha=1', 'r2/alpha=2', 'r2/deterministic', 'oracle']);
  });

  it('generates each distinct prompt once: near-deterministic arms and agreeing retrievers share prompts', () => {
    // α = 1000 on [1, 2]-normalised scores is deterministic (weight ratio e^(2^1000 − 1)); the
    // deterministic arm is the same [a, b]; r2 ranks like r1. The oracle (m = 2 = k) shuffles the two
    // useful items: [a, b] or [b, a]. So 32 sampled rankings need at most 2 generations.
    const s = spec({ oracle: false });
    const plan = planQuery(s, query, promptRenderer(s));
    expect(plan.samples).toHaveLength(10 + 1 + 10 + 1);
    expect(new Set(plan.samples.map((x) => x.payload.ranking.join(',')))).toEqual(new Set(['a,b']));
    expect(plan.generations).toHaveLength(1);
    expect(plan.generations[0]!.prompt).toBe('[1] text of a\n[2] text of b\nQuestion?');
    expect(planCounts([plan])).toEqual({ queries: 1, naiveGenerations: 22, distinctGenerations: 1 });

    const withOracle = spec();
    const p2 = planQuery(withOracle, query, promptRenderer(withOracle));
    const oracleRankings = p2.samples.filter((x) => x.condition === 'oracle').map((x) => x.payload.ranking.join(','));
    expect(oracleRankings).toHaveLength(10);
    expect(new Set(oracleRankings)).toEqual(new Set(['a,b', 'b,a'])); // both orders drawn with seed 42
    expect(planCounts([p2])).toEqual({ queries: 1, naiveGenerations: 32, distinctGenerations: 2 });
    // Samples point at their prompt; the key names the unit.
    expect(p2.samples[0]).toMatchObject({ key: '["s","q1","r1/alpha=1000",0]', condition: 'r1/alpha=1000', sample: 0, payload: { policy: 'pl', alpha: 1000, retriever: 'r1' } });
    expect(p2.generations.map((g) => g.key)).toEqual(p2.generations.map((g) => `["g","q1","${g.promptHash}"]`));
  });

  it('a template without documents needs one generation for the whole query', () => {
    const s = spec({ promptTemplate: 'Just the question: {{query}}', alphas: [0, 1] });
    const plan = planQuery(s, query, promptRenderer(s));
    expect(planCounts([plan])).toEqual({ queries: 1, naiveGenerations: 2 * (10 + 10 + 1) + 10, distinctGenerations: 1 });
  });

  it('α = 0 is uniform: every ordered pair of the 3 candidates can appear (at most 3·2 = 6 prompts)', () => {
    const s = spec({ alphas: [0], deterministic: false, oracle: false, samples: 200, retrievers: [{ name: 'r1', method: 'bm25' }] });
    const plan = planQuery(s, query, promptRenderer(s));
    expect(plan.generations).toHaveLength(6);
    expect(planCounts([plan]).naiveGenerations).toBe(200);
  });

  it('draws each arm from its own seeded stream: adding an α leaves the other arms unchanged', () => {
    const a = spec({ alphas: [0, 1] });
    const b = spec({ alphas: [0, 1, 4] });
    const arm = { retriever: 'r1', alpha: 1, policy: 'pl' as const };
    expect(armRankings(b, query, arm)).toEqual(armRankings(a, query, arm));
    expect(armRankings(b, query, { retriever: null, alpha: null, policy: 'oracle' })).toEqual(armRankings(a, query, { retriever: null, alpha: null, policy: 'oracle' }));
    // A different sampling seed changes the draw.
    expect(armRankings(spec({ alphas: [0], samples: 20, seeds: { sampling: 7 } }), query, { ...arm, alpha: 0 })).not.toEqual(armRankings(spec({ alphas: [0], samples: 20 }), query, { ...arm, alpha: 0 }));
  });

  it('appends the citation instruction for the citation judge', () => {
    const s = spec({ attribution: { judge: 'citation' } });
    const plan = planQuery(s, query, promptRenderer(s));
    expect(plan.generations[0]!.prompt).toMatch(/Question\?\n\nCite every document you use by its number in square brackets, for example \[1\]\.$/);
  });
});
