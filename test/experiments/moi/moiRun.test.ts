/**
 * MoI end to end on the demo collection with the generated tiny model (real llama.cpp, one thread):
 * every baseline on two queries, engine calls counted against the plan (3N orderings per query for
 * random-3N, N for cyclic, N prompts of L passages for pruned), the stored fit and orders checked
 * against the core functions, the generic `runs.*` API (metrics, drill-down, exports with manifests), a rerun
 * answered by the cache, a calibration run's bias profile held fixed, and resume after a cancel:
 * no call computed twice (cache rows = distinct calls) and the same items as an uninterrupted run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiOutput, ItemsOf, MetricsOf } from '../../../src-main/api/contract/index';
import { MoiSpec } from '../../../src-main/api/contract/moi';
import { createApiRouter } from '../../../src-main/handlers/index';
import type { Router } from '../../../src-main/api/router';
import { rankByUtility } from '../../../src-main/core/moi/solveMoi';
import type { CachedEngine } from '../../../src-main/engine/callCache';
import { generationKey, KEY_PREFIX, type FitPayload, type GenerationPayload, type MethodPayload, type PermPayload, type QueryPayload } from '../../../src-main/experiments/moi/items';
import { PromptLayout } from '../../../src-main/experiments/moi/promptLayout';
import { chooseAnswer } from '../../../src-main/experiments/moi/selfConsistency';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { DEMO_COLLECTION_NAME } from '../../../src-main/services/collectionsDemo';
import { DEMO_MODEL_NAME, ensureDemo } from '../../../src-main/services/demoSetup';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import type { RunItem } from '../../../src-main/store/experimentsRepo';

let dir: string;
let s: AppServices;
let router: Router;
let engine: CachedEngine;
let modelId: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-moi-'));
  s = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  s.settings.update({ threads: 1 });
  await ensureDemo(s);
  modelId = s.models.models.getByName(DEMO_MODEL_NAME)!.id;
  engine = s.models.engineFor({ kind: 'local', modelId });
  router = createApiRouter(s);
});

afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const ALL = ['random', 'self-consistency', 'bayes-saliency', 'bayes-saliency-plus', 'qg', 'longllmlingua', 'longllmlingua-code', 'retriever-reversed', 'moi-reversed', 'gold-position'];

// Passages without their titles: four passages and a question stay within the tiny model's 512-token context.
function spec(name: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind: 'moi', name, collection: DEMO_COLLECTION_NAME, queries: ['ma-q1', 'ma-q2'], n: 4, generator: { model: DEMO_MODEL_NAME }, decoding: { maxTokens: 6 }, prompt: { passage: '[{{index}}] {{text}}' }, ...over };
}

function cacheRows(): { score: number; generate: number } {
  const rows = s.workspace.db.prepare(`SELECT op, count(*) AS n FROM llm_call_cache GROUP BY op`).all() as { op: string; n: number }[];
  const n = (op: string) => rows.find((r) => r.op === op)?.n ?? 0;
  return { score: n('score'), generate: n('generate') };
}

async function runSpec(raw: Record<string, unknown>): Promise<{ runId: number; stats: Record<string, unknown> }> {
  const e = s.experiments.create(raw);
  const job = await s.jobs.wait(s.experiments.startRun(e.id).id);
  expect(job.error).toBeNull();
  expect(job.status).toBe('succeeded');
  const runId = (job.result as { runId: number }).runId;
  return { runId, stats: s.experiments.getRun(runId).stats };
}

async function call<T>(method: string, input: unknown): Promise<T> {
  const out = await router.call(method, input);
  if (!out.ok) throw new Error(`${method}: ${out.error.message}`);
  return out.data as T;
}

const item = <T>(runId: number, key: unknown[]) => s.experiments.repo.item(runId, JSON.stringify(key))!.payload as T;
const payloads = <T>(runId: number, prefix: string) => s.experiments.repo.items(runId, { keyPrefix: prefix }).map((it) => it.payload as T);
/** Items without the per-session cache flags. */
const comparable = (items: readonly RunItem[]) =>
  items.map((it) => {
    const { fromCache: _ignored, ...rest } = it.payload as Record<string, unknown>;
    return { ...it, payload: rest };
  });

let mainRun: number;

describe('MoI run with every baseline (tiny model, 2 queries, N = 4, random 3N)', () => {
  it('makes exactly the planned engine calls, each once', async () => {
    const before = cacheRows();
    const misses = engine.stats().misses;
    const { runId, stats } = await runSpec(spec('all-baselines', { baselines: ALL, selfConsistency: { samples: 3 }, extraMetrics: ['f1'] }));
    mainRun = runId;
    const after = cacheRows();
    // per query: 3N = 12 orderings + N pointwise passes + N UPR prompts + N − 2 greedy steps of Bayes saliency+
    expect(after.score - before.score).toBe(2 * (12 + 4 + 4 + 2));
    expect(stats).toMatchObject({ queries: 2, scoreRequests: 44, scoreRequestsComputed: 44, scoreRequestsFromCache: 0, scorePasses: 2 * (12 + 4 + 4 + (3 + 2)) });
    expect(after.generate - before.generate).toBe(stats.distinctGenerations);
    expect(stats.generationsComputed).toBe(stats.distinctGenerations);
    // every distinct call reached llama.cpp exactly once
    expect(engine.stats().misses - misses).toBe(after.score - before.score + after.generate - before.generate);
  });

  it('stores 3N distinct orderings per query, the fit of their scores and MoI’s order by u', () => {
    const queries = payloads<QueryPayload>(mainRun, KEY_PREFIX.query);
    expect(queries).toHaveLength(2);
    const perms = payloads<PermPayload>(mainRun, KEY_PREFIX.perm);
    expect(perms).toHaveLength(24);
    for (const p of perms) {
      expect(p.order).toHaveLength(4);
      expect(p.exactAlignment).toBe(true);
      expect(p.questionTokens).toBeGreaterThan(0);
      expect(p.passageTokens).toBeGreaterThan(0);
      // Eq. 3 in log space with mean segments and w = 1
      expect(p.s).toBeCloseTo(p.question + p.passages, 12);
    }
    const fits = payloads<FitPayload>(mainRun, KEY_PREFIX.fit);
    for (const f of fits) {
      expect(f.a.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 9);
      expect(f.ranking).toEqual(rankByUtility(f.u));
      // 12 prompts > 2N − 1 identify (a, u) when there is a position effect; where the fit detects none (a indistinguishable
      // from uniform, issue 23 item 1), u is identified only up to its mean, and the fit says so instead of drawing a curve.
      expect(f.positionEffect).toBeDefined();
      expect(f.underdetermined).toBe(!f.positionEffect!.detected);
      if (f.underdetermined) expect(f.reasons.join(' ')).toMatch(/no position effect detected/);
    }
    const layout = new PromptLayout(MoiSpec.parse(spec('x')).prompt);
    const methods = s.experiments.repo.items(mainRun, { condition: 'moi', keyPrefix: KEY_PREFIX.method });
    expect(methods).toHaveLength(2);
    for (const it of methods) {
      const m = it.payload as MethodPayload;
      const q = item<QueryPayload>(mainRun, ['q', it.queryId]);
      const fit = item<FitPayload>(mainRun, ['fit', it.queryId]);
      expect(m.order).toEqual(fit.ranking);
      const g = item<GenerationPayload>(mainRun, JSON.parse(generationKey(it.queryId, m.promptHashes[0]!)) as unknown[]);
      expect(g.prompt).toBe(
        layout.generationPrompt(
          fit.ranking.map((i) => ({ id: q.passages[i]!.docId, title: q.passages[i]!.title, text: q.passages[i]!.text })),
          q.text,
        ),
      );
    }
  });

  it('reports calls per method equal to the plan and the tables through runs.metrics', async () => {
    const m = await call<MetricsOf<'moi'>>('runs.metrics', { runId: mainRun });
    expect(m.incomplete).toBe(false);
    const cost = (method: string) => m.costs.find((c) => c.method === method)!;
    for (const c of m.costs) {
      expect(c.executed.scorePasses).toBe(c.planned.scorePasses);
      expect(c.executed.scoreRequests).toBe(c.planned.scoreRequests);
      expect(c.executed.generations).toBe(c.planned.generations);
    }
    expect(cost('moi').planned.scorePasses).toBe(2 * 12);
    expect(cost('bayes-saliency').executed.scorePasses).toBe(2 * 4);
    expect(cost('bayes-saliency-plus').executed.scorePasses).toBe(2 * 9);
    expect(cost('self-consistency').executed.generations).toBe(2 * 3);
    expect(m.table1.rows.map((r) => r.method)).toEqual(['retriever', 'random', 'self-consistency', 'bayes-saliency', 'bayes-saliency-plus', 'qg', 'longllmlingua', 'longllmlingua-code', 'moi']);
    expect(m.table1.columns.map((c) => c.measure)).toEqual(['rougeL', 'f1']);
    expect(m.table8.rows.map((r) => r.method)).toEqual(['random', 'retriever', 'retriever-reversed', 'moi', 'moi-reversed']);
    // ma-q1 and ma-q2 have relevance grades (gold = grade ≥ 1): gold@j puts the first gold passage at j
    expect(m.table7.rows.map((r) => r.method)).toEqual(['retriever', 'bayes-saliency', 'bayes-saliency-plus', 'qg', 'longllmlingua', 'longllmlingua-code', 'moi', 'gold@1', 'gold@2', 'gold@3', 'gold@4']);
    for (const qid of ['ma-q1', 'ma-q2']) {
      const q = item<QueryPayload>(mainRun, ['q', qid]);
      const first = q.passages.findIndex((p) => p.gold);
      for (const j of [1, 2, 3, 4]) expect(item<MethodPayload>(mainRun, ['m', qid, `gold@${j}`]).order![j - 1]).toBe(first);
    }
    expect(m.table7.rows.find((r) => r.method === 'gold@1')!.cells[0]!.mean).toBe(1);
    expect(m.fig6).toHaveLength(1);
    // Fig. 6 draws only the fits with a detected position effect; with none, it has no curve and its notes say why.
    const withEffect = payloads<FitPayload>(mainRun, KEY_PREFIX.fit).filter((f) => f.positionEffect!.detected).length;
    if (withEffect > 0) {
      expect(m.fig6[0]!.positions).toHaveLength(4);
      expect(m.fig6[0]!.positions.reduce((a, p) => a + p.mean, 0)).toBeCloseTo(1, 9);
    } else {
      expect(m.fig6[0]!.positions).toEqual([]);
      expect(m.fig6[0]!.notes!.join(' ')).toMatch(/no position effect detected: no curve to draw/);
    }
  });

  it('self-consistency picks the majority SQuAD-normalised answer among the stored ones', async () => {
    const page = await call<ItemsOf<'moi'>>('runs.items', { runId: mainRun, queryId: 'ma-q1' });
    expect(page.total).toBe(1);
    const d = page.items[0]!;
    const sc = item<MethodPayload>(mainRun, ['m', 'ma-q1', 'self-consistency']);
    const outputs = sc.promptHashes.map((h) => item<GenerationPayload>(mainRun, ['g', 'ma-q1', h]).output);
    expect(sc.chosen!.index).toBe(chooseAnswer(outputs, 'exact').index);
    expect(d.methods.find((x) => x.method === 'self-consistency')!.answer).toBe(outputs[sc.chosen!.index]);
    expect(d.permutations).toHaveLength(12);
    expect(d.permutations.every((p) => p.s !== null && p.predicted !== null)).toBe(true);
    expect(d.fit!.ranking).toEqual(rankByUtility(d.fit!.u));
    expect(d.passages.map((p) => p.gold)).toEqual(expect.arrayContaining([true]));
    // runs.items pages MoI runs by query; a condition (a method) narrows each query's methods to it
    const second = await call<ItemsOf<'moi'>>('runs.items', { runId: mainRun, offset: 1, limit: 1 });
    expect(second).toMatchObject({ kind: 'moi', total: 2, items: [{ queryId: 'ma-q2' }] });
    const narrowed = await call<ItemsOf<'moi'>>('runs.items', { runId: mainRun, condition: 'self-consistency' });
    expect(narrowed.items.map((q) => [q.queryId, q.methods.map((m) => m.method)])).toEqual([
      ['ma-q1', ['self-consistency']],
      ['ma-q2', ['self-consistency']],
    ]);
    expect(narrowed.items[0]!.methods[0]).toEqual(d.methods.find((x) => x.method === 'self-consistency'));
    const wrong = await router.call('runs.items', { runId: mainRun, condition: 'bm25/alpha=2' });
    expect(wrong).toMatchObject({ ok: false, error: { code: 'invalid-data', field: 'condition', message: expect.stringContaining("no condition 'bm25/alpha=2' in this run (it has ") } });
  });

  it('exports tables and data with a manifest', async () => {
    const tex = await call<ApiOutput<'runs.export'>>('runs.export', { runId: mainRun, format: 'table1-latex' });
    expect(tex.file.name).toMatch(/^all-baselines-run\d+-table1\.tex$/);
    expect(tex.file.text).toContain('\\toprule');
    expect(tex.file.text).toContain('MoI &');
    const manifest = tex.manifest as { llm: { models: { role: string; sha256: string }[]; sampler: { contextSize?: number } }; seeds: Record<string, number>; parameters: { n: number }; export: { sha256: string } };
    expect(manifest.llm.models.map((x) => x.role)).toEqual(['generator', 'agent (intervention scoring) = generator']);
    // The demo's tiny model is trained for 512 tokens: the run used 512, not the configured 4096 (issue 34 item 8c).
    expect(manifest.llm.sampler.contextSize).toBe(512);
    expect(manifest.seeds.permutations).toBe(42);
    expect(manifest.parameters.n).toBe(4);
    expect(manifest.export.sha256).toMatch(/^[0-9a-f]{64}$/);
    const fig = await call<ApiOutput<'runs.export'>>('runs.export', { runId: mainRun, format: 'fig6-csv' });
    expect(fig.file.text.split('\r\n')[0]).toBe('length,position,mean_a,sd,min,max,queries,uniform');
    const missing = await router.call('runs.metrics', { runId: 999 });
    expect(missing).toMatchObject({ ok: false, error: { code: 'not-found' } });
    // a format of another kind is refused by the MoI exporter, naming the field
    const fairRagFormat = await router.call('runs.export', { runId: mainRun, format: 'trec-run' });
    expect(fairRagFormat).toMatchObject({ ok: false, error: { code: 'invalid-data', field: 'format', message: expect.stringContaining("MoI runs have no export format 'trec-run'") } });
    const unknown = await router.call('runs.export', { runId: mainRun, format: 'table9-csv' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'validation', field: 'format' } });
  });

  it('a second run of the same spec is answered by the cache and stores the same items', async () => {
    const misses = engine.stats().misses;
    const { runId, stats } = await runSpec({ ...spec('all-baselines-again', { baselines: ALL, selfConsistency: { samples: 3 }, extraMetrics: ['f1'] }) });
    expect(engine.stats().misses).toBe(misses);
    expect(stats).toMatchObject({ scoreRequestsComputed: 0, generationsComputed: 0 });
    expect(comparable(s.experiments.repo.items(runId))).toEqual(comparable(s.experiments.repo.items(mainRun)));
  });
});

describe('MoI with cyclic and pruned sets', () => {
  it('cyclic scores N orderings, pruned N prompts of L passages; a calibration run’s a can be held fixed', async () => {
    let before = cacheRows().score;
    const cyclic = await runSpec(spec('cyclic', { queries: ['ma-q3'], permutations: { set: 'cyclic' }, baselines: [] }));
    expect(cacheRows().score - before).toBe(4);
    const fit = payloads<FitPayload>(cyclic.runId, KEY_PREFIX.fit)[0]!;
    expect(fit.underdetermined).toBe(true);
    expect(fit.reasons.join(' ')).toMatch(/cyclic set; fix a from a calibration run/);

    before = cacheRows().score;
    const pruned = await runSpec(spec('pruned', { queries: ['ma-q3'], permutations: { set: 'pruned', length: 2 }, baselines: [] }));
    expect(cacheRows().score - before).toBe(4);
    expect(payloads<PermPayload>(pruned.runId, KEY_PREFIX.perm).map((p) => p.order)).toEqual([
      [0, 1],
      [1, 2],
      [2, 3],
      [3, 0],
    ]);
    const requests = (s.workspace.db.prepare(`SELECT request FROM llm_call_cache WHERE op = 'score' ORDER BY created_at DESC LIMIT 4`).all() as { request: string }[]).map(
      (r) => JSON.parse(r.request) as { continuations: string[] },
    );
    for (const r of requests) {
      expect(r.continuations).toHaveLength(1);
      expect(r.continuations[0]).toContain('[2] ');
      expect(r.continuations[0]).not.toContain('[3] ');
    }
    expect(payloads<FitPayload>(pruned.runId, KEY_PREFIX.fit)[0]!.orientation).toBe('identified');

    // the random-3N run's mean a (Fig. 6 data) held fixed: no new call, a linear solve for u
    before = cacheRows().score;
    const calibrationSpec = spec('cyclic-calibrated', { queries: ['ma-q3'], permutations: { set: 'cyclic' }, baselines: [], solver: { fixedA: { fromRun: mainRun } } });
    const withEffect = payloads<FitPayload>(mainRun, KEY_PREFIX.fit).filter((f) => f.positionEffect!.detected).length;
    if (withEffect === 0) {
      // The calibration run's fits show no position effect (a indistinguishable from uniform): there is no bias profile to
      // hold fixed, and the run is refused naming why, computing nothing.
      const job = await s.jobs.wait(s.experiments.startRun(s.experiments.create(calibrationSpec).id).id);
      expect(job.status).toBe('failed');
      expect(String(job.error)).toMatch(new RegExp(`run ${mainRun} detected no position effect in any of its 2 fits`));
      expect(cacheRows().score - before).toBe(0);
      return;
    }
    const calibrated = await runSpec(calibrationSpec);
    expect(cacheRows().score - before).toBe(0);
    const f = payloads<FitPayload>(calibrated.runId, KEY_PREFIX.fit)[0]!;
    const m = await call<MetricsOf<'moi'>>('runs.metrics', { runId: mainRun });
    expect(f.orientation).toBe('fixed');
    expect(f.fixedA).toEqual(m.fig6[0]!.positions.map((p) => expect.closeTo(p.mean, 12)));
    expect(f.a).toEqual(f.fixedA);
    expect(calibrated.stats.fixedA).toEqual([{ length: 4, a: f.fixedA, source: `mean a of ${withEffect} fitted queries of run ${mainRun}` }]);
  });
});

describe('MoI with a separate agent model (Sec. 3.3.2)', () => {
  it('scores the interventions with the agent and writes the answers with the generator', async () => {
    const path = join(dir, 'agent.gguf');
    await writeTinyGguf(path, { preset: 'tiny', seed: 2 });
    const agent = await s.models.addHashed(path, 'agent-tiny');
    const generator = s.models.models.getByName(DEMO_MODEL_NAME)!;
    const rows = () =>
      s.workspace.db.prepare(`SELECT model_key AS model, op, count(*) AS n FROM llm_call_cache GROUP BY model_key, op`).all() as { model: string; op: string; n: number }[];
    const count = (model: string, op: string) => rows().find((r) => r.model === model && r.op === op)?.n ?? 0;
    const before = { agentScore: count(agent.sha256!, 'score'), agentGen: count(agent.sha256!, 'generate'), genScore: count(generator.sha256!, 'score') };
    const raw = spec('with-agent', { queries: ['ma-q3'], n: 3, permutations: { set: 'cyclic' }, baselines: ['bayes-saliency'], agent: { model: 'agent-tiny' } });
    const { runId } = await runSpec(raw);
    expect(count(agent.sha256!, 'score') - before.agentScore).toBe(3 + 3); // N rotations + N pointwise passes
    expect(count(agent.sha256!, 'generate')).toBe(before.agentGen);
    expect(count(generator.sha256!, 'score')).toBe(before.genScore);
    const m = await call<MetricsOf<'moi'>>('runs.metrics', { runId });
    expect([m.generator, m.agent]).toEqual([DEMO_MODEL_NAME, 'agent-tiny']);
    const manifest = (await call<ApiOutput<'runs.export'>>('runs.export', { runId, format: 'manifest' })).manifest as { llm: { models: { role: string; sha256: string }[] } };
    expect(manifest.llm.models).toEqual([expect.objectContaining({ role: 'generator', sha256: generator.sha256 }), expect.objectContaining({ role: 'agent (intervention scoring)', sha256: agent.sha256 })]);
    // the prompt preview shows the final-answer prompt of the retriever order
    const preview = await s.experiments.previewPrompt(raw, 'ma-q3');
    expect(preview.ranking).toHaveLength(3);
    expect(preview.prompt).toMatch(/^Answer the question using the documents\.\n\nDocuments:\n\[1\] [\s\S]*\n\nQuestion: How do I start composting at home\?\nAnswer:$/);
  });
});

describe('MoI resume', () => {
  it('a cancelled run resumes without computing a call twice and ends with the items of an uninterrupted run', async () => {
    const resumeSpec = (name: string) => spec(name, { queries: ['ma-q3', 'ma-q4'], n: 3, baselines: ['bayes-saliency', 'random', 'self-consistency'], selfConsistency: { samples: 3 } });
    const clearAll = () => s.models.list().forEach((m) => s.models.clearCache(m.id));
    clearAll();
    const whole = await runSpec(resumeSpec('resume-whole'));
    const distinct = cacheRows();
    expect(distinct.score).toBe(2 * (6 + 3)); // N = 3: all 3! orderings + N pointwise passes per query

    clearAll();
    const misses = engine.stats().misses;
    const e = s.experiments.create(resumeSpec('resume-cut'));
    const { run } = s.experiments.runToContinue(e.id);
    const ac = new AbortController();
    let calls = 0;
    const cut = s.experiments.executeRun(run.id, {
      signal: ac.signal,
      progress: (done) => {
        calls = done;
        if (done >= 8 && !ac.signal.aborted) setTimeout(() => ac.abort(), 1); // mid-call, usually
      },
    });
    await expect(cut).rejects.toThrow();
    expect(s.experiments.repo.run(run.id)!.status).toBe('cancelled');
    const partial = s.experiments.repo.items(run.id).length;
    expect(calls).toBeGreaterThanOrEqual(8);
    expect(partial).toBeLessThan(s.experiments.repo.items(whole.runId).length);

    await s.experiments.executeRun(run.id, { signal: new AbortController().signal, progress: () => {} });
    expect(s.experiments.repo.run(run.id)!.status).toBe('succeeded');
    // no call computed twice: the engine computed exactly the distinct calls, each stored once
    expect(cacheRows()).toEqual(distinct);
    expect(engine.stats().misses - misses).toBe(distinct.score + distinct.generate);
    expect(comparable(s.experiments.repo.items(run.id))).toEqual(comparable(s.experiments.repo.items(whole.runId)));
  });
});
