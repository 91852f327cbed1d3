/**
 * Issue 34 item 4 (replacing issue 23's clamp of the prediction): a lower-is-better utility is
 * clamped, never the prediction. An answer p for gold g scores max(0, worst − |p − g|) (LaMP-3:
 * worst 4), so an answer outside the labels 1–5 is scored by its real distance and never better than
 * the same error inside the range; the count of such answers goes into the run's warnings, the
 * Table 2 caption and the manifest. Hand-computed cases.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { perSampleCsv, table2Latex } from '../../src-main/experiments/fair-rag/exports';
import { generationKey, indexRunItems, queryKey, sampleKey } from '../../src-main/experiments/fair-rag/items';
import { fairRagMetrics, fairRagSummary } from '../../src-main/experiments/fair-rag/metrics';
import { utilityScorer, type UtilityScorer } from '../../src-main/experiments/fair-rag/utility';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { ensureDemoSimReader } from '../../src-main/services/simulation/demoSim';
import type { RunItem } from '../../src-main/store/experimentsRepo';
import { openWorkbench } from '../planted/support';

function scorer(metric: string, worst?: number): UtilityScorer {
  const s = utilityScorer(worst === undefined ? {} : { utilityMetric: { name: metric as 'mae', worst } as never }, metric);
  if ('error' in s) throw new Error(s.error);
  return s;
}

describe('LaMP-3: the utility is clamped, never the prediction', () => {
  const mae = scorer('mae');
  it('scores out-of-range answers by their real error; raw keeps the error', () => {
    // gold 5, answer 9: |9 − 5| = 4 → 4 − 4 = 0 (issue 23's clamp to 5 gave the maximum 4).
    expect(mae.score('9', ['5'])).toEqual({ raw: 4, utility: 0, outOfRange: true });
    // gold 1, answer 0: |0 − 1| = 1 → 3.
    expect(mae.score('0', ['1'])).toEqual({ raw: 1, utility: 3, outOfRange: true });
    // gold 1, answer −2: |−2 − 1| = 3 → 1.
    expect(mae.score('-2', ['1'])).toEqual({ raw: 3, utility: 1, outOfRange: true });
    // gold 1, answer 9: |9 − 1| = 8 → max(0, −4) = 0.
    expect(mae.score('9', ['1'])).toEqual({ raw: 8, utility: 0, outOfRange: true });
  });
  it('an out-of-range answer is never better than the same error inside the range', () => {
    for (const gold of [1, 2, 3, 4, 5]) {
      for (const p of [-3, -1, 0, 0.5, 5.5, 6, 7, 9, 12]) {
        const inside = Math.max(0, 4 - Math.min(4, Math.abs(p - gold)));
        expect(mae.score(String(p), [String(gold)]).utility).toBeLessThanOrEqual(inside);
        expect(mae.score(String(p), [String(gold)]).utility).toBe(Math.max(0, 4 - Math.abs(p - gold)));
      }
    }
  });
  it('leaves answers in the range and LaMP’s non-numeric fallback alone', () => {
    expect(mae.score('4', ['2'])).toEqual({ raw: 2, utility: 2 });
    // Not a number, gold 3: LaMP scores it as the farther of 1 and 5 (a tie: 1), error 2.
    expect(mae.score('great', ['3'])).toEqual({ raw: 2, utility: 2 });
  });
  it('a user-set worst (another scale) clamps the utility to [0, worst] and has no label range', () => {
    const s = scorer('mae', 2);
    expect(s.score('4', ['1'])).toEqual({ raw: 3, utility: 0 });
    expect(s.score('2', ['1'])).toEqual({ raw: 1, utility: 1 });
  });
});

describe('an all-wrong reader on LaMP-3', () => {
  const spec = FairRagSpec.parse({ kind: 'fair-rag', name: 'lamp3', collection: 'c', retrievers: [{ name: 'r1', method: 'bm25' }], generator: { model: 'g' }, k: 1, samples: 2, alphas: [1] });
  const candidates = [
    { docId: 'a', useful: true, provider: 'P' },
    { docId: 'b', useful: false, provider: 'Q' },
  ];
  // Query q1 (gold 1) and q2 (gold 5); every answer wrong, as the reader: "9", "-3", "5" for gold 1
  // and "9", "1", "0" for gold 5 (errors 8, 4, 4 and 4, 4, 5: every utility 0). The utilities are stored as
  // issue 23's clamp stored them (answer 9 → 5, −3 → 1, 0 → 1: "-3" for gold 1 scored a perfect 4), so the
  // metrics must score them from the raw error, not take the stored utility.
  const answers: Record<string, { gold: string; out: Record<string, [string, number, number]> }> = {
    q1: { gold: '1', out: { h1: ['9', 8, 0], h2: ['-3', 4, 4], h3: ['5', 4, 0] } },
    q2: { gold: '5', out: { h1: ['9', 4, 4], h2: ['1', 4, 0], h3: ['0', 5, 0] } },
  };
  const items: RunItem[] = [];
  for (const [qid, { gold, out }] of Object.entries(answers)) {
    items.push({
      key: queryKey(qid),
      queryId: qid,
      condition: '',
      sample: null,
      payload: { type: 'query', text: 'q', retrievalText: 'q', answers: [gold], task: null, metric: 'mae', lowerIsBetter: true, worst: 4, candidates, scores: { r1: [2, 1] } },
    });
    const arms: [string, string | null, number | null, string, string[]][] = [
      ['r1/alpha=1', 'r1', 1, 'pl', ['h1', 'h2']],
      ['r1/deterministic', 'r1', null, 'deterministic', ['h3']],
      ['oracle', null, null, 'oracle', ['h3', 'h1']],
    ];
    for (const [condition, retriever, alpha, policy, hashes] of arms) {
      hashes.forEach((promptHash, s) =>
        items.push({ key: sampleKey(qid, condition, s), queryId: qid, condition, sample: s, payload: { type: 'sample', retriever, alpha, policy, ranking: ['a', 'b'], promptHash } }),
      );
    }
    for (const [h, [output, raw, stored]] of Object.entries(out)) {
      items.push({
        key: generationKey(qid, h),
        queryId: qid,
        condition: '',
        sample: null,
        payload: { type: 'generation', promptHash: h, prompt: `prompt ${h}`, output, outputHash: `o-${qid}-${h}`, promptTokens: 1, completionTokens: 1, finishReason: 'stop', utilityRaw: raw, utility: stored, fromCache: false },
      });
    }
  }
  const metrics = fairRagMetrics({ runId: 1, spec, items, finished: true, generatorName: 'gen' });

  it('gets EU = 0 on every arm: no wrong answer scores above 0', () => {
    expect(metrics.perQuery.length).toBe(6);
    for (const m of metrics.perQuery) expect(m.eu, `${m.queryId} ${m.condition}`).toBe(0);
    // u_max = 0: EU̅ = 0 by default (uMaxZero 'zero'), warned; Fair-RAG's normalize_eu.py gives 1 ('code').
    for (const m of metrics.perQuery.filter((x) => x.policy !== 'oracle')) expect(m.euNorm, `${m.queryId} ${m.condition}`).toBe(0);
    expect(metrics.warnings).toContain("query 'q1', retriever 'r1': u_max = 0 (no sample scored above 0), so EU̅ = 0 for every arm (uMaxZero 'zero'; Fair-RAG's code gives 1)");
    const code = fairRagMetrics({ runId: 1, spec: { ...spec, uMaxZero: 'code' }, items, finished: true, generatorName: 'gen' });
    for (const m of code.perQuery.filter((x) => x.policy !== 'oracle')) expect(m.euNorm).toBe(1);
  });

  it('the per-sample export keeps the raw error beside the utility the metrics use', () => {
    const csv = perSampleCsv(spec, indexRunItems(items)).trim().split('\r\n');
    expect(csv[0]).toContain('output,utility,utility_raw');
    // q1's α = 1 sample 1 is h2: answer "-3" for gold 1, stored utility 4 (the old clamp), raw error 4 → utility 0.
    const row = csv.find((l) => l.startsWith('q1,r1/alpha=1,1,'))!;
    expect(row).toMatch(/,-3,0,4,,$/);
  });

  it('counts the out-of-range answers in the warnings, the metrics and the Table 2 caption', () => {
    // Out of 1..5: q1 "9", "-3"; q2 "9", "0" → 4 of 6 answers.
    expect(metrics.outOfRangeAnswers).toEqual({ count: 4, answers: 6 });
    const warning = "4 of 6 answers are ratings outside LaMP-3's labels 1–5; each is scored by its real error, max(0, 4 − |answer − gold|), never clamped into the range";
    expect(metrics.warnings).toContain(warning);
    expect(fairRagSummary({ runId: 1, spec, items, finished: true, generatorName: 'gen' }).warnings).toContain(warning);
    expect(table2Latex(metrics)).toContain('4 of 6 answers outside 1--5 score $\\max(0, 4 - |p - g|)$ (unclamped).');
  });

  it("puts the count in the run's manifest (built by the Fair RAG kind from the stored items, real SQLite workspace)", async () => {
    const wb = openWorkbench('lamp3-manifest');
    try {
      await loadDemoCollection(wb.services);
      ensureDemoSimReader(wb.services);
      const demo = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;
      const { experiment } = wb.services.experiments.upsert({ ...demo, name: 'lamp3 manifest' });
      const runId = wb.services.experiments.runToContinue(experiment.id, true).run.id;
      wb.services.experiments.repo.upsertItems(runId, items);
      for (const format of ['manifest', 'latex-table2'] as const) {
        const out = await wb.services.experiments.export(runId, format);
        const manifest = (format === 'manifest' ? JSON.parse(out.file.text) : out.manifest) as { evaluation: { measureParameters: Record<string, unknown> } };
        // Out of 1..5: q1 "9", "-3"; q2 "9", "0" → 4 of 6 answers (as above).
        expect(manifest.evaluation.measureParameters.outOfRangeAnswers, format).toEqual({ count: 4, of: 6, labels: '1–5' });
        expect(manifest.evaluation.measureParameters.lowerIsBetterUtility, format).toBe('max(0, worst − error); the prediction is never clamped into the label range');
      }
    } finally {
      await wb.close();
    }
  }, 120_000);
});
