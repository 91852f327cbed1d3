/**
 * A toy fourth paper (issue 37 item 2): "does the top-ranked candidate help?" — each query is answered
 * closed-book and with its first candidate document in the prompt, and a paired t-test compares the two
 * conditions' accuracy. It lives in this folder only and joins Fairground by one registry line
 * (`registry.register(toyKind)` in the test), which proves that a kind is one folder: validation, model
 * checks, runs, resume, metrics, the CLI's summary text, the power simulation and calibration-free
 * metrics all reach it through its registry entry, with no edit outside its folder.
 */
import { z } from 'zod';
import { GeneratorSelector } from '../../../src-main/api/contract/selectors';
import { pairedTTest } from '../../../src-main/core/stats/tTest';
import { labelAccuracy } from '../../../src-main/core/text/labelAccuracy';
import type { ExperimentKind, KindPower, MetricsInput, ModelNeeds } from '../../../src-main/experiments/registry';
import type { GenerateRequest } from '../../../src-main/engine/types';

export const TOY_KIND = 'toy-top1';
export const CONDITIONS = ['closed-book', 'top-1'] as const;

export const ToySpec = z
  .object({
    kind: z.literal(TOY_KIND),
    name: z.string().min(1),
    description: z.string().optional(),
    collection: z.string().min(1),
    queries: z.array(z.string().min(1)).min(1),
    generator: GeneratorSelector,
    alpha: z.number().gt(0).lt(1).default(0.05),
    seeds: z.object({ generation: z.number().int().default(1) }).default({ generation: 1 }),
  })
  .strict();
export type ToySpec = z.infer<typeof ToySpec>;

interface ToyAnswer {
  condition: (typeof CONDITIONS)[number];
  prompt: string;
  answer: string;
  correct: number;
}

export interface ToyMetrics {
  kind: typeof TOY_KIND;
  accuracy: Record<string, number>;
  test: { estimate: number; pValue: number; significant: boolean; alpha: number; queries: number };
  aggregates: { condition: string; queries: number; accuracy: number }[];
  warnings: string[];
  incomplete: boolean;
}

const request = (spec: ToySpec, prompt: string): GenerateRequest => ({ prompt, maxTokens: 8, sampling: { temperature: 0, seed: spec.seeds.generation } });
const promptOf = (question: string, doc?: string) => `${doc !== undefined ? `${doc}\n\n` : ''}Question: ${question}\nAnswer:`;

function toyMetrics(input: MetricsInput<ToySpec>): ToyMetrics {
  const byQuery = new Map<string, Record<string, number>>();
  for (const it of input.items) {
    const p = it.payload as ToyAnswer;
    byQuery.set(it.queryId, { ...byQuery.get(it.queryId), [p.condition]: p.correct });
  }
  const complete = [...byQuery.values()].filter((r) => CONDITIONS.every((c) => r[c] !== undefined));
  const mean = (c: string) => (complete.length ? complete.reduce((a, r) => a + r[c]!, 0) / complete.length : 0);
  const t = pairedTTest(
    complete.map((r) => r['closed-book']!),
    complete.map((r) => r['top-1']!),
  );
  const pValue = Number.isFinite(t.pValue) ? t.pValue : 1;
  return {
    kind: TOY_KIND,
    accuracy: Object.fromEntries(CONDITIONS.map((c) => [c, mean(c)])),
    test: { estimate: t.estimate, pValue, significant: pValue <= input.spec.alpha, alpha: input.spec.alpha, queries: complete.length },
    aggregates: CONDITIONS.map((c) => ({ condition: c, queries: complete.length, accuracy: mean(c) })),
    warnings: [],
    incomplete: !input.finished,
  };
}

const toyPower: KindPower = {
  effect: 'the scale of the planted utility of every document (0: the first candidate cannot help)',
  plant: () => Promise.resolve((effect) => ({ utilityScale: effect })),
  primaryTest(metrics) {
    const t = (metrics as unknown as ToyMetrics).test;
    return { significant: t.significant, pValue: t.pValue, familySignificant: t.significant, difference: t.estimate, description: 'top-1 vs closed-book accuracy', alpha: t.alpha, test: 'paired t', correction: 'none' };
  },
};

export const toyKind: ExperimentKind<ToySpec, ToyMetrics, ToyAnswer & { queryId: string }> = {
  kind: TOY_KIND,
  title: 'Toy: does the top candidate help?',
  schema: ToySpec,
  jobTitle: (spec) => `Toy: ${spec.name}`,
  async execute({ runId, spec, deps, signal, progress }) {
    const collection = deps.collections.byName(spec.collection)!;
    const engine = deps.engineFor(deps.resolveGenerator(spec.generator, 'generator'));
    const done = deps.experiments.existingKeys(runId, '["a",');
    let computed = 0;
    let step = 0;
    for (const qid of spec.queries) {
      const q = deps.collections.getQuery(collection.id, qid)!;
      const first = q.candidates?.[0];
      const doc = first !== undefined ? deps.collections.getDocument(collection.id, first)?.text : undefined;
      for (const condition of CONDITIONS) {
        signal.throwIfAborted();
        const key = JSON.stringify(['a', qid, condition]);
        progress(step++, spec.queries.length * CONDITIONS.length, `${qid} ${condition}`);
        if (done.has(key)) continue;
        const prompt = promptOf(q.text, condition === 'top-1' ? doc : undefined);
        const { result, fromCache } = await engine.generateTracked(request(spec, prompt), signal);
        if (!fromCache) computed++;
        const payload: ToyAnswer = { condition, prompt, answer: result.text, correct: labelAccuracy(result.text, q.answers) };
        deps.experiments.upsertItems(runId, [{ key, queryId: qid, condition, sample: null, payload }]);
      }
    }
    return { queries: spec.queries.length, callsComputed: computed };
  },
  metrics: toyMetrics,
  items(runId, _spec, repo, query) {
    const rows = repo.items(runId, { queryId: query.queryId, keyPrefix: '["a",' }).filter((it) => query.condition === undefined || it.condition === query.condition);
    return { total: rows.length, items: rows.slice(query.offset, query.offset + query.limit).map((it) => ({ queryId: it.queryId, ...(it.payload as ToyAnswer) })) };
  },
  exportFile: (input) => {
    const m = toyMetrics(input);
    return { name: `${input.experimentName}.csv`, mediaType: 'text/csv', text: `condition,accuracy\n${CONDITIONS.map((c) => `${c},${m.accuracy[c]}`).join('\n')}\n` };
  },
  manifest: (_runId, spec) => Promise.resolve({ seeds: { generation: spec.seeds.generation }, parameters: { conditions: [...CONDITIONS] } }),
  modelNeeds: (spec): ModelNeeds => ({ generate: [{ path: 'generator', selector: spec.generator, why: 'answer generation', request: request(spec, 'x') }], scoring: [] }),
  power: toyPower,
  summaryTable: (summary) => `${(summary.aggregates as ToyMetrics['aggregates']).map((a) => `${a.condition}\t${a.accuracy.toFixed(4)}`).join('\n')}\n`,
};
