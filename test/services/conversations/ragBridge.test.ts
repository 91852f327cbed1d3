import { beforeEach, describe, expect, it } from 'vitest';
import { ConversationsService } from '../../../src-main/services/conversations/conversationsService';
import { loadDemoConversations, DEMO_CONVERSATION_SET } from '../../../src-main/services/conversations/demo';
import { generationKey, judgmentKey, queryKey, sampleKey } from '../../../src-main/experiments/fair-rag/items';
import { answersFromFairRagRun } from '../../../src-main/services/conversations/fairRagAnswers';
import { conversationsFromAnswers, conversationsFromFairRagRun, UNKNOWN_GROUP } from '../../../src-main/services/conversations/ragBridge';
import { ExperimentsRepo } from '../../../src-main/store/experimentsRepo';
import { openWorkspace, type Workspace } from '../../../src-main/store/workspace';

let ws: Workspace;
let svc: ConversationsService;
beforeEach(() => {
  ws?.close();
  ws = openWorkspace(':memory:');
  svc = new ConversationsService(ws.db);
});

const answers = [
  {
    queryId: 'q1',
    query: 'Is it going to rain in Lyon?',
    answer: 'Showers are likely in Lyon this afternoon, says the regional desk.',
    documents: [
      { docId: 'd1', attrs: { provider: 'regional-desk' }, attributed: true },
      { docId: 'd2', attrs: { provider: 'wire' }, attributed: false },
    ],
  },
  { queryId: 'q2', query: 'Snow in Grenoble?', answer: 'No snow is expected.', documents: [{ docId: 'd3', attrs: {} }] },
];

describe('conversations from RAG answers', () => {
  it('makes one conversation per query with a provider attribute set over the documents', () => {
    const r = conversationsFromAnswers(svc, { setName: 'rag', run: 'bm25/alpha=2', answers });
    expect(r).toMatchObject({ createdSet: true, conversations: 2, nuggets: 0, attributeSetsFrom: 'request', notes: [] });
    expect(r.attributeSet).toEqual({ name: 'PROVIDER', kind: 'nominal', groups: [UNKNOWN_GROUP, 'regional-desk', 'wire'], target: [1 / 3, 1 / 3, 1 / 3], measure: 'jsd' });
    const [c1] = svc.repo.listConversations(r.setId);
    expect(c1).toMatchObject({ convId: 'bm25/alpha=2/q1', topic: 'q1', run: 'bm25/alpha=2', attrs: { rag: { documents: [{ docId: 'd1', group: 'regional-desk', attributed: true }, { docId: 'd2', group: 'wire', attributed: false }] } } });
    const d = svc.getConversation(c1!.id);
    expect(d.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', answers[0]!.query],
      ['system', answers[0]!.answer],
    ]);
    // the annotator marks the provider the answer credits
    const text = answers[0]!.answer;
    const n = svc.createNugget({ conversationId: c1!.id, turn: 1, start: text.indexOf('Showers'), end: text.indexOf(','), level: 2, groups: { PROVIDER: 'regional-desk' } });
    expect(n.groups).toEqual({ PROVIDER: [0, 1, 0] });
  });

  it('adds another run to the set, refusing providers its attribute set does not have', () => {
    conversationsFromAnswers(svc, { setName: 'rag', run: 'A', answers });
    const more = conversationsFromAnswers(svc, { setName: 'rag', run: 'B', answers: [answers[0]!] });
    expect(more).toMatchObject({ createdSet: false, conversations: 1, attributeSetsFrom: 'existing' });
    expect(svc.getSet(more.setId).counts).toMatchObject({ conversations: 3, runs: 2, topics: 2 });
    expect(() => conversationsFromAnswers(svc, { setName: 'rag', run: 'C', answers: [{ ...answers[1]!, documents: [{ docId: 'x', attrs: { provider: 'blog' } }] }] })).toThrow(
      "attribute set 'PROVIDER' of 'rag' has no group for 'blog'",
    );
  });

  it('uses another attribute, and creates no attribute set from a single group', () => {
    const r = conversationsFromAnswers(svc, { setName: 'one', run: 'A', attribute: 'lang', answers: [answers[1]!] });
    expect(r.attributeSet).toBeNull();
    expect(r.notes).toEqual(["the documents have 1 distinct 'lang' value(s); an attribute set needs 2, so none was created"]);
  });
});

describe('demo conversations', () => {
  it('loads 2 runs × 3 topics with nuggets once, and every conversation scores', () => {
    const first = loadDemoConversations({ conversations: svc });
    expect(first.changed).toBe(true);
    expect(loadDemoConversations({ conversations: svc })).toEqual({ setId: first.setId, changed: false });
    const set = svc.getSet(first.setId);
    expect(set).toMatchObject({ name: DEMO_CONVERSATION_SET, L: 1000, lMax: 2, counts: { conversations: 6, runs: 2, topics: 3 } });
    expect(set.attributeSets.map((a) => [a.name, a.kind, a.measure])).toEqual([
      ['REGION', 'nominal', 'jsd'],
      ['AGE', 'ordinal', 'rnod'],
    ]);
    const ev = svc.evaluateSet(first.setId);
    expect(ev.notes).toEqual([]);
    expect(ev.cells.every((c) => c.values !== null && c.values.GFRC2 > 0)).toBe(true);
    // the balanced run spreads its nuggets over regions: higher EGF(REGION) than the baseline
    const mean = (run: string, m: string) => ev.means.find((x) => x.run === run)!.values[m]!;
    expect(mean('balanced', 'EGF(REGION)')).toBeGreaterThan(mean('baseline', 'EGF(REGION)'));
    expect(mean('balanced', 'GFRC2')).toBeGreaterThan(mean('baseline', 'GFRC2'));
  });
});

describe('conversations from a Fair RAG run', () => {
  /** A hand-built run: two queries, condition bm25/alpha=2 with one sample each (q2's generation missing), NLI judgments for q1. */
  function seedRun(): number {
    const repo = new ExperimentsRepo(ws.db);
    const exp = repo.createExperiment({ kind: 'fair-rag', name: 'weather-rag', spec: {} });
    const run = repo.createRun({ experimentId: exp.id, spec: {}, specVersion: 1 });
    const cond = 'bm25/alpha=2';
    const query = (qid: string, text: string) => ({
      key: queryKey(qid),
      queryId: qid,
      condition: '',
      sample: null,
      payload: { type: 'query', text, retrievalText: text, answers: [], task: null, metric: 'rougeL', lowerIsBetter: false, worst: null, candidates: [{ docId: 'd1', useful: true, provider: 'desk' }, { docId: 'd2', useful: false, provider: 'wire' }, { docId: 'd3', useful: false, provider: null }], scores: {} },
    });
    repo.upsertItems(run.id, [
      query('q1', 'Rain in Lyon?'),
      query('q2', 'Snow in Grenoble?'),
      { key: sampleKey('q1', cond, 0), queryId: 'q1', condition: cond, sample: 0, payload: { type: 'sample', retriever: 'bm25', alpha: 2, policy: 'pl', ranking: ['d2', 'd1'], promptHash: 'p1' } },
      { key: sampleKey('q2', cond, 0), queryId: 'q2', condition: cond, sample: 0, payload: { type: 'sample', retriever: 'bm25', alpha: 2, policy: 'pl', ranking: ['d3'], promptHash: 'p2' } },
      { key: generationKey('q1', 'p1'), queryId: 'q1', condition: '', sample: null, payload: { type: 'generation', promptHash: 'p1', prompt: '…', output: 'Showers this afternoon.', outputHash: 'o1', fromCache: false } },
      { key: judgmentKey('q1', 'o1', 'd1'), queryId: 'q1', condition: '', sample: null, payload: { type: 'judgment', docId: 'd1', outputHash: 'o1', entails: true, fromCache: false } },
      { key: judgmentKey('q1', 'o1', 'd2'), queryId: 'q1', condition: '', sample: null, payload: { type: 'judgment', docId: 'd2', outputHash: 'o1', entails: false, fromCache: false } },
    ]);
    return run.id;
  }

  it('reads query, answer, ranked documents with providers and attributions from the run items', () => {
    const runId = seedRun();
    expect(answersFromFairRagRun(new ExperimentsRepo(ws.db), runId, 'bm25/alpha=2')).toEqual({
      run: `weather-rag#${runId}/bm25/alpha=2`,
      answers: [
        {
          queryId: 'q1',
          query: 'Rain in Lyon?',
          answer: 'Showers this afternoon.',
          documents: [
            { docId: 'd2', attrs: { provider: 'wire' }, attributed: false },
            { docId: 'd1', attrs: { provider: 'desk' }, attributed: true },
          ],
        },
      ],
      skipped: ['q2'],
    });
    const r = conversationsFromFairRagRun(svc, { setName: 'rag', runId, condition: 'bm25/alpha=2' });
    expect(r).toMatchObject({ conversations: 1, skipped: ['q2'], attributeSet: { name: 'PROVIDER', groups: ['desk', 'wire'] } });
    expect(r.notes).toEqual(['1 query has no answer for this sample and was left out: q2']);
    const [c] = svc.repo.listConversations(r.setId);
    expect(c).toMatchObject({ convId: `weather-rag#${runId}/bm25/alpha=2/q1`, topic: 'q1' });
    expect(() => answersFromFairRagRun(new ExperimentsRepo(ws.db), runId, 'oracle')).toThrow("run 1 has no condition 'oracle' (it has 'bm25/alpha=2')");
    expect(() => answersFromFairRagRun(new ExperimentsRepo(ws.db), 99, 'oracle')).toThrow('no run with id 99');
  });

  /** seedRun plus a deterministic arm (both queries answered, q2's ranking has a 'blog' document) and an arm with no generation. */
  function seedTwoArms(): number {
    const runId = seedRun();
    const det = 'bm25/deterministic';
    new ExperimentsRepo(ws.db).upsertItems(runId, [
      { key: sampleKey('q1', det, 0), queryId: 'q1', condition: det, sample: 0, payload: { type: 'sample', retriever: 'bm25', alpha: null, policy: 'deterministic', ranking: ['d1', 'd2'], promptHash: 'p3' } },
      { key: sampleKey('q2', det, 0), queryId: 'q2', condition: det, sample: 0, payload: { type: 'sample', retriever: 'bm25', alpha: null, policy: 'deterministic', ranking: ['d3', 'd1'], promptHash: 'p4' } },
      { key: generationKey('q1', 'p3'), queryId: 'q1', condition: '', sample: null, payload: { type: 'generation', promptHash: 'p3', prompt: '…', output: 'Rain, says the desk.', outputHash: 'o3', fromCache: false } },
      { key: generationKey('q2', 'p4'), queryId: 'q2', condition: '', sample: null, payload: { type: 'generation', promptHash: 'p4', prompt: '…', output: 'No snow.', outputHash: 'o4', fromCache: false } },
      { key: sampleKey('q1', 'oracle', 0), queryId: 'q1', condition: 'oracle', sample: 0, payload: { type: 'sample', retriever: null, alpha: null, policy: 'oracle', ranking: ['d1'], promptHash: 'p5' } },
    ]);
    return runId;
  }

  it('turns every condition into conversations in one import (issue 34 item 8g)', () => {
    const runId = seedTwoArms();
    const r = conversationsFromFairRagRun(svc, { setName: 'all', runId, conditions: 'all' });
    // 3 answers: bm25/alpha=2 q1, bm25/deterministic q1 and q2; oracle has no generation, alpha=2 q2 none.
    expect(r).toMatchObject({ createdSet: true, conversations: 3, conditions: ['bm25/alpha=2', 'bm25/deterministic'], skipped: ['bm25/alpha=2/q2'] });
    // One attribute set over the providers of all arms (q2's deterministic ranking has d3, provider null).
    expect(r.attributeSet?.groups).toEqual([UNKNOWN_GROUP, 'desk', 'wire']);
    expect(r.notes).toEqual(["1 condition(s) have no answer for sample 0 and were left out: oracle", '1 (condition, query) pair(s) have no answer for this sample and were left out: bm25/alpha=2/q2']);
    const rows = svc.repo.listConversations(r.setId).map((c) => [c.convId, c.run, c.topic]);
    expect(rows).toEqual([
      [`weather-rag#${runId}/bm25/alpha=2/q1`, `weather-rag#${runId}/bm25/alpha=2`, 'q1'],
      [`weather-rag#${runId}/bm25/deterministic/q1`, `weather-rag#${runId}/bm25/deterministic`, 'q1'],
      [`weather-rag#${runId}/bm25/deterministic/q2`, `weather-rag#${runId}/bm25/deterministic`, 'q2'],
    ]);
    expect(svc.getSet(r.setId).counts).toMatchObject({ conversations: 3, runs: 2, topics: 2 });
    // A list picks arms; the same ids again are refused and nothing is added (one transaction).
    const again = () => conversationsFromFairRagRun(svc, { setName: 'all', runId, conditions: ['bm25/deterministic', 'bm25/alpha=2'] });
    expect(again).toThrow(/already in the set/);
    expect(svc.getSet(r.setId).counts.conversations).toBe(3);
    const one = conversationsFromFairRagRun(svc, { setName: 'det', runId, conditions: ['bm25/deterministic'] });
    expect(one).toMatchObject({ conversations: 2, conditions: ['bm25/deterministic'], skipped: [] });
    expect(() => conversationsFromFairRagRun(svc, { setName: 'x', runId, conditions: ['oracle'] })).toThrow(`run ${runId} has no generated answers for sample 0 in 'oracle' yet`);
    expect(() => conversationsFromFairRagRun(svc, { setName: 'x', runId, conditions: ['nope'] })).toThrow(`run ${runId} has no condition 'nope'`);
    expect(() => conversationsFromFairRagRun(svc, { setName: 'x', runId, condition: 'oracle', conditions: 'all' })).toThrow('give a condition, or conditions');
  });
});
