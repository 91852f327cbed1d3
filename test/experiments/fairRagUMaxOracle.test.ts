/**
 * Issue 26, "Leaving the oracle out of u_max fails no test": a hand-made run where the oracle arm alone reaches the
 * maximum per-sample utility. u_max (Eq. 29, per retriever: its arms and the oracle) must be the oracle's 1.0, so
 * EU̅ (Eq. 30) of the PL arm is 0.3 / 1.0 = 0.3 and of the deterministic arm 0.5; without the oracle u_max would be
 * 0.5 and EU̅ 0.6 and 1.0.
 */
import { describe, expect, it } from 'vitest';
import { queryArmMetrics, type MetricsSpec } from '../../src-main/experiments/fair-rag/queryMetrics';
import { generationKey, type FairRagRunData, type GenerationPayload, type Policy, type QueryPayload, type SampleRecord } from '../../src-main/experiments/fair-rag/items';

const query: QueryPayload = {
  type: 'query',
  text: 'q',
  retrievalText: 'q',
  answers: ['a'],
  task: null,
  metric: 'rougeL',
  lowerIsBetter: false,
  worst: null,
  candidates: [
    { docId: 'd1', useful: true, provider: null },
    { docId: 'd2', useful: false, provider: null },
    { docId: 'd3', useful: false, provider: null },
  ],
  scores: { bm25: [3, 2, 1] },
};

function data(): FairRagRunData {
  const samples = new Map<string, SampleRecord[]>();
  const generations = new Map<string, GenerationPayload>();
  const arm = (condition: string, policy: Policy, retriever: string | null, alpha: number | null, rows: [string[], number][]) => {
    samples.set(
      condition,
      rows.map(([ranking, utility], i) => {
        const promptHash = `${condition}-${i}`;
        generations.set(generationKey('q1', promptHash), {
          type: 'generation',
          promptHash,
          prompt: 'p',
          output: 'o',
          outputHash: `o-${promptHash}`,
          promptTokens: 1,
          completionTokens: 1,
          finishReason: 'stop',
          utilityRaw: utility,
          utility,
          fromCache: false,
        });
        return { type: 'sample', queryId: 'q1', condition, sample: i, retriever, alpha, policy, ranking, promptHash };
      }),
    );
  };
  arm('bm25/alpha=1', 'pl', 'bm25', 1, [
    [['d1', 'd2'], 0.2],
    [['d2', 'd3'], 0.4],
  ]);
  arm('bm25/deterministic', 'deterministic', 'bm25', null, [[['d1', 'd2'], 0.5]]);
  arm('oracle', 'oracle', null, null, [[['d1', 'd2'], 1.0]]);
  return { queries: new Map([['q1', query]]), samples: new Map([['q1', samples]]), generations, judgments: new Map() };
}

const SPEC: MetricsSpec = { k: 2, target: 'paper', uMaxZero: 'zero', attribution: { judge: 'none', format: 'json', maxTokens: 8 } };

describe('u_max includes the oracle arm (Eq. 29)', () => {
  it('the oracle alone reaches the maximum: u_max = 1.0 and EU̅ = EU / 1.0 for every arm of the retriever', () => {
    const r = queryArmMetrics(SPEC, data(), ['bm25/alpha=1', 'bm25/deterministic', 'oracle']);
    expect(r.incomplete).toBe(false);
    const by = new Map(r.arms.map((a) => [a.metrics.condition, a.metrics]));
    expect(by.get('bm25/alpha=1')!.eu).toBeCloseTo(0.3, 12);
    expect(by.get('bm25/alpha=1')!.uMax).toBe(1);
    expect(by.get('bm25/alpha=1')!.euNorm).toBeCloseTo(0.3, 12);
    expect(by.get('bm25/deterministic')!.uMax).toBe(1);
    expect(by.get('bm25/deterministic')!.euNorm).toBeCloseTo(0.5, 12);
    // The oracle's own EU̅ is not defined.
    expect(by.get('oracle')!.euNorm).toBeNull();
  });
});
