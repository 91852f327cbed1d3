/**
 * RichRAG metrics and exports over hand-built run items (pure): Table 1 with paired t-tests against
 * the baseline and Holm's correction, Table 3, the judge's counts, and the US³ preference JSONL
 * (shape, μ threshold, unilateral pairs) and SFT JSONL.
 */
import { describe, expect, it } from 'vitest';
import { RichRagSpec } from '../../../src-main/api/contract/richrag';
import { compareScores } from '../../../src-main/core/stats/compare';
import { holm } from '../../../src-main/core/stats/multipleComparisons';
import {
  documentsKey,
  generationKey,
  judgmentKey,
  preferenceKey,
  queryKey,
  type DocumentsPayload,
  type GenerationPayload,
  type JudgmentPayload,
  type PreferencePayload,
  type QueryPayload,
} from '../../../src-main/experiments/richrag/items';
import { richRagKind } from '../../../src-main/experiments/richrag/kind';
import { richRagMetrics } from '../../../src-main/experiments/richrag/metrics';
import type { RunItem } from '../../../src-main/store/experimentsRepo';

const QUERIES = ['q1', 'q2', 'q3', 'q4'];
const F1: Record<string, number[]> = {
  'golden/rag-fusion': [0.1, 0.2, 0.3, 0.4],
  'golden/coverage': [0.3, 0.45, 0.5, 0.65],
  'golden/no-ranker': [0.1, 0.25, 0.3, 0.35],
};

function spec(over: Record<string, unknown> = {}): RichRagSpec {
  return RichRagSpec.parse({
    kind: 'richrag',
    name: 'hand',
    collection: 'c',
    generator: { model: 'm' },
    k: 2,
    settings: ['golden'],
    frameworks: ['no-ranker', 'rag-fusion', 'coverage'],
    judge: { enabled: true, systems: ['golden/coverage'] },
    preferences: { enabled: true, samples: 5, mu: 0.1 },
    ...over,
  });
}

function items(rewards: number[] = [0.5, 0.55, 0.75, 0.3, 0.75, 0.45], f1: Record<string, number[]> = F1): RunItem[] {
  const out: RunItem[] = [];
  for (const [qi, qid] of QUERIES.entries()) {
    const query: QueryPayload = {
      type: 'query',
      text: `question ${qid}`,
      answers: ['an answer'],
      golden: [
        { aspect: 'first', answer: 'alpha beta', weight: 0.5 },
        { aspect: 'second', answer: 'gamma delta', weight: 0.5 },
      ],
      candidates: null,
      roles: { evaluate: true, train: true },
      qrels: {},
    };
    const doc = (title: string, phi: number[]) => ({ title, text: `${title} text`, phi });
    const docs: DocumentsPayload = {
      type: 'documents',
      scope: 'collection',
      pools: [
        {
          setting: 'golden',
          aspects: ['first', 'second'],
          fallback: false,
          lists: [
            { aspect: 'first', query: 'q first', ids: ['a', 'b'], scores: [2, 1] },
            { aspect: 'second', query: 'q second', ids: ['c', 'a'], scores: [2, 1] },
          ],
          pool: [
            { id: 'a', aspects: ['first', 'second'] },
            { id: 'c', aspects: ['second'] },
            { id: 'b', aspects: ['first'] },
          ],
        },
      ],
      plain: { aspect: query.text, query: query.text, ids: ['b', 'a'], scores: [1, 0.5] },
      docs: { a: doc('A', [0.6, 0]), b: doc('B', [0.2, 0]), c: doc('C', [0, 0.9]) },
    };
    out.push({ key: queryKey(qid), queryId: qid, condition: '', sample: null, payload: query }, { key: documentsKey(qid), queryId: qid, condition: '', sample: null, payload: docs });
    for (const [condition, values] of Object.entries(f1)) {
      const framework = condition.split('/')[1] as GenerationPayload['framework'];
      const ranking = framework === 'coverage' ? ['c', 'a'] : framework === 'no-ranker' ? ['a', 'c'] : ['a', 'b'];
      const g: GenerationPayload = {
        type: 'generation',
        condition,
        framework,
        setting: 'golden',
        ranking,
        prompt: 'p',
        output: `answer ${condition}`,
        finishReason: 'stop',
        promptTokens: 1,
        completionTokens: 1,
        scores: { f1: values[qi]!, r2: 0, rl: 0, cr1: 0, cr2: 0, crl: 0, coverage: [0, 0] },
        fromCache: false,
      };
      out.push({ key: generationKey(qid, condition), queryId: qid, condition, sample: null, payload: g });
    }
    const j: JudgmentPayload = { type: 'judgment', condition: 'golden/coverage', baseline: 'golden/rag-fusion', verdicts: qi < 2 ? ['system', 'tie'] : ['system', 'baseline'], raw: [], outcome: qi < 2 ? 'win' : 'tie', note: null, fromCache: false };
    out.push({ key: judgmentKey(qid, 'golden/coverage'), queryId: qid, condition: 'golden/coverage', sample: null, payload: j });
    // US³ lists: greedy reward rewards[0], samples the others (sample 4 repeats sample 2's list).
    const lists = [['a', 'c'], ['a', 'b'], ['c', 'b'], ['b', 'a'], ['c', 'b'], ['b', 'c']];
    rewards.forEach((reward, s) => {
      const p: PreferencePayload = { type: 'preference', setting: 'golden', sample: s, greedy: s === 0, ranking: lists[s]!, steps: [], prompt: 'p', response: 'r', reward: { answer: reward, coverage: 0, reward }, fromCache: false };
      out.push({ key: preferenceKey(qid, s), queryId: qid, condition: '', sample: s, payload: p });
    });
  }
  return out;
}

describe('RichRAG metrics', () => {
  const m = richRagMetrics({ runId: 1, spec: spec(), items: items(), finished: true, generatorName: 'gen' });

  it('Table 1: means, paired t-tests against the baseline, Holm over the conditions per measure', () => {
    expect(m.table1.baseline).toBe('golden/rag-fusion');
    const row = (c: string) => m.table1.rows.find((r) => r.condition === c)!.cells.F1!;
    expect(row('golden/coverage').mean).toBeCloseTo(0.475, 12);
    expect(row('golden/rag-fusion')).toMatchObject({ pValue: null, pAdjusted: null, significant: false, delta: null });
    const p = (c: string) => compareScores(F1['golden/rag-fusion']!, F1[c]!, { paired: true }).pValue;
    const raw = [p('golden/no-ranker'), p('golden/coverage')];
    const adjusted = holm(raw);
    expect(row('golden/no-ranker')).toMatchObject({ pValue: raw[0], pAdjusted: adjusted[0], significant: false });
    expect(row('golden/coverage')).toMatchObject({ pValue: raw[1], pAdjusted: adjusted[1], significant: true });
    expect(row('golden/coverage').delta).toBeCloseTo(0.225, 12);
    expect(m.incomplete).toBe(false);
  });

  it('Table 3: ranking metrics with sub-answer relevance (τ = 0.5: a and c relevant)', () => {
    const cov = m.table3.rows.find((r) => r.condition === 'golden/coverage')!.cells;
    // [c, a]: both relevant, R = 2 → AP 1, nDCG 1; NCOM 1 for the silver list [c, a]
    expect(cov.MAP!.mean).toBe(1);
    expect(cov['nDCG@2']!.mean).toBe(1);
    // NCOM against each row's own pool (analysis.ncomPool = own, before issue 23): 1 for the silver list [c, a].
    const own = richRagMetrics({ runId: 1, spec: spec({ analysis: { ncomPool: 'own' } }), items: items(), finished: true, generatorName: 'gen' });
    expect(own.table3.rows.find((r) => r.condition === 'golden/coverage')!.cells.NCOM!.mean).toBeCloseTo(1, 12);
    expect(own.table3.departure).toContain('not comparable');
    // Default: one common pool per query (every document seen) normalises every row; no row can beat the common silver list.
    expect(cov.NCOM!.mean).toBeGreaterThan(0);
    expect(cov.NCOM!.mean).toBeLessThanOrEqual(1 + 1e-12);
    expect(m.table3.departure).toContain('one common pool per query');
    const fusion = m.table3.rows.find((r) => r.condition === 'golden/rag-fusion')!.cells;
    expect(fusion.MAP!.mean).toBeCloseTo(0.5, 12); // [a, b]: a relevant at 1 of R = 2
    expect(m.table3.measures).toEqual(['MAP', 'nDCG@1', 'nDCG@2', 'NCOM']);
  });

  it('Table 1 stars come from the Holm-adjusted p: raw p 0.0405 ≤ α but adjusted 0.081 > α is not significant (issue 37)', async () => {
    // Differences from the baseline (0.1, 0.3, 0.1, 0.3) and (0.3, 0.1, 0.3, 0.1): mean 0.2, sd 0.1155, t = 3.464 on 3
    // degrees of freedom, two-sided p = 0.0405 each; Holm over the two: 2 · 0.0405 = 0.081 for both.
    const f1 = { 'golden/rag-fusion': [0.1, 0.2, 0.3, 0.4], 'golden/coverage': [0.2, 0.5, 0.4, 0.7], 'golden/no-ranker': [0.4, 0.3, 0.6, 0.5] };
    const near = richRagMetrics({ runId: 1, spec: spec(), items: items(undefined, f1), finished: true, generatorName: 'gen' });
    for (const c of ['golden/coverage', 'golden/no-ranker']) {
      const cell = near.table1.rows.find((r) => r.condition === c)!.cells.F1!;
      expect(cell.pValue).toBeCloseTo(0.0405, 4);
      expect(cell.pValue!).toBeLessThanOrEqual(0.05);
      expect(cell.pAdjusted).toBeCloseTo(0.081, 3);
      expect(cell.significant).toBe(false);
    }
    const tex = (await richRagKind.exportFile({ runId: 1, spec: spec(), items: items(undefined, f1), finished: true, experimentName: 'hand', generatorName: 'gen', skipped: [], format: 'latex-table1' })).text;
    // No marker on either row: the F1 cell is padded with the phantom of ‡ (a marked cell reads `}$^{\dagger}$`).
    expect(tex).toContain('golden/coverage & \\textbf{0.4500}\\hphantom{$^{\\ddagger}$} &');
    expect(tex).toContain('golden/no-ranker & \\textbf{0.4500}\\hphantom{$^{\\ddagger}$} &');
  });

  it('judge: wins, ties, losses per condition', () => {
    expect(m.judge!.rows).toEqual([{ condition: 'golden/coverage', queries: 4, wins: 2, ties: 2, losses: 0, winRate: 0.5 }]);
  });
});

describe('US³ preference and SFT JSONL', () => {
  const exportAs = async (format: string, s = spec(), it = items()) => (await richRagKind.exportFile({ runId: 1, spec: s, items: it, finished: true, experimentName: 'hand', generatorName: 'gen', skipped: [], format })).text;
  const lines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);

  it('writes {prompt, chosen, rejected} for (greedy, sample) pairs whose reward gap exceeds μ', async () => {
    const records = lines(await exportAs('preferences-jsonl'));
    // greedy 0.5 [a c] = D1 D2: sample 1 0.55 (gap 0.05 ≤ μ: dropped), sample 2 0.75 (kept, chosen),
    // sample 3 0.3 (kept, greedy chosen), sample 4 = sample 2's list (used once), sample 5 0.45 (dropped)
    expect(records).toHaveLength(2 * QUERIES.length);
    for (const r of records) expect(Object.keys(r).sort()).toEqual(['chosen', 'prompt', 'rejected']);
    expect(records.slice(0, 2).map((r) => [r.chosen, r.rejected])).toEqual([
      ['D2 D3', 'D1 D2'],
      ['D1 D2', 'D3 D1'],
    ]);
    expect(records[0]!.prompt).toContain('Question: question q1');
    expect(records[0]!.prompt).toContain('[D1] A: A text (aspects 1, 2)');
    expect(records[0]!.prompt).toContain('1. first\n2. second');
  });

  it('keeps a pair only when the gap is strictly larger than μ', async () => {
    const at = async (mu: number) => lines((await exportAs('preferences-jsonl', spec({ preferences: { enabled: true, samples: 1, mu } }), items([0.5, 0.75]))) || '{}\n').filter((r) => r.prompt);
    expect(await at(0.25)).toHaveLength(0); // gap exactly 0.25
    expect(await at(0.125)).toHaveLength(QUERIES.length);
    const summary = richRagMetrics({ runId: 1, spec: spec(), items: items(), finished: true, generatorName: 'gen' }).preferences!;
    expect(summary).toMatchObject({ queries: 4, lists: 24, mu: 0.1, pairs: 8 });
  });

  it('writes the silver lists as {prompt, completion}', async () => {
    const records = lines(await exportAs('sft-jsonl'));
    expect(records).toHaveLength(QUERIES.length);
    // φ a = [0.6, 0], c = [0, 0.9], b = [0.2, 0]: the greedy coverage list of k = 2 is [c, a] = D2 D1
    expect(records[0]).toEqual({ prompt: expect.stringContaining('Ranking: '), completion: 'D2 D1' });
  });

  it('exports the tables as CSV and booktabs LaTeX with significance markers', async () => {
    const csv = (await exportAs('tables-csv')).split('\r\n');
    expect(csv[0]).toBe('table,condition,framework,setting,measure,queries,mean,delta_vs_baseline,p_value,p_adjusted,significant,baseline,test,correction');
    expect(csv.some((l) => l.startsWith('table1,golden/coverage,coverage,golden,F1,4,0.475,') && l.includes(',true,golden/rag-fusion,'))).toBe(true);
    const tex = await exportAs('latex-table1');
    expect(tex).toContain('\\toprule');
    expect(tex).toMatch(/golden\/coverage & \\textbf\{0\.4750\}\$\^\{\\(dagger|ddagger)\}\$/);
    await expect(exportAs('nope')).rejects.toThrow(/unknown export format 'nope'/);
  });
});
