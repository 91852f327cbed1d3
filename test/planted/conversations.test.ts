/**
 * Planted truth, conversations (GFRC2): a Fair RAG run on the simulated reader becomes a conversation
 * set (one conversation per query, the answer as the system turn). The conversations carry the planted
 * providers of the documents each answer saw and the planted attribution (the useful document of a
 * right answer); an annotator's nugget on the answer, crediting the attributed document's provider,
 * gives a GFRC2 equal to the value computed here by hand from the definitions (gfrc.md §1: clusters at
 * nugget ends with Prob 1/L, GNP = GWCrel/(WCnonrel + GWCrel), DistrSim = 1 − JSD (log 2) against the
 * uniform target, Experience = (GNP + DistrSim)/2, GFRC2 = ΣExperience/L).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FairRagMetrics } from '../../src-main/api/contract/fairRag';
import { conversationsFromFairRagRun } from '../../src-main/services/conversations/ragBridge';
import { RetrievalRepo } from '../../src-main/store/retrievalRepo';
import { addCollection, addSim, openWorkbench, runSpec, type Workbench } from './support';

const L = 60;
const PROVIDER: Record<string, string> = { a1: 'Alpha Press', a2: 'Beta Wire', a3: 'Gamma Post', a4: 'Beta Wire', b1: 'Gamma Post', b2: 'Alpha Press', b3: 'Alpha Press', b4: 'Delta Daily' };
/** Per query: retriever scores (the useful document has the top score) and the one useful document. */
const PLANTED = {
  qa: { answer: 'Old ferry terminal becomes weekend market', scores: { a1: 4, a2: 3, a3: 2, a4: 1 }, useful: 'a1' },
  qb: { answer: 'Council approves night bus pilot', scores: { b1: 4, b2: 3, b3: 2, b4: 1 }, useful: 'b1' },
} as const;

let wb: Workbench;
let runId: number;
let condition: string;

beforeAll(async () => {
  wb = openWorkbench('conv');
  const s = wb.services;
  const docs = Object.keys(PROVIDER).map((docId, i) => ({ docId, text: `Report number ${i + 1} from the ${PROVIDER[docId]} desk on item ${docId} of the week.`, attrs: { provider: PROVIDER[docId] } }));
  const queries = Object.entries(PLANTED).map(([queryId, p]) => ({
    queryId,
    text: `Write the headline of story ${queryId} from this week's city news.`,
    answers: [p.answer],
    task: 'headline',
    metric: 'accuracy',
    candidates: Object.keys(p.scores),
  }));
  const judgments = Object.entries(PLANTED).flatMap(([queryId, p]) => Object.keys(p.scores).map((docId) => ({ queryId, docId, kind: 'utility' as const, label: docId === p.useful ? 1 : 0 })));
  const collectionId = addCollection(s, 'planted-conv', docs, queries, judgments);
  const results = Object.entries(PLANTED).flatMap(([queryId, p]) => Object.entries(p.scores).map(([docId, score], r) => ({ queryId, docId, rank: r + 1, score })));
  const run = new RetrievalRepo(s.workspace.db).createRun({ collectionId, name: 'planted-conv-scores', method: 'bm25', params: {} }, results);
  addSim(s, 'Simulated reader (conv)', { collection: 'planted-conv', bias: 'primacy', closedBookAccuracy: 0, noise: 0 });
  runId = await runSpec(s, {
    kind: 'fair-rag',
    name: 'planted conversations',
    collection: 'planted-conv',
    retrievers: [{ name: 'planted', method: 'run', params: { runId: run.id } }],
    generator: { model: 'Simulated reader (conv)' },
    k: 3,
    samples: 4,
    alphas: [8],
    oracle: false,
    attribution: { judge: 'nli-llm' },
  });
  const metrics = s.experiments.metrics(runId) as FairRagMetrics;
  condition = metrics.perQuery.find((r) => r.alpha === 8)!.condition;
}, 60_000);

afterAll(async () => wb.close());

/** 1 − JSD(one-hot ‖ uniform over g groups), log base 2, by hand. */
function distrSimOneHot(g: number): number {
  const m1 = (1 + 1 / g) / 2;
  const klP = Math.log2(1 / m1);
  const klU = (1 / g) * Math.log2(1 / g / m1) + ((g - 1) / g) * Math.log2(1 / g / (1 / (2 * g)));
  return 1 - (klP / 2 + klU / 2);
}

describe('conversations from a Fair RAG run on the simulated reader', () => {
  it('carry the planted providers and attribution, and GFRC2 equals the hand-computed value', () => {
    const c = wb.services.conversations;
    const report = conversationsFromFairRagRun(c, { setName: 'planted set', runId, condition, L, lMax: 2 });
    expect(report.conversations).toBe(2);
    // At α = 8 the ranking is the retriever's: the top 3 of each query, so these providers are the groups.
    const shown = { qa: ['a1', 'a2', 'a3'], qb: ['b1', 'b2', 'b3'] };
    const groups = [...new Set(Object.values(shown).flat().map((d) => PROVIDER[d]!))].sort();
    expect(report.attributeSet?.groups).toEqual(groups);
    let expected = 0;
    const got: number[] = [];
    for (const conv of c.repo.listConversations(report.setId)) {
      const qid = conv.topic as keyof typeof PLANTED;
      const docs = (conv.attrs as { rag: { documents: { docId: string; group: string; attributed: boolean }[] } }).rag.documents;
      expect(docs.map((d) => [d.docId, d.group, d.attributed])).toEqual(shown[qid].map((d) => [d, PROVIDER[d], d === PLANTED[qid].useful]));
      const detail = c.getConversation(conv.id);
      const [user, system] = detail.turns;
      expect(system!.text).toBe(PLANTED[qid].answer);
      // The annotator's nugget: the answer from its second word (the first is glued to "S:"), level 2,
      // crediting the attributed document's provider.
      const start = system!.text.indexOf(' ') + 1;
      c.createNugget({ conversationId: conv.id, turn: 1, start, end: system!.text.length, level: 2, groups: { PROVIDER: PROVIDER[PLANTED[qid].useful]! } });
      const words = user!.text.split(/\s+/).length;
      const nuggetWords = system!.text.split(/\s+/).length - 1;
      const wc = words + 1 + nuggetWords;
      const gnp = (2 * nuggetWords) / (wc - nuggetWords + 2 * nuggetWords);
      const value = (gnp + distrSimOneHot(groups.length)) / 2 / L;
      expect(wc).toBeLessThanOrEqual(L);
      got.push(c.evaluateConversation(conv.id).gfrc2!.GFRC2);
      if (qid === 'qa') expect(got.at(-1)!).toBeCloseTo((10 / 22 + 0.5408520829727552) / 2 / 60, 12);
      expected = value;
      expect(got.at(-1)!).toBeCloseTo(value, 12);
    }
    expect(got).toHaveLength(2);
    expect(expected).toBeGreaterThan(0);
    // A worked number: qa's user turn has 11 words and its nugget 5, so wc = 17, GNP = 10/22, and with
    // 3 groups DistrSim = 1 − JSD((1,0,0) ‖ uniform) = 0.540852 (the paper's check value).
    expect(distrSimOneHot(3)).toBeCloseTo(0.540852, 6);
  });
});
