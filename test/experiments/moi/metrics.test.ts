/**
 * MoI metrics on hand-built run items, against values computed by hand: Table 1 means and paired
 * t-tests against the retriever with Holm's correction (df = 2: p = 1 − t/√(t² + 2)), the random
 * and self-consistency rows, Table 7 (gold MRR, gold-at-j rows), Table 8, Fig. 6 means and
 * standard deviations, calls per method, the per-query drill-down and the exports.
 */
import { describe, expect, it } from 'vitest';
import { MoiSpec } from '../../../src-main/api/contract/moi';
import { goldOrder } from '../../../src-main/experiments/moi/execute';
import { exportMoi } from '../../../src-main/experiments/moi/exports';
import { generationKey, methodKey, permKey, fitKey, queryKey, type FitPayload, type GenerationPayload, type MethodPayload, type PermPayload, type QueryPayload } from '../../../src-main/experiments/moi/items';
import { moiMetrics } from '../../../src-main/experiments/moi/metrics';
import { moiQueryDetail } from '../../../src-main/experiments/moi/queryDetail';
import type { RunItem } from '../../../src-main/store/experimentsRepo';

const spec = MoiSpec.parse({ kind: 'moi', name: 'hand', collection: 'c', generator: { model: 'm' }, n: 3, extraMetrics: ['f1'] });

const PERMS = [
  [0, 1, 2],
  [2, 0, 1],
  [1, 2, 0],
];

interface QuerySetup {
  qid: string;
  metrics: string[];
  gold: (boolean | null)[];
  /** generation label → [order, values] */
  gens: Record<string, [number[] | null, Record<string, number>, string?]>;
  moiOrder: number[];
  a: number[];
  fixedA?: boolean;
}

function items(setups: QuerySetup[]): RunItem[] {
  const out: RunItem[] = [];
  const add = (key: string, queryId: string, condition: string, sample: number | null, payload: unknown) => out.push({ key, queryId, condition, sample, payload });
  for (const s of setups) {
    const methods = ['retriever', 'random', 'self-consistency', 'moi', 'retriever-reversed', 'moi-reversed', ...(s.gold.some((g) => g) ? ['gold@1', 'gold@2', 'gold@3'] : [])];
    const q: QueryPayload = {
      type: 'query',
      text: `question ${s.qid}`,
      answers: ['ref'],
      task: null,
      metrics: s.metrics,
      passages: s.gold.map((gold, i) => ({ docId: `${s.qid}-d${i}`, title: '', text: `passage ${i}`, retrieverScore: 3 - i, gold })),
      goldSource: s.gold[0] === null ? null : 'utility',
      set: { kind: 'random', length: 3, permutations: PERMS, note: null },
      sc: [
        [0, 1, 2],
        [1, 0, 2],
        [2, 1, 0],
      ],
      methods,
    };
    add(queryKey(s.qid), s.qid, '', null, q);
    PERMS.forEach((order, i) => {
      const p: PermPayload = { type: 'perm', order, s: -1 - i, question: -0.5 - i, passages: -0.5, questionTokens: 2, passageTokens: 9, promptTokens: 10, continuationTokens: 12, exactAlignment: true, fromCache: false };
      add(permKey(s.qid, order), s.qid, 'moi', i, p);
    });
    const fit: FitPayload = {
      type: 'fit',
      a: s.a,
      u: [0.1, 0.3, 0.2],
      ranking: s.moiOrder,
      objective: 1e-3,
      orientation: s.fixedA ? 'fixed' : 'kept',
      orientationRule: 'bias-non-increasing',
      underdetermined: false,
      reasons: [],
      biasSlope: -0.3,
      retrieverTau: 0.33,
      predictions: [-1.1, -1.9, -3.05],
      converged: true,
      iterations: 7,
      fixedA: s.fixedA ? s.a : null,
    };
    add(fitKey(s.qid), s.qid, 'moi', null, fit);
    const hash = (label: string) => `h-${s.qid}-${label}`;
    for (const [label, [order, values, output]] of Object.entries(s.gens)) {
      const g: GenerationPayload = { type: 'generation', promptHash: hash(label), prompt: `prompt ${label}`, order: order ?? [0, 1, 2], output: output ?? `answer ${label}`, values, promptTokens: 50, completionTokens: 4, finishReason: 'length', fromCache: false };
      add(generationKey(s.qid, hash(label)), s.qid, '', null, g);
    }
    const cost = (passes: number, gens: number) => ({ scorePasses: passes, scoreRequests: passes, generations: gens, scoredTokens: passes * 22, generationPromptTokens: gens * 50, completionTokens: gens * 4 });
    const method = (m: string, order: number[] | null, labels: string[], chosen: MethodPayload['chosen'] = null): MethodPayload => ({
      type: 'method',
      method: m,
      order,
      promptHashes: labels.map(hash),
      scores: null,
      chosen,
      planned: { scorePasses: m.startsWith('moi') ? 9 : 0, scoreRequests: m.startsWith('moi') ? 9 : 0, generations: labels.length },
      cost: cost(m.startsWith('moi') ? 9 : 0, labels.length),
      note: null,
    });
    const rev = (o: number[]) => [...o].reverse();
    const scAnswers = ['s1', 's2', 's3'].map((l) => s.gens[l]![2] ?? l);
    const counts = scAnswers.map((a) => scAnswers.filter((b) => b.toLowerCase() === a.toLowerCase()).length);
    const chosenIndex = counts.indexOf(Math.max(...counts));
    const ms = [
      method('retriever', [0, 1, 2], ['r']),
      method('random', null, ['s1', 's2', 's3']),
      method('self-consistency', null, ['s1', 's2', 's3'], { index: chosenIndex, support: counts[chosenIndex]!, rule: 'exact' }),
      method('moi', s.moiOrder, ['m']),
      method('retriever-reversed', [2, 1, 0], ['rr']),
      method('moi-reversed', rev(s.moiOrder), ['mr']),
      ...(s.gold.some((g) => g) ? [1, 2, 3].map((j) => method(`gold@${j}`, goldOrder({ passages: s.gold.map((gold) => ({ gold })) } as Parameters<typeof goldOrder>[0], j), [`g${j}`])) : []),
    ];
    for (const m of ms) add(methodKey(s.qid, m.method), s.qid, m.method, null, m);
  }
  return out;
}

const v = (em: number, f1 = em) => ({ em, f1 });

const setups: QuerySetup[] = [
  {
    qid: 'q1',
    metrics: ['em', 'f1'],
    gold: [false, true, false],
    moiOrder: [1, 0, 2],
    a: [0.5, 0.3, 0.2],
    gens: {
      r: [[0, 1, 2], v(0, 0.5)],
      m: [[1, 0, 2], v(1)],
      s1: [null, v(1), 'Paris'],
      s2: [null, v(0), 'x'],
      s3: [null, v(1), 'paris'],
      rr: [null, v(0)],
      mr: [null, v(0)],
      g1: [null, v(1)],
      g2: [null, v(0)],
      g3: [null, v(0)],
    },
  },
  {
    qid: 'q2',
    metrics: ['em', 'f1'],
    gold: [true, false, false],
    moiOrder: [2, 1, 0],
    a: [0.6, 0.3, 0.1],
    gens: {
      r: [null, v(0)],
      m: [null, v(1)],
      s1: [null, v(0), 'a'],
      s2: [null, v(0), 'a'],
      s3: [null, v(1), 'b'],
      rr: [null, v(1)],
      mr: [null, v(0)],
      g1: [null, v(0)],
      g2: [null, v(1)],
      g3: [null, v(0)],
    },
  },
  {
    qid: 'q3',
    metrics: ['em', 'f1'],
    gold: [null, null, null],
    moiOrder: [0, 2, 1],
    a: [0.4, 0.3, 0.3],
    gens: { r: [null, v(1)], m: [null, v(1)], s1: [null, v(1), 'y'], s2: [null, v(1), 'y'], s3: [null, v(1), 'y'], rr: [null, v(0)], mr: [null, v(1)] },
  },
  {
    qid: 'q4',
    metrics: ['rougeL'],
    gold: [false, false, false],
    moiOrder: [0, 1, 2],
    a: [1 / 3, 1 / 3, 1 / 3],
    fixedA: true,
    gens: {
      r: [null, { rougeL: 0.2 }],
      m: [null, { rougeL: 0.4 }],
      s1: [null, { rougeL: 0.1 }, 'u'],
      s2: [null, { rougeL: 0.3 }, 'v'],
      s3: [null, { rougeL: 0.2 }, 'w'],
      rr: [null, { rougeL: 0.3 }],
      mr: [null, { rougeL: 0.1 }],
    },
  },
];

const runItems = items(setups);
const metrics = moiMetrics({ runId: 7, spec, items: runItems, finished: true, generatorName: 'gen', experimentName: 'hand' });
const cell = (table: typeof metrics.table1, method: string, measure: string) => {
  const c = table.columns.findIndex((x) => x.measure === measure);
  return table.rows.find((r) => r.method === method)!.cells[c]!;
};
/** Two-sided p of Student's t with 2 degrees of freedom. */
const pDf2 = (t: number) => 1 - Math.abs(t) / Math.sqrt(t * t + 2);

describe('MoI Table 1', () => {
  it('has the methods in table order and one column per measure, each over the queries it applies to', () => {
    expect(metrics.table1.rows.map((r) => r.label)).toEqual(['Retriever', 'Random', 'Self-consistency', 'MoI']);
    expect(metrics.table1.columns).toEqual([
      { measure: 'em', higherIsBetter: true, queries: 3 },
      { measure: 'rougeL', higherIsBetter: true, queries: 1 },
      { measure: 'f1', higherIsBetter: true, queries: 3 },
    ]);
    expect(metrics.table1.baseline).toBe('retriever');
    expect(metrics.table1.test).toBe('two-sided paired t-test against Retriever over queries');
  });

  it('means: random = mean over the self-consistency answers; self-consistency = the majority answer', () => {
    expect(cell(metrics.table1, 'retriever', 'em').mean).toBeCloseTo(1 / 3, 12);
    expect(cell(metrics.table1, 'moi', 'em').mean).toBe(1);
    // random: q1 2/3, q2 1/3, q3 1
    expect(cell(metrics.table1, 'random', 'em').mean).toBeCloseTo(2 / 3, 12);
    // self-consistency: q1 'Paris'/'paris' (2 of 3) → 1; q2 'a' → 0; q3 → 1
    expect(cell(metrics.table1, 'self-consistency', 'em').mean).toBeCloseTo(2 / 3, 12);
    expect(cell(metrics.table1, 'retriever', 'f1').mean).toBeCloseTo(0.5, 12);
    expect(cell(metrics.table1, 'random', 'rougeL').mean).toBeCloseTo(0.2, 12);
    expect(cell(metrics.table1, 'self-consistency', 'rougeL').mean).toBeCloseTo(0.1, 12); // no majority: the earliest
  });

  it('paired t-tests against the retriever, Holm over the methods of the column', () => {
    // d(moi) = [1, 1, 0]: t = 2; d(random) = [2/3, 1/3, 0]: t = √3; d(sc) = [1, 0, 0]: t = 1
    const p = { moi: pDf2(2), random: pDf2(Math.sqrt(3)), sc: pDf2(1) };
    expect(cell(metrics.table1, 'moi', 'em').pValue).toBeCloseTo(p.moi, 10);
    expect(cell(metrics.table1, 'random', 'em').pValue).toBeCloseTo(p.random, 10);
    expect(cell(metrics.table1, 'self-consistency', 'em').pValue).toBeCloseTo(p.sc, 10);
    expect(cell(metrics.table1, 'moi', 'em').difference).toBeCloseTo(2 / 3, 12);
    // Holm: 3·p(moi) = 0.5505 ≥ 2·p(random) = 0.4508 ≥ p(sc) = 0.4226 → all 0.5505
    for (const m of ['moi', 'random', 'self-consistency']) {
      expect(cell(metrics.table1, m, 'em').pAdjusted).toBeCloseTo(3 * p.moi, 10);
      expect(cell(metrics.table1, m, 'em').significant).toBe(false);
    }
    const baseline = cell(metrics.table1, 'retriever', 'em');
    expect([baseline.pValue, baseline.pAdjusted, baseline.difference]).toEqual([null, null, null]);
    // one query: a difference but no test
    expect(cell(metrics.table1, 'moi', 'rougeL')).toMatchObject({ n: 1, pValue: null, significant: false });
    expect(cell(metrics.table1, 'moi', 'rougeL').difference).toBeCloseTo(0.2, 12);
  });
});

describe('MoI Table 1 star from the adjusted p (issue 37)', () => {
  it('α = 0.2: MoI\'s raw p 0.1835 ≤ α but its Holm-adjusted p 0.5505 > α, so no star in the table or the LaTeX', () => {
    const loose = MoiSpec.parse({ kind: 'moi', name: 'hand', collection: 'c', generator: { model: 'm' }, n: 3, extraMetrics: ['f1'], significance: { alpha: 0.2 } });
    const m = moiMetrics({ runId: 7, spec: loose, items: runItems, finished: true, generatorName: 'gen', experimentName: 'hand' });
    const moiEm = cell(m.table1, 'moi', 'em');
    expect(moiEm.pValue).toBeCloseTo(pDf2(2), 10); // 1 − 2/√6 = 0.1835
    expect(moiEm.pValue!).toBeLessThanOrEqual(0.2);
    expect(moiEm.pAdjusted).toBeCloseTo(3 * pDf2(2), 10); // 0.5505
    expect(moiEm.significant).toBe(false);
    const tex = exportMoi({ runId: 7, spec: loose, items: runItems, experimentName: 'hand', format: 'table1-latex' }, () => m).text;
    expect(tex).toMatch(/\nMoI & /);
    expect(tex).not.toMatch(/\}\$\^\{\\(dagger|ddagger)\}\$/);
  });
});

describe('MoI Tables 7 and 8', () => {
  it('Table 7: gold MRR per order and the gold-at-j rows, over queries with a gold passage', () => {
    expect(metrics.table7.rows.map((r) => r.method)).toEqual(['retriever', 'moi', 'gold@1', 'gold@2', 'gold@3']);
    expect(metrics.table7.columns.map((c) => [c.measure, c.queries])).toEqual([
      ['MRR', 2],
      ['em', 2],
      ['rougeL', 0],
      ['f1', 2],
    ]);
    // q1: gold = passage 1 → retriever rank 2, MoI [1,0,2] rank 1; q2: gold = passage 0 → rank 1 and [2,1,0] rank 3
    expect(cell(metrics.table7, 'retriever', 'MRR').mean).toBeCloseTo(0.75, 12);
    expect(cell(metrics.table7, 'moi', 'MRR').mean).toBeCloseTo(2 / 3, 12);
    expect(cell(metrics.table7, 'gold@1', 'MRR').mean).toBe(1);
    expect(cell(metrics.table7, 'gold@2', 'MRR').mean).toBe(0.5);
    expect(cell(metrics.table7, 'gold@3', 'MRR').mean).toBeCloseTo(1 / 3, 12);
    expect(cell(metrics.table7, 'gold@1', 'em').mean).toBe(0.5);
    expect(cell(metrics.table7, 'gold@3', 'em').mean).toBe(0);
    // em: MoI beats the retriever on both queries (zero-variance difference, p = 0) and survives Holm;
    // gold@1/@2 have t = 1 with df = 1 (p = 0.5), gold@3 no difference (p = 1): Holm → 1
    expect(cell(metrics.table7, 'moi', 'em')).toMatchObject({ mean: 1, pValue: 0, pAdjusted: 0, significant: true });
    expect(cell(metrics.table7, 'gold@1', 'em').pValue).toBeCloseTo(0.5, 12);
    expect(cell(metrics.table7, 'gold@1', 'em').pAdjusted).toBe(1);
    expect(cell(metrics.table7, 'gold@3', 'em').pValue).toBe(1);
  });

  it('Table 8: the reversed orders beside random, the retriever and MoI', () => {
    expect(metrics.table8.rows.map((r) => r.label)).toEqual(['Random', 'Retriever', 'Retriever (reversed)', 'MoI', 'MoI (reversed)']);
    expect(cell(metrics.table8, 'retriever-reversed', 'em').mean).toBeCloseTo(1 / 3, 12);
    expect(cell(metrics.table8, 'moi-reversed', 'em').mean).toBeCloseTo(1 / 3, 12);
    expect(cell(metrics.table8, 'moi-reversed', 'rougeL').mean).toBeCloseTo(0.1, 12);
  });
});

describe('MoI Fig. 6, costs and the query list', () => {
  it('averages the estimated bias profiles per position with the uniform line; fixed profiles are left out', () => {
    expect(metrics.fig6).toHaveLength(1);
    const g = metrics.fig6[0]!;
    expect(g.length).toBe(3);
    expect(g.queries).toBe(3);
    expect(g.uniform).toBeCloseTo(1 / 3, 15);
    expect(g.positions.map((p) => p.mean)).toEqual([expect.closeTo(0.5, 12), expect.closeTo(0.3, 12), expect.closeTo(0.2, 12)]);
    expect(g.positions.map((p) => p.sd)).toEqual([expect.closeTo(0.1, 12), expect.closeTo(0, 12), expect.closeTo(0.1, 12)]);
    expect(g.positions.map((p) => [p.min, p.max])).toEqual([
      [0.4, 0.6],
      [0.3, 0.3],
      [0.1, 0.3],
    ]);
    expect(metrics.warnings).toContain('1 fit(s) held a fixed; Fig. 6 averages the estimated profiles only');
  });

  it('sums planned and executed calls and tokens per method', () => {
    const moi = metrics.costs.find((c) => c.method === 'moi')!;
    expect(moi).toMatchObject({ queries: 4, planned: { scorePasses: 36, scoreRequests: 36, generations: 4 }, executed: { scorePasses: 36, generations: 4, scoredTokens: 36 * 22, generationPromptTokens: 200, completionTokens: 16 } });
    expect(moi.perQuery).toEqual({ scorePasses: 9, generations: 1, tokens: 9 * 22 + 54 });
    expect(metrics.costs.find((c) => c.method === 'random')!.planned.generations).toBe(12);
    expect(metrics.costs.find((c) => c.method === 'gold@2')!.queries).toBe(2);
  });

  it('lists every query with its fit and primary-metric values', () => {
    expect(metrics.queries.map((q) => [q.queryId, q.metric, q.gold, q.values.moi, q.values.retriever, q.complete])).toEqual([
      ['q1', 'em', 1, 1, 0, true],
      ['q2', 'em', 1, 1, 0, true],
      ['q3', 'em', null, 1, 1, true],
      ['q4', 'rougeL', 0, 0.4, 0.2, true],
    ]);
    expect(metrics.incomplete).toBe(false);
    expect(moiMetrics({ runId: 7, spec, items: runItems.filter((it) => it.key !== methodKey('q2', 'moi')), finished: true, generatorName: 'g' }).incomplete).toBe(true);
  });
});

describe('MoI drill-down and exports', () => {
  it('joins a query’s passages, orderings, fit and methods', () => {
    const d = moiQueryDetail(
      'q1',
      runItems.filter((it) => it.queryId === 'q1'),
    );
    expect(d.passages.map((p) => [p.docId, p.gold, p.u])).toEqual([
      ['q1-d0', false, 0.1],
      ['q1-d1', true, 0.3],
      ['q1-d2', false, 0.2],
    ]);
    expect(d.permutations.map((p) => [p.order, p.s, p.predicted, p.tokens])).toEqual([
      [[0, 1, 2], -1, -1.1, 22],
      [[2, 0, 1], -2, -1.9, 22],
      [[1, 2, 0], -3, -3.05, 22],
    ]);
    const sc = d.methods.find((m) => m.method === 'self-consistency')!;
    expect(sc).toMatchObject({ answer: 'Paris', values: { em: 1, f1: 1 }, note: '2 of 3 answers agree (SQuAD-normalised exact match)' });
    expect(d.methods.find((m) => m.method === 'random')).toMatchObject({ answer: null, order: null });
    expect(d.methods.find((m) => m.method === 'moi')).toMatchObject({ order: [1, 0, 2], answer: 'answer m' });
    expect(() => moiQueryDetail('nope', runItems)).toThrow(/no query 'nope'/);
  });

  it('exports Table 1 as CSV and booktabs LaTeX, Fig. 6 data and the orderings', () => {
    const input = { runId: 7, spec, items: runItems, experimentName: 'hand', format: '' };
    const csv = exportMoi({ ...input, format: 'table1-csv' }, () => metrics);
    expect(csv.name).toBe('hand-run7-table1.csv');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('method,label,measure,mean,n,difference_vs_baseline,p,p_adjusted,significant,test,correction');
    const moiEm = lines.find((l) => l.startsWith('moi,MoI,em,'))!.split(',');
    expect(moiEm.slice(0, 5)).toEqual(['moi', 'MoI', 'em', '1', '3']);
    expect(Number(moiEm[5])).toBeCloseTo(2 / 3, 14);
    expect(Number(moiEm[6])).toBeCloseTo(pDf2(2), 12);
    expect(Number(moiEm[7])).toBeCloseTo(3 * pDf2(2), 12);
    expect(moiEm[8]).toBe('false');
    // Each tested cell names the test and correction behind its p-value and star; the baseline's row names none.
    expect(moiEm.slice(9)).toEqual(['two-sided paired t-test against Retriever over queries', 'Holm-corrected over the methods of each column']);
    expect(lines).toContain('retriever,Retriever,rougeL,0.2,1,,,,false,,');
    const tex = exportMoi({ ...input, format: 'table7-latex' }, () => metrics).text;
    expect(tex).toContain('\\toprule');
    expect(tex).toMatch(/MoI & 0\.667\\hphantom\{\$\^\{\\ddagger\}\$\} & \\textbf\{1\.000\}\$\^\{\\ddagger\}\$/);
    expect(exportMoi({ ...input, format: 'fig6-csv' }, () => metrics).text.split('\r\n')[1]).toBe('3,1,0.5,0.09999999999999998,0.4,0.6,3,0.3333333333333333');
    const perms = exportMoi({ ...input, format: 'permutations-csv' }, () => metrics).text.split('\r\n');
    expect(perms[1]).toBe('q1,0,q1-d0 q1-d1 q1-d2,-1,-0.5,-0.5,-1.1,2,9,10,12');
    expect(() => exportMoi({ ...input, format: 'trec-run' }, () => metrics)).toThrow(/no export format 'trec-run'/);
  });
});
