/**
 * A small Fair RAG run end to end through the API: real SQLite, the real llama.cpp engine on the
 * generated tiny model (threads 1), the demo collection. Checks de-duplication against the call
 * cache, drill-down rows, exports read back by `fairground eval exposure`, a re-run with one more
 * α, and cancel + resume.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FairRagItemsPage, FairRagMetrics } from '../../src-main/api/contract/fairRag';
import type { ApiOutput } from '../../src-main/api/contract/index';
import type { Job } from '../../src-main/api/contract/jobs';
import { createApiRouter } from '../../src-main/handlers/index';
import type { Router } from '../../src-main/api/router';
import { evalExposureCommand } from '../../src-main/cli/commands/evalExposure';
import { sha256File } from '../../src-main/engine/gguf/sha256File';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { runCliCaptured } from '../support/cli';
import { makeDemoWorkspace, tinySpec } from './fixture';

/** The parts of a manifest the assertions read. */
interface Manifest {
  llm: { models: Record<string, unknown>[] };
  seeds: Record<string, number>;
  parameters: Record<string, unknown>;
  data: { collection: Record<string, unknown>; qrels: { sha256: string } };
  export?: Record<string, unknown>;
}

let dir: string;
let services: AppServices;
let router: Router;

async function call<T>(method: string, input: unknown): Promise<T> {
  const r = await router.call(method, input);
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.data as T;
}

const count = (sql: string, ...args: unknown[]) => (services.workspace.db.prepare(sql).get(...args) as { n: number }).n;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-fairrag-'));
  services = createAppServices(await makeDemoWorkspace(dir), { transport: 'http' });
  router = createApiRouter(services);
});

afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Fair RAG run with the tiny model', () => {
  let experimentId: number;
  let runId: number;

  it('previews the prompt of a real query', async () => {
    const preview = await call<{ ranking: string[]; prompt: string; retriever: string }>('experiments.previewPrompt', { spec: tinySpec({ attribution: { judge: 'nli-llm', format: 'yes-no' } }), queryId: 'tag-u1' });
    expect(preview.retriever).toBe('bm25');
    expect(preview.ranking).toHaveLength(3);
    expect(preview.prompt).toMatch(/, and .*\. Which tag does this movie relate to/s);
  });

  it('runs, generating each distinct prompt once through the call cache', async () => {
    const e = await call<{ id: number }>('experiments.create', { spec: tinySpec({ attribution: { judge: 'nli-llm', format: 'yes-no' } }) });
    experimentId = e.id;
    const job = await call<Job>('experiments.run', { id: experimentId });
    const done = await services.jobs.wait(job.id);
    expect(done.error).toBeNull();
    expect(done).toMatchObject({ status: 'succeeded', kind: 'experiments.run' });
    expect(done.total).toBe(done.progress);
    runId = (done.result as { runId: number }).runId;
    const run = await call<ApiOutput<'runs.get'> & { stats: Record<string, number>; manifest: Manifest }>('runs.get', { runId });
    expect(run.status).toBe('succeeded');
    // 2 queries × (2 retrievers × (3 α × 5 samples + 1 deterministic) + 5 oracle samples) = 74 rankings.
    expect(run.stats).toMatchObject({ queries: 2, naiveGenerations: 74, generationsFromCache: 0 });
    expect(run.stats.distinctGenerations).toBeLessThan(run.stats.naiveGenerations!);
    expect(run.stats.generationsComputed).toBe(run.stats.distinctGenerations);
    expect(run.conditions).toEqual(['bm25-words/alpha=0', 'bm25-words/alpha=2', 'bm25-words/alpha=8', 'bm25-words/deterministic', 'bm25/alpha=0', 'bm25/alpha=2', 'bm25/alpha=8', 'bm25/deterministic', 'oracle']);

    // Items: one per sampled ranking, one per distinct prompt, one per distinct judgment, one per query.
    expect(count(`SELECT count(*) AS n FROM run_items WHERE run_id = ? AND key LIKE '["s",%'`, runId)).toBe(74);
    const gens = count(`SELECT count(*) AS n FROM run_items WHERE run_id = ? AND key LIKE '["g",%'`, runId);
    expect(gens).toBe(run.stats.distinctGenerations);
    const judged = count(`SELECT count(*) AS n FROM run_items WHERE run_id = ? AND key LIKE '["j",%' AND json_extract(payload, '$.prompt') IS NOT NULL`, runId);
    expect(run.stats.naiveJudgments).toBe(74 * 3);
    // Every LLM call made once: cache rows = distinct prompts + distinct judgments.
    expect(count(`SELECT count(*) AS n FROM llm_call_cache WHERE op = 'generate'`)).toBe(gens + judged);
    expect(run.stats.judgmentsComputed).toBe(judged);

    // The manifest: model hash, seeds, k, N, α, collection and qrels hashes.
    const modelFile = services.models.list().find((m) => m.name === 'fairground-tiny')!.path;
    expect(run.manifest.llm.models[0]).toMatchObject({ role: 'generator', file: 'fairground-tiny.gguf', sha256: await sha256File(modelFile) });
    expect(run.manifest.seeds).toEqual({ plSampling: 42, generation: 0 });
    expect(run.manifest.parameters).toMatchObject({ k: 3, samples: 5, alphas: [0, 2, 8] });
    expect(run.manifest.data.collection).toMatchObject({ name: 'Fairground demo', sha256: services.collections.byName('Fairground demo')!.contentHash });
    expect(run.manifest.data.qrels.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('returns metrics and drill-down rows', async () => {
    const m = await call<FairRagMetrics>('runs.metrics', { runId });
    expect(m.incomplete).toBe(false);
    expect(m.perQuery).toHaveLength(2 * 9);
    expect(m.aggregates.map((a) => a.condition)).toEqual([
      'bm25/alpha=0',
      'bm25/alpha=2',
      'bm25/alpha=8',
      'bm25/deterministic',
      'bm25-words/alpha=0',
      'bm25-words/alpha=2',
      'bm25-words/alpha=8',
      'bm25-words/deterministic',
      'oracle',
    ]);
    for (const q of m.perQuery) {
      expect(q.eeDNorm).toBeGreaterThan(0);
      expect(q.eeDNorm).toBeLessThanOrEqual(1);
      expect(q.ear).not.toBeNull();
    }
    expect(m.table2.rows.map((r) => r.retriever)).toEqual(['bm25', 'bm25-words']);
    expect(m.fig3[0]!.alphas.map((a) => a.alpha)).toEqual([0, 2, 8]);
    expect(m.providerExposure[0]!.providers.reduce((s, p) => s + p.retrievedShare, 0)).toBeCloseTo(1, 12);
    // What `fairground run` and `experiment show` print: the same aggregates, warnings and flag, computed without the tables.
    expect(services.experiments.summary(runId)).toEqual({ kind: 'fair-rag', aggregates: m.aggregates, warnings: m.warnings, incomplete: m.incomplete });

    const page = await call<FairRagItemsPage>('runs.items', { runId, queryId: 'tag-u1', condition: 'bm25/alpha=2', offset: 2, limit: 2 });
    expect(page).toMatchObject({ kind: 'fair-rag', total: 5 });
    expect(page.items.map((i) => i.sample)).toEqual([2, 3]);
    const it0 = page.items[0]!;
    expect(it0.ranking).toHaveLength(3);
    expect(it0.prompt).toContain('Which tag does this movie relate to');
    expect(typeof it0.output).toBe('string');
    expect(it0.attribution).toHaveLength(3);
    expect(it0.attribution!.map((a) => a.docId)).toEqual(it0.ranking.map((r) => r.docId));
  });

  it('exports runs, qrels and attribution that eval exposure reads back to the run’s own numbers', async () => {
    const m = await call<FairRagMetrics>('runs.metrics', { runId });
    const qrels = await call<{ file: { text: string } }>('runs.export', { runId, format: 'qrels' });
    writeFileSync(join(dir, 'u.qrels'), qrels.file.text);
    // The manifest's qrels hash is the hash of exactly this file.
    const stored = await call<{ manifest: Manifest }>('runs.get', { runId });
    expect(stored.manifest.data.qrels.sha256).toBe(createHash('sha256').update(qrels.file.text).digest('hex'));
    for (const condition of ['bm25/alpha=0', 'bm25/alpha=2', 'bm25-words/alpha=8', 'bm25/deterministic', 'oracle']) {
      const run = await call<ApiOutput<'runs.export'> & { manifest: Manifest }>('runs.export', { runId, format: 'trec-run', condition });
      expect(run.manifest.export).toMatchObject({ file: run.file.name, bytes: Buffer.byteLength(run.file.text) });
      const att = await call<{ file: { text: string } }>('runs.export', { runId, format: 'attribution', condition });
      writeFileSync(join(dir, 'r.trec'), run.file.text);
      writeFileSync(join(dir, 'r.att'), att.file.text);
      const r = await runCliCaptured(['eval', 'exposure', '--run', 'r.trec', '--qrels', 'u.qrels', '-k', '3', '--attribution', 'r.att', '-q'], { cwd: dir, commands: [evalExposureCommand] });
      expect(r.code).toBe(0);
      const got = new Map(r.stdout.trim().split('\n').map((l) => [l.split('\t').slice(0, 2).join(' '), l.split('\t')[2]]));
      for (const q of m.perQuery.filter((x) => x.condition === condition)) {
        for (const [measure, value] of [
          ['EE-D', q.eeD],
          ['EE-R', q.eeR],
          ['EE-L', q.eeL],
          ['EE-D_norm', q.eeDNorm],
          ['EE-R_norm', q.eeRNorm],
          ['EE-L_norm', q.eeLNorm],
          ['EAR', q.ear],
          ['EAE-D', q.eaeD],
          ['EAE-D_norm', q.eaeDNorm],
        ] as const) {
          expect(got.get(`${measure} ${q.queryId}`), `${condition} ${measure} ${q.queryId}`).toBe((value as number).toFixed(6));
        }
      }
    }
    const csv = await call<{ file: { text: string } }>('runs.export', { runId, format: 'per-sample-csv' });
    expect(csv.file.text.trim().split('\r\n')).toHaveLength(1 + 74);
    const tex = await call<{ file: { text: string } }>('runs.export', { runId, format: 'latex-table2' });
    // One generator per run: the row names the retriever, the notes the generator (issue 34 item 9).
    expect(tex.file.text).toMatch(/^bm25 \(\d\.\d{3}\) & /m);
    expect(tex.file.text).toContain('generator fairground-tiny');
  });

  it('a re-run with one more α computes only what is new', async () => {
    const before = count(`SELECT count(*) AS n FROM llm_call_cache`);
    const updated = await call<{ version: number; changed: boolean }>('experiments.update', {
      id: experimentId,
      spec: tinySpec({ alphas: [0, 2, 8, 4], attribution: { judge: 'nli-llm', format: 'yes-no' } }),
    });
    expect(updated).toMatchObject({ version: 2, changed: true });
    const job = await call<Job>('experiments.run', { id: experimentId });
    const done = await services.jobs.wait(job.id);
    expect(done.status).toBe('succeeded');
    const run2 = (done.result as { runId: number }).runId;
    const stats = (await call<{ stats: Record<string, number> }>('runs.get', { runId: run2 })).stats;
    const hashes = (id: number) =>
      new Set((services.workspace.db.prepare(`SELECT key FROM run_items WHERE run_id = ? AND key LIKE '["g",%'`).all(id) as { key: string }[]).map((r) => r.key));
    const old = hashes(runId);
    const fresh = [...hashes(run2)].filter((k) => !old.has(k)).length;
    expect(stats.naiveGenerations).toBe(74 + 2 * 2 * 5);
    expect(stats.generationsComputed).toBe(fresh);
    expect(stats.generationsFromCache).toBe(stats.distinctGenerations! - fresh);
    expect(count(`SELECT count(*) AS n FROM llm_call_cache`) - before).toBe(fresh + stats.judgmentsComputed!);
    // The old arms drew the same rankings as in the first run (their own seeded streams).
    const metrics1 = await call<FairRagMetrics>('runs.metrics', { runId });
    const metrics2 = await call<FairRagMetrics>('runs.metrics', { runId: run2 });
    const pick = (m: FairRagMetrics) => m.perQuery.filter((q) => q.condition === 'bm25/alpha=2').map((q) => [q.queryId, q.eeD, q.eu]);
    expect(pick(metrics2)).toEqual(pick(metrics1));
  });

  it('cancels a run and resumes it without duplicating items', async () => {
    const e = await call<{ id: number }>('experiments.create', { spec: tinySpec({ name: 'cancel me', samples: 8, alphas: [0, 1], seeds: { sampling: 3 }, decoding: { maxTokens: 12 } }) });
    const job = await call<Job>('experiments.run', { id: e.id });
    await new Promise<void>((resolve) => {
      const off = services.events.subscribe((ev) => {
        if (ev.event === 'job.updated' && ev.payload.id === job.id && ev.payload.message?.startsWith('generated')) {
          off();
          services.jobs.cancel(job.id);
          resolve();
        }
      });
    });
    const cancelled = await services.jobs.wait(job.id);
    expect(cancelled.status).toBe('cancelled');
    const runRow = (await call<{ id: number; status: string }[]>('runs.list', { experimentId: e.id }))[0]!;
    expect(runRow.status).toBe('cancelled');
    const partial = count(`SELECT count(*) AS n FROM run_items WHERE run_id = ?`, runRow.id);
    const resumed = services.jobs.resume(job.id);
    const done = await services.jobs.wait(resumed.id);
    expect(done.status).toBe('succeeded');
    const stats = (await call<{ stats: Record<string, number> }>('runs.get', { runId: runRow.id })).stats;
    const total = count(`SELECT count(*) AS n FROM run_items WHERE run_id = ?`, runRow.id);
    expect(partial).toBeLessThan(total);
    expect(total).toBe(2 + stats.naiveGenerations! + stats.distinctGenerations!);
    expect(stats.generationsComputed! + stats.generationsFromCache!).toBe(stats.distinctGenerations);
    expect(services.workspace.db.pragma('integrity_check', { simple: true })).toBe('ok');
  });
  it('scores with dense and fused retrievers, and judges attribution by threshold or by citations', async () => {
    const base = {
      queries: ['tag-u1'],
      retrievers: [
        { name: 'bm25', method: 'bm25' },
        { name: 'dense', method: 'dense', params: { model: 'fairground-tiny' } },
        { name: 'fused', method: 'rrf', params: { fuse: ['bm25', 'dense'] } },
      ],
      samples: 3,
      alphas: [2],
      oracle: false,
    };
    const runOf = async (spec: Record<string, unknown>) => {
      const e = await call<{ id: number }>('experiments.create', { spec: tinySpec(spec) });
      const done = await services.jobs.wait((await call<Job>('experiments.run', { id: e.id })).id);
      expect(done.error).toBeNull();
      return (done.result as { runId: number; embeddingCalls: number }).runId;
    };
    const thresholdRun = await runOf({ ...base, name: 'threshold', attribution: { judge: 'nli-llm', threshold: 0.5, format: 'yes-no' } });
    const stats = (await call<{ stats: Record<string, number> }>('runs.get', { runId: thresholdRun })).stats;
    expect(stats.embeddingCalls).toBe(1);
    const m = await call<FairRagMetrics>('runs.metrics', { runId: thresholdRun });
    expect(m.perQuery.map((q) => q.condition)).toEqual(['bm25/alpha=2', 'bm25/deterministic', 'dense/alpha=2', 'dense/deterministic', 'fused/alpha=2', 'fused/deterministic']);
    const judgments = services.workspace.db
      .prepare(`SELECT json_extract(payload, '$.pEntails') AS p, json_extract(payload, '$.entails') AS e FROM run_items WHERE run_id = ? AND key LIKE '["j",%'`)
      .all(thresholdRun) as { p: number; e: number }[];
    expect(judgments.length).toBeGreaterThan(0);
    for (const j of judgments) {
      expect(j.p).toBeGreaterThanOrEqual(0);
      expect(j.p).toBeLessThanOrEqual(1);
      expect(j.e).toBe(j.p >= 0.5 ? 1 : 0);
    }
    expect(count(`SELECT count(*) AS n FROM llm_call_cache WHERE op = 'score'`)).toBe(judgments.length);

    const citationRun = await runOf({ ...base, name: 'citations', attribution: { judge: 'citation' } });
    const gens = services.workspace.db.prepare(`SELECT payload FROM run_items WHERE run_id = ? AND key LIKE '["g",%'`).all(citationRun) as { payload: string }[];
    for (const g of gens) {
      const p = JSON.parse(g.payload) as { prompt: string; citations: number[] };
      expect(p.prompt).toMatch(/for example \[1\]\.$/);
      expect(Array.isArray(p.citations)).toBe(true);
    }
    const cm = await call<FairRagMetrics>('runs.metrics', { runId: citationRun });
    expect(cm.perQuery.every((q) => q.ear !== null)).toBe(true);
  });
});
