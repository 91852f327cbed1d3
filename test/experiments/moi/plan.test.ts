/**
 * The MoI planner and its pure helpers on hand-built cases: the spec's defaults and checks, the
 * calls each method plans (N for cyclic, 3N for random, N for pruned with L-passage prompts,
 * N(N+1)/2 − 1 for Bayes saliency+), the prompt layout and its Eq. 3 split, token alignment,
 * the rerankers' formulas, self-consistency's answer matching and gold-at-position orders.
 */
import { describe, expect, it } from 'vitest';
import { MoiSpec } from '../../../src-main/api/contract/moi';
import { goldOrder } from '../../../src-main/experiments/moi/execute';
import type { BspStepPayload, PointwisePayload } from '../../../src-main/experiments/moi/items';
import { bayesSaliencyPlusPasses, methodLabel, planQuery, plannedScoreRequests } from '../../../src-main/experiments/moi/plan';
import { LLMLINGUA_CODE_SUFFIX, PromptLayout, uprScoring } from '../../../src-main/experiments/moi/promptLayout';
import { bayesSaliencyPlusState, pointwiseScores, rankByScore } from '../../../src-main/experiments/moi/rerankers';
import { chooseAnswer } from '../../../src-main/experiments/moi/selfConsistency';
import { alignTokens, segmentLogprobs } from '../../../src-main/experiments/moi/tokenAlignment';

function spec(over: Record<string, unknown> = {}) {
  return MoiSpec.parse({ kind: 'moi', name: 'plan', collection: 'c', generator: { model: 'm' }, ...over });
}

const doc = (id: string, text: string, title = '') => ({ id, title, text });

describe('MoI spec', () => {
  it('fills the defaults of the notes and the paper', () => {
    const s = spec();
    expect(s.n).toBe(5);
    expect(s.permutations).toEqual({ set: 'random3n' });
    expect(s.scoring).toEqual({ segment: 'mean', passageWeight: 1 });
    expect(s.solver).toMatchObject({ orientation: 'bias-non-increasing', starts: 4, seed: 0 });
    expect(s.selfConsistency).toEqual({ samples: 30, match: 'exact' });
    expect(s.qg.prompt).toBe('upr');
    expect(s.retriever).toMatchObject({ method: 'bm25' });
    // parsing an already-parsed spec changes nothing (runs re-parse their stored spec)
    expect(MoiSpec.parse(s)).toEqual(s);
  });

  it('reports misplaced and inconsistent options with their field paths', () => {
    const bad = MoiSpec.safeParse({
      kind: 'moi',
      name: 'x',
      collection: 'c',
      generator: { model: 'm' },
      n: 10,
      permutations: { set: 'all', length: 3 },
      baselines: ['qg', 'qg'],
      solver: { fixedA: { values: [0.5, 0.4] } },
      prompt: { question: 'no query here', passage: '{{text}} {{query}}' },
    });
    expect(bad.success).toBe(false);
    const issues = bad.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues).toEqual(
      expect.arrayContaining([
        'prompt.passage: a passage may use {{index}}, {{id}}, {{title}}, {{text}}, {{attrs.KEY}} only (not the query)',
        'prompt.question: must contain {{query}} exactly once and no other placeholder',
        "permutations.length: only used with set 'pruned' or 'random-pruned'",
        "permutations.set: 'all' is for N ≤ 7 (N! calls), got N = 10",
        "baselines.1: 'qg' is listed twice",
        'solver.fixedA.values: the coefficients must sum to 1 (got 0.9)',
      ]),
    );
  });
});

describe('MoI plan: calls per method', () => {
  const all = ['random', 'self-consistency', 'bayes-saliency', 'bayes-saliency-plus', 'qg', 'longllmlingua', 'longllmlingua-code', 'retriever-reversed', 'moi-reversed', 'gold-position'];

  it('random-3N scores 3N orderings, distinct and seeded per query', () => {
    const s = spec({ n: 5, baselines: all, selfConsistency: { samples: 7 } });
    const p = planQuery(s, 'q1', 5, true);
    expect(p.set.permutations).toHaveLength(15);
    expect(new Set(p.set.permutations.map((x) => x.join(','))).size).toBe(15);
    expect(planQuery(s, 'q1', 5, true).set.permutations).toEqual(p.set.permutations);
    expect(planQuery(s, 'q2', 5, true).set.permutations).not.toEqual(p.set.permutations);
    // the self-consistency draw has its own stream: changing K leaves MoI's set alone
    expect(planQuery(spec({ n: 5, selfConsistency: { samples: 3 } }), 'q1', 5, true).set.permutations).toEqual(p.set.permutations);
    expect(p.sc).toHaveLength(7);
    expect(p.methods).toEqual([
      'retriever',
      'random',
      'self-consistency',
      'bayes-saliency',
      'bayes-saliency-plus',
      'qg',
      'longllmlingua',
      'longllmlingua-code',
      'moi',
      'retriever-reversed',
      'moi-reversed',
      'gold@1',
      'gold@2',
      'gold@3',
      'gold@4',
      'gold@5',
    ]);
    expect(p.planned.moi).toEqual({ scorePasses: 15, scoreRequests: 15, generations: 1 });
    expect(p.planned['moi-reversed']).toEqual({ scorePasses: 15, scoreRequests: 15, generations: 1 });
    expect(p.planned.random).toEqual({ scorePasses: 0, scoreRequests: 0, generations: 7 });
    expect(p.planned['bayes-saliency']).toEqual({ scorePasses: 5, scoreRequests: 5, generations: 1 });
    // Eq. 2 greedy: 5 + 4 + 3 + 2 = 14 = N(N+1)/2 − 1 passes in 5 + 3 requests
    expect(p.planned['bayes-saliency-plus']).toEqual({ scorePasses: 14, scoreRequests: 8, generations: 1 });
    expect(p.planned.retriever).toEqual({ scorePasses: 0, scoreRequests: 0, generations: 1 });
    // distinct score requests: 15 orderings + 5 pointwise + 5 UPR + 3 greedy steps
    expect(plannedScoreRequests(p)).toBe(28);
    expect(methodLabel('gold@2')).toBe('Gold at 2nd');
    expect(methodLabel('gold@11')).toBe('Gold at 11th');
  });

  it('cyclic scores N rotations; pruned N prompts of L passages; all N!', () => {
    const cyclic = planQuery(spec({ n: 6, permutations: { set: 'cyclic' }, baselines: [] }), 'q', 6, false);
    expect(cyclic.set.permutations).toEqual([0, 1, 2, 3, 4, 5].map((k) => [0, 1, 2, 3, 4, 5].map((j) => (k + j) % 6)));
    expect(cyclic.planned.moi).toEqual({ scorePasses: 6, scoreRequests: 6, generations: 1 });
    expect(cyclic.methods).toEqual(['retriever', 'moi']);
    expect(plannedScoreRequests(cyclic)).toBe(6);

    const pruned = planQuery(spec({ n: 6, permutations: { set: 'pruned', length: 2 }, baselines: [] }), 'q', 6, false);
    expect(pruned.set.permutations).toEqual([[0, 1], [1, 2], [2, 3], [3, 4], [4, 5], [5, 0]]);
    expect(pruned.set.passagesPerCall).toBe(2);
    expect(pruned.planned.moi!.scorePasses).toBe(6);
    // default L = ⌈N/2⌉; a query with fewer passages than N caps L
    expect(planQuery(spec({ n: 5, permutations: { set: 'pruned' } }), 'q', 5, false).set.length).toBe(3);
    expect(planQuery(spec({ n: 5, permutations: { set: 'pruned', length: 4 } }), 'q', 3, false).set.length).toBe(3);

    expect(planQuery(spec({ n: 4, permutations: { set: 'all' } }), 'q', 4, false).set.engineCalls).toBe(24);
    // random with N! < 3N returns every permutation, noted
    const tiny = planQuery(spec({ n: 3 }), 'q', 3, false).set;
    expect(tiny.permutations).toHaveLength(6);
    expect(tiny.note).toMatch(/only 6 distinct permutations/);
  });

  it('counts Bayes saliency+ passes as the greedy steps need them', () => {
    expect([2, 3, 4, 5, 10].map((n) => bayesSaliencyPlusPasses(n).passes)).toEqual([2, 5, 9, 14, 54]);
    expect([2, 3, 4, 5, 10].map((n) => bayesSaliencyPlusPasses(n).requests)).toEqual([2, 4, 6, 8, 18]);
  });

  it('plans gold rows only for queries with a gold passage', () => {
    expect(planQuery(spec({ n: 3, baselines: ['gold-position'] }), 'q', 3, false).methods).toEqual(['retriever', 'moi']);
    expect(planQuery(spec({ n: 3, baselines: ['gold-position'] }), 'q', 3, true).methods).toEqual(['retriever', 'moi', 'gold@1', 'gold@2', 'gold@3']);
  });

  it('moves the first gold passage to position j, the others in retriever order', () => {
    const q = { passages: [{ gold: false }, { gold: true }, { gold: true }, { gold: false }] } as Parameters<typeof goldOrder>[0];
    expect([1, 2, 3, 4].map((j) => goldOrder(q, j))).toEqual([
      [1, 0, 2, 3],
      [0, 1, 2, 3],
      [0, 2, 1, 3],
      [0, 2, 3, 1],
    ]);
  });
});

describe('MoI prompt layout', () => {
  const layout = new PromptLayout(spec().prompt);
  const docs = [doc('a', 'Alpha text.'), doc('b', 'Beta text.')];

  it('renders the final-answer prompt and the Eq. 3 scoring request from the same layout', () => {
    expect(layout.generationPrompt(docs, 'Why?')).toBe('Answer the question using the documents.\n\nDocuments:\n[1] Alpha text.\n[2] Beta text.\n\nQuestion: Why?\nAnswer:');
    const s = layout.scoring([docs[1]!, docs[0]!], 'Why?');
    expect(s.prompt).toBe('Answer the question using the documents.\n\nDocuments:\n');
    expect(s.continuation).toBe('[1] Beta text.\n[2] Alpha text.\n\nQuestion: Why?');
    expect(s.passages.map((g) => s.continuation.slice(g.start, g.end))).toEqual(['[1] Beta text.', '[2] Alpha text.']);
    expect(s.continuation.slice(s.question.start, s.question.end)).toBe('Why?');
    // generation prompt = scoring prompt + continuation + the rest of the layout
    expect(layout.generationPrompt([docs[1]!, docs[0]!], 'Why?')).toBe(`${s.prompt}${s.continuation}\nAnswer:`);
  });

  it('writes "[j] Title: text", or "[j] text" for an untitled document (as the generic QA template)', () => {
    const s = layout.scoring([doc('t', 'Body.', 'Heading'), docs[0]!], 'Why?');
    expect(s.continuation).toBe('[1] Heading: Body.\n[2] Alpha text.\n\nQuestion: Why?');
    expect(s.passages.map((g) => s.continuation.slice(g.start, g.end))).toEqual(['[1] Heading: Body.', '[2] Alpha text.']);
  });

  it("scores LongLLMLingua's code suffix after q in the same pass, and the Bayes saliency+ head as shared prompt", () => {
    const s = layout.scoring([docs[0]!], 'Why?', LLMLINGUA_CODE_SUFFIX);
    expect(s.continuation).toBe(`[1] Alpha text.\n\nQuestion: Why?${LLMLINGUA_CODE_SUFFIX}`);
    expect(s.continuation.slice(s.questionWithSuffix!.start, s.questionWithSuffix!.end)).toBe(`Why?${LLMLINGUA_CODE_SUFFIX}`);
    const step = layout.scoringAfter([docs[1]!], [docs[0]!], 'Why?');
    expect(step.prompt).toBe('Answer the question using the documents.\n\nDocuments:\n[1] Beta text.\n');
    expect(step.continuation).toBe('[2] Alpha text.\n\nQuestion: Why?');
  });

  it('supports titles, attributes and a custom question block; UPR renders its own prompt', () => {
    const custom = new PromptLayout(spec({ prompt: { instruction: 'Docs:\n', passage: '({{index}}) {{title}} [{{attrs.src}}]: {{text}}', separator: '\n\n', question: '\nQ: {{query}}?', answer: '\nA:' } }).prompt);
    const d = [{ id: 'x', title: 'T', text: 'body', attrs: { src: 'wiki' } }];
    expect(custom.generationPrompt(d, 'who')).toBe('Docs:\n(1) T [wiki]: body\nQ: who?\nA:');
    expect(custom.scoring(d, 'who').continuation).toBe('(1) T [wiki]: body\nQ: who');
    expect(uprScoring(spec().qg.template, doc('a', 'Alpha'), 'Why?')).toMatchObject({ prompt: 'Passage: Alpha. Please write a question based on this passage.\n', continuation: 'Why?' });
  });
});

describe('token alignment', () => {
  it('maps token texts onto the continuation and splits log-probabilities by segment anchors', () => {
    const text = '[1] ab\n\nQ: cd';
    const tokens = ['[', '1', ']', ' ab', '\n', '\n', 'Q', ':', ' cd'];
    expect(alignTokens(text, tokens).exact).toBe(true);
    const lp = [-1, -2, -3, -4, -5, -6, -7, -8, -9];
    const { perSegment } = segmentLogprobs(text, tokens, lp, [
      { start: 0, end: 6 },
      { start: 11, end: 13 },
    ]);
    expect(perSegment).toEqual([[-1, -2, -3, -4], [-9]]);
  });

  it('matches byte-fallback tokens one UTF-8 byte each', () => {
    // 'é' = 2 bytes, '—' = 3 bytes, '🎉' = 4 bytes (2 UTF-16 units)
    const text = 'caf\u00e9 \u2014 \u{1F389}!';
    const tokens = ['ca', 'f', '\uFFFD', '\uFFFD', ' ', '\uFFFD', '', '\uFFFD', ' ', '\uFFFD', '', '', '\uFFFD', '!'];
    const a = alignTokens(text, tokens);
    expect(a.exact).toBe(true);
    expect(a.spans.map((s) => s.start)).toEqual([0, 2, 3, 3, 4, 5, 5, 5, 6, 7, 7, 7, 7, 9]);
  });

  it('estimates positions when the token texts cannot be matched', () => {
    const a = alignTokens('abcdef', ['ab', 'x\uFFFDy', 'f']);
    expect(a.exact).toBe(false);
    expect(a.spans[a.spans.length - 1]!.end).toBe(6);
  });
});

describe('rerankers', () => {
  const pw = (passage: number, questionMean: number, passageMean: number, pLogP: number, codeMean: number): PointwisePayload => ({
    type: 'pointwise',
    passage,
    questionMean,
    questionSum: questionMean * 4,
    passageMean,
    passageSum: passageMean * 10,
    pLogP,
    codeMean,
    promptTokens: 5,
    continuationTokens: 14,
    exactAlignment: true,
    fromCache: false,
  });
  const passes = new Map([
    [0, pw(0, -2, -1, -0.9, -1.5)],
    [1, pw(1, -1, -3, -0.1, -1.2)],
    [2, pw(2, -1.5, -1, -0.3, -2)],
  ]);

  it('Bayes saliency, QG, LongLLMLingua (paper formula and code variant)', () => {
    const s = spec({ qg: { prompt: 'shared' } });
    expect(pointwiseScores('bayes-saliency', 3, s, passes, undefined)).toEqual([-3, -4, -2.5]);
    expect(rankByScore([-3, -4, -2.5])).toEqual([2, 0, 1]);
    expect(pointwiseScores('bayes-saliency', 3, spec({ scoring: { segment: 'sum', passageWeight: 0.5 } }), passes, undefined)).toEqual([-8 - 5, -4 - 15, -6 - 5]);
    expect(pointwiseScores('qg', 3, s, passes, undefined)).toEqual([-2, -1, -1.5]);
    expect(pointwiseScores('qg', 3, spec(), passes, undefined)).toBeNull(); // UPR passes missing
    expect(pointwiseScores('longllmlingua', 3, s, passes, undefined)).toEqual([-0.9, -0.1, -0.3]);
    expect(pointwiseScores('longllmlingua-code', 3, s, passes, undefined)).toEqual([-1.5, -1.2, -2]);
    // ties keep retriever order
    expect(rankByScore([1, 2, 2, 1])).toEqual([1, 2, 0, 3]);
  });

  it('Bayes saliency+ asks for each greedy step after the pointwise argmax', () => {
    const steps = new Map<number, BspStepPayload>();
    expect(bayesSaliencyPlusState(3, [-3, -4, -2.5], steps)).toEqual({ done: false, step: 1, head: [2], candidates: [0, 1] });
    steps.set(1, { step: 1, chosen: 1 } as BspStepPayload);
    expect(bayesSaliencyPlusState(3, [-3, -4, -2.5], steps)).toEqual({ done: true, order: [2, 1, 0] });
    expect(bayesSaliencyPlusState(2, [0, 1], new Map())).toEqual({ done: true, order: [1, 0] });
  });
});

describe('self-consistency', () => {
  it('majority of SQuAD-normalised answers, ties to the earliest class', () => {
    expect(chooseAnswer(['Paris.', 'the paris', 'London', 'PARIS'], 'exact')).toEqual({ index: 0, support: 3 });
    expect(chooseAnswer(['a cat', 'dog', 'Dog!', 'cat'], 'exact')).toEqual({ index: 0, support: 2 });
    expect(chooseAnswer(['x'], 'exact')).toEqual({ index: 0, support: 1 });
  });

  it('MBR: the answer with the highest mean token F1 to the others', () => {
    // 'apple pie': F1 0.8 to 'red apple pie', 2/3 to 'apple pie with cream', 0 to 'blue sky' → mean 0.4889;
    // 'red apple pie': 0.8, 4/7, 0 → 0.4571; 'apple pie with cream': 2/3, 4/7, 0 → 0.4127.
    const c = chooseAnswer(['red apple pie', 'apple pie', 'apple pie with cream', 'blue sky'], 'mbr-f1');
    expect(c.index).toBe(1);
    expect(c.support).toBeCloseTo((0.8 + 2 / 3) / 3, 12);
  });
});
