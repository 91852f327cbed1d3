/**
 * Fair RAG metrics on stored items built by hand, against values computed by hand (comments show
 * the arithmetic), and the exports read back by `fairground eval exposure`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { evalExposureCommand } from '../../src-main/cli/commands/evalExposure';
import { studentTTest } from '../../src-main/core/stats/tTest';
import { attributionLabels, perQueryCsv, table2Latex, trecRun, utilityQrels } from '../../src-main/experiments/fair-rag/exports';
import { generationKey, indexRunItems, judgmentKey, queryKey, sampleKey } from '../../src-main/experiments/fair-rag/items';
import { fairRagMetrics, fairRagSummary } from '../../src-main/experiments/fair-rag/metrics';
import type { RunItem } from '../../src-main/store/experimentsRepo';
import { parseRun } from '../../src-main/io/trec';
import { runCliCaptured } from '../support/cli';

const spec = FairRagSpec.parse({
  kind: 'fair-rag',
  name: 'hand',
  collection: 'c',
  retrievers: [{ name: 'r1', method: 'bm25' }],
  generator: { model: 'g' },
  k: 2,
  samples: 2,
  alphas: [1, 8],
  attribution: { judge: 'nli-llm' },
});

// n = 4 candidates, m = 2 useful (a, b), k = 2. Providers: P (a, b), Q (c, d).
const candidates = [
  { docId: 'a', useful: true, provider: 'P' },
  { docId: 'b', useful: true, provider: 'P' },
  { docId: 'c', useful: false, provider: 'Q' },
  { docId: 'd', useful: false, provider: 'Q' },
];
// Samples (same for both queries): α=1: [a,c] → h1, [b,a] → h2; α=8: [a,b], [a,b] → h3;
// deterministic: [a,b] → h3; oracle: [a,b] → h3, [b,a] → h2.
const arms: [string, string | null, number | null, 'pl' | 'deterministic' | 'oracle', [string[], string][]][] = [
  ['r1/alpha=1', 'r1', 1, 'pl', [[['a', 'c'], 'h1'], [['b', 'a'], 'h2']]],
  ['r1/alpha=8', 'r1', 8, 'pl', [[['a', 'b'], 'h3'], [['a', 'b'], 'h3']]],
  ['r1/deterministic', 'r1', null, 'deterministic', [[['a', 'b'], 'h3']]],
  ['oracle', null, null, 'oracle', [[['a', 'b'], 'h3'], [['b', 'a'], 'h2']]],
];
// Utilities per prompt: q1 h1 .2, h2 .6, h3 1;  q2 h1 0, h2 .4, h3 .5.
const utilities: Record<string, Record<string, number>> = { q1: { h1: 0.2, h2: 0.6, h3: 1 }, q2: { h1: 0, h2: 0.4, h3: 0.5 } };
// NLI judgments per (output, doc): o1 (of h1): a yes, c no; o2: b yes, a yes; o3: a no, b yes.
const nli: Record<string, Record<string, boolean>> = { o1: { a: true, c: false }, o2: { b: true, a: true }, o3: { a: false, b: true } };

function items(drop: string[] = []): RunItem[] {
  const out: RunItem[] = [];
  for (const qid of ['q1', 'q2']) {
    out.push({
      key: queryKey(qid),
      queryId: qid,
      condition: '',
      sample: null,
      payload: { type: 'query', text: 'q', retrievalText: 'q', answers: ['x'], task: null, metric: 'accuracy', lowerIsBetter: false, worst: null, candidates, scores: { r1: [4, 3, 2, 1] } },
    });
    for (const [condition, retriever, alpha, policy, samples] of arms) {
      samples.forEach(([ranking, promptHash], s) =>
        out.push({ key: sampleKey(qid, condition, s), queryId: qid, condition, sample: s, payload: { type: 'sample', retriever, alpha, policy, ranking, promptHash } }),
      );
    }
    for (const h of ['h1', 'h2', 'h3']) {
      if (drop.includes(`${qid}:${h}`)) continue;
      const o = `o${h.slice(1)}`;
      const u = utilities[qid]![h]!;
      out.push({
        key: generationKey(qid, h),
        queryId: qid,
        condition: '',
        sample: null,
        payload: { type: 'generation', promptHash: h, prompt: `prompt ${h}`, output: `out ${o}`, outputHash: o, promptTokens: 1, completionTokens: 1, finishReason: 'stop', utilityRaw: u, utility: u, fromCache: false },
      });
      for (const [docId, entails] of Object.entries(nli[o]!)) {
        out.push({ key: judgmentKey(qid, o, docId), queryId: qid, condition: '', sample: null, payload: { type: 'judgment', docId, outputHash: o, prompt: 'p', raw: entails ? 'yes' : 'no', entails, fromCache: false } });
      }
    }
  }
  return out;
}

const metrics = fairRagMetrics({ runId: 1, spec, items: items(), finished: true, generatorName: 'gen' });
const row = (qid: string, condition: string) => metrics.perQuery.find((m) => m.queryId === qid && m.condition === condition)!;

describe('Fair RAG metrics on hand-built items', () => {
  it('computes EE-D/R/L, EU, u_max and EU̅ per query and arm', () => {
    // α=1: ε = (a 1, b ½, c ½, d 0); ε* (paper, m = k) = (1, 1, 0, 0).
    // EE-D = 1 + ¼ + ¼ = 1.5, /k = .75; EE-R = 1 + ½ = 1.5, bound m + (k−m)²/(n−m) = 2 → .75;
    // EE-L = 0 + ¼ + ¼ + 0 = .5, /(2 + k) = .125. EU = (.2 + .6)/2 = .4; u_max = max(α arms, oracle) = 1.
    expect(row('q1', 'r1/alpha=1')).toMatchObject({ n: 4, m: 2, samples: 2, distinctRankings: 2, eeD: 1.5, eeDNorm: 0.75, eeR: 1.5, eeRNorm: 0.75, eeL: 0.5, eeLNorm: 0.125, uMax: 1 });
    expect(row('q1', 'r1/alpha=1').eu).toBeCloseTo(0.4, 12);
    expect(row('q1', 'r1/alpha=1').euNorm).toBeCloseTo(0.4, 12);
    // α=8 and deterministic: always [a, b]: EE-D = 2 → 1, EE-R = 2 → 1.
    expect(row('q1', 'r1/alpha=8')).toMatchObject({ eeD: 2, eeDNorm: 1, eeRNorm: 1, eu: 1, euNorm: 1, distinctRankings: 1 });
    expect(row('q1', 'r1/deterministic')).toMatchObject({ samples: 1, eeDNorm: 1, eu: 1, euNorm: 1, policy: 'deterministic' });
    // q2: EU(α=1) = (0 + .4)/2 = .2; u_max = max(0, .4, .5, .5, .5, .4) = .5 → EU̅ = .4.
    expect(row('q2', 'r1/alpha=1').euNorm).toBeCloseTo(0.4, 12);
    expect(row('q2', 'r1/alpha=1').uMax).toBe(0.5);
    // The oracle has no EU̅ of its own (it only feeds u_max).
    expect(row('q1', 'oracle')).toMatchObject({ retriever: null, policy: 'oracle', eu: 0.8, uMax: null, euNorm: null });
  });

  it('computes EAR and EAE-D from the judgments', () => {
    // α=1: sample 0 [a,c] with o1: (yes, no) → AR ½; sample 1 [b,a] with o2: (yes, yes) → AR 1; EAR = .75.
    // ε^a = (a (1+1)/2 = 1, b ½, c 0, d 0): EAE-D = 1.25, /k = .625.
    expect(row('q1', 'r1/alpha=1')).toMatchObject({ ear: 0.75, eaeD: 1.25, eaeDNorm: 0.625 });
    // α=8: [a,b] with o3: (no, yes) twice → AR ½; ε^a = (0, 1, 0, 0) → EAE-D 1.
    expect(row('q1', 'r1/alpha=8')).toMatchObject({ ear: 0.5, eaeD: 1, eaeDNorm: 0.5 });
  });

  it('aggregates over queries with 95% t-intervals and splits exposure by provider', () => {
    const agg = metrics.aggregates.find((a) => a.condition === 'r1/alpha=1')!;
    expect(agg.queries).toBe(2);
    // EU .4 and .2: mean .3, s = .1414, se = .1, t(.975, 1) = 12.7062.
    expect(agg.measures.eu!.mean).toBeCloseTo(0.3, 12);
    // t-interval .3 ± 1.270620 = [−.97062, 1.57062], clipped to EU's range on accuracy's scale, [0, 1] (issue 34 item 5).
    expect(agg.measures.eu!.lower).toBe(0);
    expect(agg.measures.eu!.upper).toBe(1);
    expect(agg.measures.eu!.method).toBe('t, clipped to [0, 1]');
    expect(agg.measures.eu!.clipped).toBe(true);
    // Both queries .75: no variance, so no interval (issue 23 item 4; before: a zero-width [.75, .75]).
    expect(agg.measures.eeDNorm).toEqual({ mean: 0.75, lower: null, upper: null, n: 2, method: 'no variance (n = 2)', clipped: false });
    const prov = metrics.providerExposure.find((p) => p.condition === 'r1/alpha=1')!;
    // Per query P gets 1 + ½, Q gets ½ (of min(n,k) = 2); attributed: P 1 + ½, Q 0. Two queries.
    expect(prov.providers).toEqual([
      { provider: 'P', documents: 4, retrieved: 3, retrievedShare: 0.75, attributed: 3, attributedShare: 1 },
      { provider: 'Q', documents: 4, retrieved: 1, retrievedShare: 0.25, attributed: 0, attributedShare: 0 },
    ]);
  });

  it('Table 1: slope of a linear fit and the trapezoid AUC over points sorted by EE-D̄', () => {
    // EE-R̄ points: (.75, .75) ×2 and (1, 1) ×2: slope 1, intercept 0; AUC = .25 · (.75 + 1)/2.
    const r = metrics.table1.find((t) => t.measure === 'eeRNorm')!;
    expect(r).toMatchObject({ retriever: 'r1', points: 4, xMin: 0.75, xMax: 1 });
    expect(r.slope).toBeCloseTo(1, 12);
    expect(r.intercept).toBeCloseTo(0, 12);
    expect(r.auc).toBeCloseTo(0.21875, 12);
    // EU̅ points: (.75, .4) ×2, (1, 1) ×2: slope .6/.25 = 2.4, AUC = .25 · 1.4/2 = .175.
    const u = metrics.table1.find((t) => t.measure === 'euNorm')!;
    expect(u.slope).toBeCloseTo(2.4, 12);
    expect(u.auc).toBeCloseTo(0.175, 12);
  });

  it('Table 2: fairer runs per disparity interval against the deterministic baseline, paired over queries (paper: unpaired t-test)', () => {
    const t2 = metrics.table2.rows[0]!;
    // Baseline: deterministic EU 1 and .5 → .75. Runs in [.6, .8): the α=1 arms, EU .4 and .2.
    expect(t2).toMatchObject({ retriever: 'r1', generator: 'gen', baselineQueries: 2, excludedAtOne: 2 });
    expect(t2.baseline).toBeCloseTo(0.75, 12);
    const cell = t2.cells[3]!;
    expect(cell).toMatchObject({ lower: 0.6, upper: 0.8, runs: 2 });
    expect(cell.difference).toBeCloseTo(0.3 - 0.75, 12);
    // Pooled variance (.125 + .02)/2 = .0725, se = √(.0725·(½ + ½)) = .26926, t = −.45/.26926 = −1.6713, df 2.
    const t = studentTTest([1, 0.5], [0.4, 0.2]);
    expect(t.statistic).toBeCloseTo(-1.67126, 4);
    // The paper's unpaired test is kept beside the cell; the stars come from the within-query exchange test (issue 23
    // item 2): per query the deterministic utility is exchanged at random with the query's sampled ones in the interval.
    // q1 pools [1 | .2, .6] (sum 1.8): stat(b) = (1.8 − b)/2 − b ∈ {−.6, .6, 0}; q2 pools [.5 | 0, .4]: {−.3, .45, −.15}.
    // Observed (−.6 − .3)/2 = −.45. Of the 9 equally likely exchanges, one is above |.45| ((.6 + .45)/2 = .525) and one
    // ties it (the observed), so the mid-p is 1/9 + ½·1/9 = 1/6 (Monte Carlo, 9,999 exchanges, seeded).
    expect(cell.paperPValue).toBe(t.pValue);
    expect(cell).toMatchObject({ queries: 2 });
    expect(cell.pairedDifference).toBeCloseTo(-0.45, 12);
    expect(cell.pValue!).toBeGreaterThan(1 / 6 - 0.01);
    expect(cell.pValue!).toBeLessThan(1 / 6 + 0.01);
    expect(cell.pAdjusted).toBe(cell.pValue);
    expect(cell.significant).toBe(false);
    expect(metrics.table2).toMatchObject({ testId: 'within-query-exchange', correction: 'holm', alpha: 0.05 });
    expect(metrics.table2.test).toContain('within-query randomization test over queries');
    expect(metrics.table2.departure).toContain('Departure from Kim & Diaz');
    // significance.test = paired-randomization (sign-flip): differences .4 − 1 = −.6 and .2 − .5 = −.3, observed mean −.45;
    // the 4 sign vectors give means ±.45, ±.15, so p = 2/4 = .5.
    const signFlip = fairRagMetrics({ runId: 1, spec: { ...spec, significance: { test: 'paired-randomization', correction: 'holm', alpha: 0.05 } }, items: items(), finished: true, generatorName: 'gen' });
    expect(signFlip.table2.rows[0]!.cells[3]!.pValue).toBe(0.5);
    expect(signFlip.table2.test).toContain('paired sign-flip (randomization) test over queries');
    // significance.test = paired-t: mean −.45, sd .21213, se .15, t = −3, df 1, p = 1 − 2·atan(3)/π = .204833.
    const pairedT = fairRagMetrics({ runId: 1, spec: { ...spec, significance: { test: 'paired-t', correction: 'holm', alpha: 0.05 } }, items: items(), finished: true, generatorName: 'gen' });
    expect(pairedT.table2.rows[0]!.cells[3]!.pValue).toBeCloseTo(1 - (2 * Math.atan(3)) / Math.PI, 12);
    // The paper's test under its name, no correction: the paper's p, and no departure to state.
    const paper = fairRagMetrics({ runId: 1, spec: { ...spec, significance: { test: 'kim-diaz-unpaired-t', correction: 'none', alpha: 0.05 } }, items: items(), finished: true, generatorName: 'gen' });
    expect(paper.table2.rows[0]!.cells[3]!.pValue).toBe(t.pValue);
    expect(paper.table2).toMatchObject({ testId: 'kim-diaz-unpaired-t', correction: 'none', departure: null });
    expect(table2Latex(paper)).toContain("Kim \\& Diaz's unpaired Student's t-test");
    expect(table2Latex(paper)).toContain('no multiple-comparison correction');
    expect(t2.cells.filter((c) => c.runs === 0).map((c) => c.difference)).toEqual([null, null, null, null]);
    const tex = table2Latex(metrics);
    // One generator per run: rows name the retriever, the notes the generator (issue 34 item 9); the cell is the paired difference (item 8f), here equal to the paper's.
    expect(tex).toContain('r1 (0.750) & -- & -- & -- & $-$0.45\\hphantom{$^{\\ddagger}$} & -- \\\\');
    expect(tex).toContain('generator gen.');
    expect(tex).toContain('\\toprule');
  });

  it('Fig. 3: EE-D̄ per α and paired t-tests between α', () => {
    const f = metrics.fig3[0]!;
    expect(f.queryIds).toEqual(['q1', 'q2']);
    expect(f.alphas.map((a) => [a.alpha, a.values, a.median])).toEqual([
      [1, [0.75, 0.75], 0.75],
      [8, [1, 1], 1],
    ]);
    // Differences .25 and .25: zero variance with a non-zero mean (t = ∞, p = 0).
    expect(f.tests).toEqual([{ alphaA: 1, alphaB: 8, n: 2, meanDifference: 0.25, t: null, df: 1, pValue: 0, pHolm: 0, degenerate: 'zero-variance' }]);
  });

  it('leaves out arms whose generations are missing and flags the result incomplete', () => {
    const partial = fairRagMetrics({ runId: 1, spec, items: items(['q2:h1']), finished: false, generatorName: 'gen' });
    expect(partial.incomplete).toBe(true);
    expect(partial.perQuery.some((m) => m.queryId === 'q2' && m.condition === 'r1/alpha=1')).toBe(false);
    expect(partial.perQuery.filter((m) => m.queryId === 'q1')).toHaveLength(4);
    expect(metrics.incomplete).toBe(false);
  });

  it("the summary (the CLI's table) has exactly the metrics' aggregates, warnings and incomplete flag, without the tables", () => {
    for (const [finished, missing] of [
      [true, []],
      [false, ['q2:h1']],
    ] as const) {
      const input = { runId: 1, spec, items: items([...missing]), finished, generatorName: 'gen' };
      const full = fairRagMetrics(input);
      const summary = fairRagSummary(input);
      expect(summary).toEqual({ kind: 'fair-rag', aggregates: full.aggregates, warnings: full.warnings, incomplete: full.incomplete });
      expect(summary.aggregates.length).toBeGreaterThan(0);
      expect(summary).not.toHaveProperty('table2');
    }
    expect(fairRagSummary({ runId: 1, spec, items: items(['q2:h1']), finished: false, generatorName: 'gen' }).incomplete).toBe(true);
  });

  it('exports a stochastic TREC run, qrels and attribution labels that eval exposure reads back to the same numbers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-metrics-'));
    try {
      const data = indexRunItems(items());
      const runText = trecRun(spec, data, 'r1/alpha=1', 'hand.r1_alpha=1');
      // Six columns and no '#' lines: pytrec_eval's, ranx's and ir_measures' readers take it (#16.2).
      expect(parseRun(runText, 'run.trec', { columns: 'strict' }).length).toBe(runText.trim().split('\n').length);
      writeFileSync(join(dir, 'run.trec'), runText);
      writeFileSync(join(dir, 'u.qrels'), utilityQrels(data));
      writeFileSync(join(dir, 'a.att'), attributionLabels(spec, data, 'r1/alpha=1'));
      const r = await runCliCaptured(['eval', 'exposure', '--run', 'run.trec', '--qrels', 'u.qrels', '-k', '2', '--attribution', 'a.att', '-q'], { cwd: dir, commands: [evalExposureCommand] });
      expect(r.code).toBe(0);
      const values = new Map(r.stdout.trim().split('\n').map((l) => [l.split('\t').slice(0, 2).join(' '), Number(l.split('\t')[2])]));
      expect(values.get('EE-D q1')).toBe(1.5);
      expect(values.get('EE-R_norm all')).toBe(0.75);
      expect(values.get('EAR q1')).toBe(0.75);
      expect(values.get('EAE-D_norm q1')).toBe(0.625);
      expect(perQueryCsv(metrics).split('\r\n')[0]).toBe('query_id,retriever,condition,policy,alpha,n,m,samples,distinct_rankings,EE-D,EE-R,EE-L,EE-D_norm,EE-R_norm,EE-L_norm,EU,EU_raw,u_max,EU_norm,EAR,EAE-D,EAE-D_norm');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Fair RAG normalisation (#16.7)', () => {
  it("takes u_max over every arm, so the deterministic arm's EU̅ stays within [0, 1] (Eq. 30)", () => {
    // The deterministic arm's prompt h4 has its own output with utility 2 > every α and oracle sample.
    const its = items().map((it) =>
      (it.payload as { type: string }).type === 'sample' && it.condition === 'r1/deterministic' ? { ...it, payload: { ...(it.payload as Record<string, unknown>), promptHash: 'h4' } } : it,
    );
    for (const qid of ['q1', 'q2']) {
      its.push({
        key: generationKey(qid, 'h4'),
        queryId: qid,
        condition: '',
        sample: null,
        payload: { type: 'generation', promptHash: 'h4', prompt: 'prompt h4', output: 'out o3', outputHash: 'o3', promptTokens: 1, completionTokens: 1, finishReason: 'stop', utilityRaw: 2, utility: 2, fromCache: false },
      });
    }
    const m = fairRagMetrics({ runId: 1, spec, items: its, finished: true, generatorName: 'gen' });
    const r = (qid: string, condition: string) => m.perQuery.find((x) => x.queryId === qid && x.condition === condition)!;
    // Before: u_max = 1 (α arms and oracle only) and the deterministic EU̅ = 2.
    expect(r('q1', 'r1/deterministic')).toMatchObject({ eu: 2, uMax: 2, euNorm: 1 });
    expect(r('q1', 'r1/alpha=1').euNorm).toBeCloseTo(0.4 / 2, 12);
    for (const x of m.perQuery) if (x.euNorm !== null) expect(x.euNorm).toBeLessThanOrEqual(1);
  });
});

describe('Table 2 on both scales (#16.7)', () => {
  it('offers the normalised table beside the raw one and says which scale each LaTeX table shows', () => {
    const raw = metrics.table2.rows[0]!;
    const norm = metrics.table2.normalizedRows[0]!;
    // Deterministic EU: q1 1, q2 .5 (raw); EU̅: 1/1 and .5/.5 = 1 (u_max q1 1, q2 .5).
    expect(raw.baseline).toBeCloseTo(0.75, 12);
    expect(norm.baseline).toBeCloseTo(1, 12);
    const rawTex = table2Latex(metrics);
    const normTex = table2Latex(metrics, 'normalized');
    expect(rawTex).toContain('Raw utility (LaMP-3: 4 $-$ MAE).');
    expect(normTex).toContain('Utility $\\overline{\\mathrm{EU}} = \\mathrm{EU}/u_{\\max}$ (Eq. 30).');
    expect(normTex).toContain('normalised utility; see the notes');
    expect(normTex).toContain('r1 (1.000)');
    expect(rawTex).toContain('r1 (0.750)');
  });
});
