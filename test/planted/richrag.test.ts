/**
 * Planted truth, RichRAG (Wang et al.): a planted pool where each sub-answer occurs in exactly one
 * document and no other document shares a word with any sub-answer. Then φ(aspect i, d) (ROUGE recall
 * of the document against sub-answer i) is 1 for the covering document and 0 for every other, so the
 * silver list's COM* = number of aspects (k = 3) and a ranking reaches NCOM = 1 exactly when its top 3
 * are the three covering documents (computed here, independently of the code). The greedy coverage
 * ranker and the LLM list-wise ranker — answered by the simulated reader, which picks the candidate
 * with the largest planted marginal coverage — both reach it, with predicted (the reader's explorer
 * returns the planted aspects) and golden sub-aspects, while the plain retriever does not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RichRagMetrics } from '../../src-main/api/contract/richrag';
import { addCollection, addSim, openWorkbench, runSpec, type Workbench } from './support';

let wb: Workbench;
let metrics: RichRagMetrics;

const SUB = [
  { aspect: 'harbour ferries', answer: 'ferries sail hourly from pier seven' },
  { aspect: 'museum tickets', answer: 'tickets cost twelve crowns online' },
  { aspect: 'night markets', answer: 'markets open friday evenings downtown' },
];

beforeAll(async () => {
  wb = openWorkbench('richrag');
  const docs = [
    { docId: 'c1', title: 'Harbour ferries', text: 'Harbour ferries: ferries sail hourly from pier seven.' },
    { docId: 'c2', title: 'Museum tickets', text: 'Museum tickets: tickets cost twelve crowns online.' },
    { docId: 'c3', title: 'Night markets', text: 'Night markets: markets open friday evenings downtown.' },
    // Distractors: the aspect words (so BM25 pools them) but none of the sub-answers' words.
    { docId: 'x1', title: 'Harbour history', text: 'Harbour ferries harbour ferries were painted green by a harbour ferries guild.' },
    { docId: 'x2', title: 'Museum building', text: 'Museum tickets museum tickets desk was rebuilt in brick by a museum tickets architect.' },
    { docId: 'x3', title: 'Night sky', text: 'Night markets night markets lamps attract moths in a night markets lane.' },
    { docId: 'x4', title: 'Harbour museum night', text: 'Harbour museum night harbour museum night visitors queue in rain.' },
  ];
  addCollection(wb.services, 'planted-rich', docs, [
    { queryId: 'trip', text: 'What should a visitor to Portvale know?', answers: [SUB.map((s) => s.answer).join('; ')], task: 'multi-aspect', metric: 'rougeL', subaspects: SUB },
  ]);
  addSim(wb.services, 'Simulated reader (coverage)', { collection: 'planted-rich', bias: 'uniform', closedBookAccuracy: 0, noise: 0 });
  const runId = await runSpec(wb.services, {
    kind: 'richrag',
    name: 'planted richrag',
    collection: 'planted-rich',
    generator: { model: 'Simulated reader (coverage)' },
    k: 3,
    settings: ['predicted', 'golden'],
    frameworks: ['retriever', 'coverage', 'listwise'],
    explorer: { maxAspects: 3, maxChars: 40 },
    retrieval: { scope: 'auto', topN: 4, capacity: 12, merge: 'round-robin', join: 'space' },
    ranker: { window: 7 },
  });
  metrics = wb.services.experiments.metrics(runId) as RichRagMetrics;
}, 60_000);

afterAll(async () => wb.close());

describe('RichRAG on a planted pool', () => {
  it('coverage and list-wise rankers reach NCOM = 1, with predicted and golden sub-aspects', () => {
    const value = (condition: string) => metrics.perQuery.find((r) => r.queryId === 'trip' && r.condition === condition)?.values ?? {};
    for (const setting of ['predicted', 'golden']) {
      expect(value(`${setting}/coverage`).NCOM, setting).toBe(1);
      expect(value(`${setting}/listwise`).NCOM, setting).toBe(1);
    }
    // The plain retriever's top 3 holds distractors (their aspect words win BM25).
    expect(value('retriever').NCOM).toBeLessThan(1);
    // The reader's explorer gave the three planted aspects.
    expect(metrics.explorer?.meanPredicted).toBe(3);
  });

  it('the list-wise ranker chose (no fallback) the covering documents, which the pool put after the distractors', () => {
    const lists = wb.services.experiments.repo.items(metrics.runId).filter((i) => i.condition.endsWith('/listwise') && (i.payload as { type?: string }).type === 'list');
    expect(lists).toHaveLength(2);
    for (const l of lists) {
      const p = l.payload as { ranking: string[]; steps: { raw: string; fallback: boolean }[] };
      expect(new Set(p.ranking)).toEqual(new Set(['c1', 'c2', 'c3']));
      expect(p.steps.every((st) => !st.fallback)).toBe(true);
      expect(p.steps.map((st) => st.raw)).not.toContain('D1');
    }
  });
});
