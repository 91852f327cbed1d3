import { describe, expect, it } from 'vitest';
import { IrEvaluationRequest } from '../../../src-main/api/contract/evaluation';
import { evaluateIrRuns } from '../../../src-main/services/evaluation/irEvaluation';
import { exportIrEvaluation } from '../../../src-main/services/evaluation/irEvaluationExport';

// qrels: q1 {d1:1, d2:0, d3:1}, q2 {d4:1}, q3 {d5:1, d6:1}
const qrels = ['q1 0 d1 1', 'q1 0 d2 0', 'q1 0 d3 1', 'q2 0 d4 1', 'q3 0 d5 1', 'q3 0 d6 1'].join('\n');
// A: q1 d2,d1,d3 → P@2 = 1/2, RR = 1/2; q2 d4 → P@2 = 1/2 (divides by k), RR = 1; q3 d7 → 0, 0.
const runA = ['q1 Q0 d2 1 3.0 A', 'q1 Q0 d1 2 2.0 A', 'q1 Q0 d3 3 1.0 A', 'q2 Q0 d4 1 1.0 A', 'q3 Q0 d7 1 1.0 A'].join('\n');
// B: q1 d1,d3 → 1, 1; q2 missing → 0, 0 (trec_eval -c); q3 d5,d6 → 1, 1.
const runB = ['q1 Q0 d1 1 3.0 B', 'q1 Q0 d3 2 2.0 B', 'q3 Q0 d5 1 2.0 B', 'q3 Q0 d6 2 1.0 B'].join('\n');

const request = IrEvaluationRequest.parse({
  runs: [
    { name: 'A', text: runA },
    { name: 'B', text: runB },
  ],
  qrels: { name: 'test.qrels', text: qrels },
  measures: ['P@2', 'RR'],
});

describe('evaluateIrRuns', () => {
  const ev = evaluateIrRuns(request);

  it('computes trec_eval means per run', () => {
    expect(ev.qids).toEqual(['q1', 'q2', 'q3']);
    const [a, b] = ev.systems;
    expect(a!.means['P@2']).toBeCloseTo(1 / 3, 12);
    expect(a!.means.RR).toBeCloseTo(0.5, 12);
    expect(b!.means['P@2']).toBeCloseTo(2 / 3, 12);
    expect(b!.means.RR).toBeCloseTo(2 / 3, 12);
    expect(b!.missingFromRun).toEqual(['q2']);
    expect(b!.perQuery['P@2']).toEqual({ q1: 1, q2: 0, q3: 1 });
  });

  it('tests each run against the baseline with a paired t-test and Holm', () => {
    // P@2 differences B−A = [1/2, −1/2, 1]: mean 1/3, sd √(7/12), t = 0.755929 (df 2);
    // df=2 closed form F(t) = 1/2 + t/(2√(2+t²)) → p = 0.528595.
    const p2 = ev.comparisons.find((c) => c.measure === 'P@2')!;
    expect(p2.delta).toBeCloseTo(1 / 3, 12);
    expect(p2.pValue).toBeCloseTo(0.528595, 6);
    expect([p2.wins, p2.ties, p2.losses]).toEqual([2, 0, 1]);
    // RR differences [1/2, −1, 1]: mean 1/6, sd √(13/12), t = 0.277350 → p = 0.807550.
    const rr = ev.comparisons.find((c) => c.measure === 'RR')!;
    expect(rr.pValue).toBeCloseTo(0.80755, 5);
    // Holm: min(1, 2·0.5286) = 1, then max(1, 0.8076) = 1.
    expect(p2.pAdjusted).toBe(1);
    expect(rr.pAdjusted).toBe(1);
    expect(p2.significant).toBe(false);
    expect(ev.notes.some((n) => n.startsWith('B: 1 qrels queries have no results'))).toBe(true);
  });

  it('refuses duplicate run names and an unknown baseline, naming the field', () => {
    expect(() => evaluateIrRuns({ ...request, runs: [request.runs[0]!, request.runs[0]!] })).toThrow(/two runs are named 'A'/);
    expect(() => evaluateIrRuns({ ...request, baseline: 'C' })).toThrow(/baseline 'C'/);
  });

  it('reports a malformed run line with file and line', () => {
    expect(() => evaluateIrRuns({ ...request, runs: [{ name: 'bad.run', text: 'q1 Q0 d1 1 notanumber A' }] })).toThrow(/bad\.run:1/);
  });
});

describe('exportIrEvaluation', () => {
  const ev = evaluateIrRuns(request);

  it('writes per-query CSV in the measure/qid/value shape with all', () => {
    const { file, manifest } = exportIrEvaluation(ev, 'csv-per-query');
    const lines = file.content.trim().split('\n');
    expect(lines[0]).toBe('run,measure,qid,value');
    expect(lines).toContain('A,P@2,q1,0.5');
    expect(lines).toContain('B,RR,q2,0');
    expect(lines).toContain('A,RR,all,0.5');
    expect(JSON.parse(manifest.content)).toMatchObject({
      evaluation: { measures: ['P@2', 'RR'], significance: { test: 'two-sided paired t-test', correction: 'holm', alpha: 0.05 } },
      export: { file: 'evaluation-per-query.csv' },
    });
  });

  it('writes the summary CSV with deltas and adjusted p-values', () => {
    const lines = exportIrEvaluation(ev, 'csv-summary').file.content.trim().split('\n');
    const b = lines.find((l) => l.startsWith('B,P@2,'))!.split(',');
    expect(Number(b[2])).toBeCloseTo(2 / 3, 10);
    expect(Number(b[5])).toBeCloseTo(1 / 3, 10);
    expect(Number(b[6])).toBeCloseTo(0.528595, 6);
    // Issue 23 item 4: the method follows P@2's declared (continuous) scale, not the 0/1 values that occur, and the
    // test and correction that produced `significant` are named in the columns added at the end.
    expect(b.slice(7, 12)).toEqual(['1', 'false', '2', '0', '1']);
    expect(lines.find((l) => l.startsWith('B,P@2,'))).toMatch(/,"t, clipped to \[0, 1\] \(clipped\)",two-sided paired t-test,holm,mean per query,0\.666666666667$/);
    // B's P@2 is 1, 0, 1: 2/3 ± 4.302653·√(1/3)/√3 = [−0.7676, 2.1009], clipped at both ends to [0, 1]
    // (before: Wilson for "0/1 values", [0.20766, 0.93851]).
    expect(b.slice(3, 5)).toEqual(['0', '1']);
    // A's P@2 is .5, .5, 0: 1/3 ± 4.302653·√(1/12)/√3 = [−0.3838, 1.0504], clipped at both ends to [0, 1].
    const a = lines.find((l) => l.startsWith('A,P@2,'))!.split(',');
    expect(a.slice(3, 5)).toEqual(['0', '1']);
    expect(lines.find((l) => l.startsWith("A,P@2,"))).toMatch(/,"t, clipped to \[0, 1\] \(clipped\)",,,mean per query,0\.333333333333$/); // the baseline: no test
    expect(ev.systems[0]!.ciMethod).toEqual({ 'P@2': 't, clipped to [0, 1]', RR: 't, clipped to [0, 1]' });
    expect(ev.systems[0]!.ciClipped!['P@2']).toBe(true);
    expect(JSON.parse(exportIrEvaluation(ev, 'csv-summary').manifest.content).confidenceIntervals).toEqual({
      level: 0.95,
      methods: ['t, clipped to [0, 1]'],
    });
  });

  it('writes a booktabs table with the best value in bold and the test in the caption', () => {
    const tex = exportIrEvaluation(ev, 'latex', { digits: 3, environment: 'table' }).file.content;
    expect(tex).toContain('\\toprule');
    expect(tex).toContain('\\bottomrule');
    expect(tex).not.toMatch(/\{[lc]*\|/);
    expect(tex).toContain('\\textbf{0.667}');
    expect(tex).toMatch(/t-test/);
    expect(tex).toMatch(/Holm/);
  });
});
