/**
 * The runs × topics table of a set against core's gfrc2 / gfrc on the same inputs written by hand
 * (word positions counted by hand), means per run, and the paired tests between runs with Holm's
 * correction per measure, compared with core/stats on the same vectors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { gfrc } from '../../../src-main/core/fairness/gfrc';
import { gfrc2 } from '../../../src-main/core/fairness/gfrc2';
import type { GfrcInput } from '../../../src-main/core/fairness/gfrcInput';
import { compareScores } from '../../../src-main/core/stats/compare';
import { holm } from '../../../src-main/core/stats/multipleComparisons';
import { ConversationsService } from '../../../src-main/services/conversations/conversationsService';
import { exportSetEvaluation } from '../../../src-main/services/conversations/evaluationExport';
import type { SetEvaluation } from '../../../src-main/services/conversations/setEvaluation';
import { openWorkspace } from '../../../src-main/store/workspace';

// System turn "x0 x1 … x9": after the user turn "U:q" (word 1), "S:x0" is word 2 and xk is word k + 2.
const TEXT = Array.from({ length: 10 }, (_, k) => `x${k}`).join(' ');
type Mark = [k: number, level: number, group: 'a' | 'b' | 'c'];
const MARKS: Record<string, Record<string, Mark[]>> = {
  A: { t1: [[1, 2, 'a'], [3, 1, 'b']], t2: [[2, 2, 'a']], t3: [[5, 1, 'c'], [6, 2, 'a']] },
  B: { t1: [[1, 2, 'a'], [2, 2, 'b'], [3, 2, 'c']], t2: [[1, 2, 'b'], [4, 1, 'a']], t3: [[1, 1, 'a'], [2, 2, 'b'], [8, 2, 'c']] },
  C: { t1: [[7, 1, 'a']], t2: [[8, 0, 'a'], [9, 1, 'a']], t3: [] },
};
const L = 20;
const GROUPS = ['a', 'b', 'c'];
const oneHot = (g: string) => GROUPS.map((x) => (x === g ? 1 : 0));

function handInput(marks: Mark[]): GfrcInput {
  return {
    L,
    l_max: 2,
    attributeSets: [{ name: 'G', kind: 'nominal', measure: 'jsd', target: [1 / 3, 1 / 3, 1 / 3] }],
    nuggets: marks.map(([k, level, g]) => ({ turn: 1, end: k + 2, length: 1, level, groups: level > 0 ? { G: oneHot(g) } : ({} as Record<string, number[]>) })),
  };
}

let ev: SetEvaluation;
let svc: ConversationsService;
beforeAll(() => {
  const ws = openWorkspace(':memory:');
  svc = new ConversationsService(ws.db);
  const header = { conversation_set: { L, l_max: 2, attribute_sets: [{ name: 'G', kind: 'nominal', groups: GROUPS }] } };
  const lines = Object.entries(MARKS).flatMap(([run, topics]) =>
    Object.entries(topics).map(([topic, marks]) => ({
      id: `${run}-${topic}`,
      run,
      topic,
      turns: [
        { role: 'user', text: 'q' },
        { role: 'system', text: TEXT, nuggets: marks.map(([k, level, g]) => ({ text: `x${k}`, level, ...(level > 0 ? { groups: { G: g } } : {}) })) },
      ],
    })),
  );
  const r = svc.importText({ setName: 'hand' }, { name: 'hand.jsonl', content: [header, ...lines].map((l) => JSON.stringify(l)).join('\n') });
  ev = svc.evaluateSet(r.setId);
});

const handValues = (run: string, topic: string) => {
  const input = handInput(MARKS[run]![topic]!);
  const a = gfrc2(input);
  const b = gfrc(input);
  return { GFRC2: a.GFRC2, EGNP: a.EGNP, 'EGF(G)': a.EGF.G!, GFRC: b.GFRC, R: b.R, 'GF(G)': b.GF.G! };
};

describe('runs × topics evaluation of a conversation set', () => {
  it('has the measures, runs and topics in order', () => {
    expect(ev.measures).toEqual(['GFRC2', 'EGNP', 'EGF(G)', 'GFRC', 'R', 'GF(G)']);
    expect(ev.runs).toEqual(['A', 'B', 'C']);
    expect(ev.topics).toEqual(['t1', 't2', 't3']);
    expect(ev.notes).toEqual([]);
  });

  it('gives every cell the values of core gfrc2 / gfrc on the hand-positioned nuggets', () => {
    for (const run of ev.runs) for (const topic of ev.topics) expect(ev.cells.find((c) => c.run === run && c.topic === topic)!.values).toEqual(handValues(run, topic));
    // one by hand: A/t2 has one L2 nugget at wc = 4 of group a: GNP = 2/(3 + 2), DistrSim = 1 − JSD((1,0,0)‖uniform) = 0.540852
    const a2 = ev.cells.find((c) => c.run === 'A' && c.topic === 't2')!.values!;
    expect(a2.EGNP).toBeCloseTo(0.4 / L, 15);
    expect((a2['EGF(G)']! * L).toFixed(6)).toBe('0.540852');
    expect(a2.R).toBeCloseTo((2 / (L + 1)) * (1 - 3 / L) * 0.75, 15);
    // C/t3 has no nuggets: everything is 0
    expect(ev.cells.find((c) => c.run === 'C' && c.topic === 't3')!.values).toEqual({ GFRC2: 0, EGNP: 0, 'EGF(G)': 0, GFRC: 0, R: 0, 'GF(G)': 0 });
  });

  it('averages each run over its topics', () => {
    for (const m of ev.means) {
      expect(m.topics).toBe(3);
      for (const measure of ev.measures) {
        const values = ev.topics.map((t) => handValues(m.run, t)[measure as 'GFRC2']);
        expect(m.values[measure]).toBeCloseTo(values.reduce((s, x) => s + x, 0) / 3, 15);
      }
    }
  });

  it('tests every pair of runs over topics (paired t) and adjusts each measure’s three p-values by Holm', () => {
    expect(ev.comparisons).toHaveLength(3 * ev.measures.length);
    for (const measure of ev.measures) {
      const pairs = ev.comparisons.filter((c) => c.measure === measure);
      expect(pairs.map((c) => [c.runA, c.runB])).toEqual([
        ['A', 'B'],
        ['A', 'C'],
        ['B', 'C'],
      ]);
      const raw = pairs.map((c) => {
        const x = ev.topics.map((t) => handValues(c.runA, t)[measure as 'GFRC2']);
        const y = ev.topics.map((t) => handValues(c.runB, t)[measure as 'GFRC2']);
        const expected = compareScores(x, y, { paired: true, test: 't' });
        expect(c.pValue).toBe(expected.pValue);
        expect(c.delta).toBeCloseTo(expected.meanDifference, 15);
        return expected.pValue;
      });
      expect(pairs.map((c) => c.pAdjusted)).toEqual(holm(raw));
      expect(pairs.map((c) => c.significant)).toEqual(holm(raw).map((p) => p <= 0.05));
    }
  });

  it('exports the table as CSV and LaTeX with a manifest', () => {
    const csv = exportSetEvaluation(ev, 'csv');
    const lines = csv.file.content.trim().split('\n');
    expect(lines[0]).toBe('run,topic,conversations,GFRC2,EGNP,EGF(G),GFRC,R,GF(G)');
    expect(lines).toHaveLength(1 + 3 * 4);
    const a2 = lines.find((l) => l.startsWith('A,t2,'))!.split(',');
    expect(Number(a2[4])).toBeCloseTo(0.4 / L, 12);
    expect(lines[4]!.startsWith('A,all,3,')).toBe(true);
    const manifest = JSON.parse(csv.manifest.content);
    expect(manifest.data.collection).toEqual({ name: 'hand', source: 'conversations JSONL export', sha256: ev.dataSha256 });
    expect(manifest.parameters).toMatchObject({ L, l_max: 2, rVariant: 'eq6' });
    expect(manifest.evaluation.significance).toEqual({ test: 'two-sided paired t-test', correction: 'holm', alpha: 0.05 });
    expect(csv.manifest.fileName).toBe('gfrc-hand.csv.manifest.json');

    const tests = exportSetEvaluation(ev, 'csv-tests').file.content.split('\n');
    expect(tests[0]).toBe('measure,run_a,run_b,topics,mean_a,mean_b,delta_b_minus_a,p_value,p_adjusted,significant');
    expect(tests[1]).toMatch(/^GFRC2,A,B,3,/);

    const tex = exportSetEvaluation(ev, 'latex').file.content;
    expect(tex).toContain('\\toprule');
    expect(tex).toContain('Run & GFRC2 & EGNP & EGF(G) & GFRC & R & GF(G)');
    expect(tex).toContain('Holm correction');
  });

  it('scores with GFRC’s other R variants and the randomization test on request', () => {
    const ev7 = svc.evaluateSet(ev.setId, { rVariant: 'eq9', test: 'randomization', permutations: 200, seed: 7 });
    const input = handInput(MARKS.A!.t1!);
    expect(ev7.cells[0]!.values!.R).toBe(gfrc(input, { rVariant: 'eq9' }).R);
    expect(ev7.settings).toMatchObject({ rVariant: 'eq9', test: 'two-sided paired randomization test', permutations: 200, seed: 7 });
  });
});
