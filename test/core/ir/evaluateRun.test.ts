import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { evaluateRun, type QrelEntry, type RunEntry } from '../../../src-main/core/ir/evaluateRun';
import { compareBytewise, sortTrecEvalOrder } from '../../../src-main/core/ir/rankOrder';

const run = (qid: string, docs: [string, number][]): RunEntry[] => docs.map(([docno, score], i) => ({ qid, docno, score, line: i + 1 }));
const qrels = (qid: string, labels: Record<string, number>): QrelEntry[] => Object.entries(labels).map(([docno, rel]) => ({ qid, docno, rel }));

describe('trec_eval ranking order', () => {
  it('sorts by score descending, ties by docno descending byte-wise', () => {
    const order = sortTrecEvalOrder([
      { docno: 'a', score: 1 },
      { docno: 'd10', score: 2 },
      { docno: 'b', score: 1 },
      { docno: 'd9', score: 2 },
      { docno: 'z', score: 0.5 },
    ]).map((d) => d.docno);
    // 'd9' > 'd10' because '9' > '1' (strcmp), so d9 comes first among the 2.0s.
    expect(order).toEqual(['d9', 'd10', 'b', 'a', 'z']);
  });

  it('compares like strcmp on UTF-8 bytes, not like UTF-16 code units', () => {
    // U+FF5E (EF BD 9E in UTF-8) < U+1F600 (F0 9F 98 80), though as UTF-16 0xFF5E > 0xD83D.
    expect(compareBytewise('\uFF5E', '\u{1F600}')).toBeLessThan(0);
    expect('\uFF5E' < '\u{1F600}').toBe(false);
    expect(compareBytewise('ab', 'abc')).toBeLessThan(0);
    expect(compareBytewise('b', 'a')).toBeGreaterThan(0);
    expect(compareBytewise('x', 'x')).toBe(0);
  });
});

describe('evaluateRun', () => {
  it('ignores the rank column and breaks all-equal scores by docno descending', () => {
    // Written in order a, b, c with equal scores; trec_eval reads c, b, a, so relevant 'a' is rank 3.
    const r = evaluateRun(run('q1', [['a', 1], ['b', 1], ['c', 1]]), qrels('q1', { a: 1 }), ['RR', 'P@1', 'AP']);
    expect(r.all.get('RR')).toBe(1 / 3);
    expect(r.all.get('P@1')).toBe(0);
    expect(r.all.get('AP')).toBe(1 / 3);
  });

  it('puts d9 before d10 on a tie', () => {
    const r = evaluateRun(run('q1', [['d10', 5], ['d9', 5]]), qrels('q1', { d10: 1 }), ['RR']);
    expect(r.perQuery.get('RR')!.get('q1')).toBe(1 / 2);
  });

  it('counts a qrels query missing from the run as 0 by default (trec_eval -c)', () => {
    const r = evaluateRun(run('q1', [['d1', 2], ['d2', 1]]), [...qrels('q1', { d2: 1 }), ...qrels('q2', { x: 1 })], ['RR', 'NumRet']);
    // q1: RR = 1/2; q2: empty ranking, RR = 0 → mean 1/4. NumRet is summed: 2 + 0.
    expect(r.queries).toEqual(['q1', 'q2']);
    expect(r.missingFromRun).toEqual(['q2']);
    expect(r.perQuery.get('RR')!.get('q2')).toBe(0);
    expect(r.all.get('RR')).toBe(1 / 4);
    expect(r.all.get('NumRet')).toBe(2);
  });

  it('averages only over queries present in both with complete: false', () => {
    const r = evaluateRun(run('q1', [['d1', 2], ['d2', 1]]), [...qrels('q1', { d2: 1 }), ...qrels('q2', { x: 1 })], ['RR'], { complete: false });
    expect(r.queries).toEqual(['q1']);
    expect(r.perQuery.get('RR')!.has('q2')).toBe(false);
    expect(r.all.get('RR')).toBe(1 / 2);
  });

  it('ignores run queries without qrels and keeps queries whose qrels have no relevant document', () => {
    const r = evaluateRun(
      [...run('q1', [['d1', 1]]), ...run('q9', [['d1', 1]])],
      [...qrels('q1', { d1: 1 }), ...qrels('q2', { d1: 0 })],
      ['P@1'],
    );
    expect(r.notInQrels).toEqual(['q9']);
    // q1: 1, q2 (no relevant, missing from the run): 0 → 0.5, as trec_eval -c averages them.
    expect(r.queries).toEqual(['q1', 'q2']);
    expect(r.all.get('P@1')).toBe(0.5);
  });

  it('evaluates queries in qid byte order', () => {
    const q = [...qrels('q2', { a: 1 }), ...qrels('q10', { a: 1 }), ...qrels('q1', { a: 1 })];
    const r = evaluateRun([], q, ['NumQ']);
    expect(r.queries).toEqual(['q1', 'q10', 'q2']);
    expect([...r.perQuery.get('NumQ')!.keys()]).toEqual(['q1', 'q10', 'q2']);
    expect(r.all.get('NumQ')).toBe(3);
  });

  it('builds the nDCG ideal from unretrieved judged documents too', () => {
    // retrieved: d1 (1), d2 (unjudged); judged: d1 = 1, d3 = 2.
    // DCG = 1; IDCG = 2 + 1/log2(3) = 2.6309298 → 0.3800904
    const r = evaluateRun(run('q1', [['d1', 2], ['d2', 1]]), qrels('q1', { d1: 1, d3: 2 }), ['nDCG@10']);
    expect(r.all.get('nDCG@10')).toBeCloseTo(1 / (2 + 1 / Math.log2(3)), 12);
  });

  it('truncates each ranking after sorting with depth (trec_eval -M)', () => {
    const r = evaluateRun(run('q1', [['d1', 1], ['d2', 3], ['d3', 2]]), qrels('q1', { d1: 1 }), ['RR', 'NumRet'], { depth: 2 });
    // sorted d2, d3 | d1 → the relevant document is cut off
    expect(r.all.get('RR')).toBe(0);
    expect(r.all.get('NumRet')).toBe(2);
  });

  it('removes duplicate measures and keeps the requested order', () => {
    const r = evaluateRun(run('q1', [['a', 1]]), qrels('q1', { a: 1 }), ['P@1', 'AP', 'map', 'P(rel=1)@1']);
    expect(r.measures).toEqual(['P@1', 'AP']);
  });

  it('returns NaN means and zero sums when nothing is evaluated', () => {
    const r = evaluateRun(run('q1', [['a', 1]]), [], ['AP', 'NumRet']);
    expect(r.queries).toEqual([]);
    expect(r.all.get('AP')).toBeNaN();
    expect(r.all.get('NumRet')).toBe(0);
  });

  it('rejects a document listed twice for a query, naming the line', () => {
    const rows: RunEntry[] = [
      { qid: 'q1', docno: 'a', score: 2, line: 1 },
      { qid: 'q1', docno: 'a', score: 1, line: 7 },
    ];
    expect(() => evaluateRun(rows, qrels('q1', { a: 1 }), ['AP'], { runSource: 'r.trec' })).toThrow(/^r\.trec:7: docno: document 'a' appears twice/);
  });

  it('rejects duplicate judgements and bad values', () => {
    const dup: QrelEntry[] = [
      { qid: 'q1', docno: 'a', rel: 1, line: 1 },
      { qid: 'q1', docno: 'a', rel: 0, line: 2 },
    ];
    expect(() => evaluateRun([], dup, ['AP'])).toThrow(DataError);
    expect(() => evaluateRun([], dup, ['AP'])).toThrow(/^qrels:2: docno: duplicate judgement/);
    expect(() => evaluateRun([{ qid: 'q', docno: 'a', score: NaN }], [], ['AP'])).toThrow(/score: score must be a finite number/);
    expect(() => evaluateRun([], [], ['AP'], { depth: 0 })).toThrow(/depth must be at least 1/);
    expect(() => evaluateRun([], [], ['nope'])).toThrow(/unknown measure/);
  });
});

describe('rows already in trec_eval order are read in place (issue 25 item 4)', () => {
  it('gives what the sort gives: ties by docno descending, in either input order', () => {
    // Tie at 1.0: trec_eval ranks d2 before d1 (docno descending), so the relevant d1 is 2nd: RR = 0.5.
    const labels = qrels('q', { d1: 1 });
    for (const docs of [
      [['d2', 1], ['d1', 1], ['d0', 0.5]],
      [['d1', 1], ['d2', 1], ['d0', 0.5]],
      [['d0', 0.5], ['d1', 1], ['d2', 1]],
    ] as [string, number][][]) {
      const ev = evaluateRun(run('q', docs), labels, ['RR', 'P@1', 'AP']);
      expect(ev.all.get('RR')).toBe(0.5);
      expect(ev.all.get('P@1')).toBe(0);
      expect(ev.all.get('AP')).toBe(0.5);
    }
  });

  it('matches the sorted evaluation on random runs with many ties, sorted or shuffled', () => {
    const seed = 2504;
    let s = seed;
    const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let q = 0; q < 40; q++) {
      const docs: [string, number][] = Array.from({ length: 60 }, (_, i) => [`d${i}`, Math.floor(rnd() * 6)]);
      const judged: Record<string, number> = {};
      for (const [d] of docs) if (rnd() < 0.4) judged[d] = Math.floor(rnd() * 3);
      judged.extra = 1;
      const inOrder = sortTrecEvalOrder(docs.map(([docno, score]) => ({ docno, score }))).map((d) => [d.docno, d.score] as [string, number]);
      const shuffled = docs.slice().sort(() => rnd() - 0.5);
      const measures = ['AP', 'nDCG@10', 'P@5', 'RR', 'R@20'];
      const a = evaluateRun(run(`q${q}`, inOrder), qrels(`q${q}`, judged), measures);
      const b = evaluateRun(run(`q${q}`, shuffled), qrels(`q${q}`, judged), measures);
      for (const m of measures) expect(a.all.get(m), `seed ${seed}, query ${q}, ${m}`).toBe(b.all.get(m));
    }
  });
});
