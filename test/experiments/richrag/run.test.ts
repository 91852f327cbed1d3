/**
 * A RichRAG run end to end with the real services (SQLite workspace, the demo collection, the tiny
 * llama.cpp model): every framework in both settings, the judge and US³ preference data; its metrics,
 * per-query view and exports through the API; prompt previews; and resume — a run cancelled in the
 * middle and run again makes no LLM call twice and ends with exactly the items of an uninterrupted run.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiOutput, ItemsOf, MetricsOf } from '../../../src-main/api/contract/index';
import { createApiRouter } from '../../../src-main/handlers/index';
import { defaultExperimentRegistry } from '../../../src-main/experiments/kinds';
import { requireValidSpec } from '../../../src-main/experiments/specFile';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { DEMO_COLLECTION_NAME } from '../../../src-main/services/collectionsDemo';
import { DEMO_MODEL_NAME } from '../../../src-main/services/demoSetup';
import { DEMO_SIM_NAME } from '../../../src-main/services/simulation/demoSim';
import { copyWorkspace, makeDemoWorkspace } from '../fixture';

const CONDITIONS = [
  'closed-book',
  'retriever',
  'predicted/no-ranker',
  'predicted/rag-fusion',
  'predicted/coverage',
  'predicted/listwise',
  'golden/no-ranker',
  'golden/rag-fusion',
  'golden/coverage',
  'golden/listwise',
];

function spec(name: string): Record<string, unknown> {
  return {
    kind: 'richrag',
    name,
    collection: DEMO_COLLECTION_NAME,
    queries: ['ma-q1', 'ma-q2', 'ma-q3'],
    generator: { model: DEMO_MODEL_NAME },
    k: 2,
    settings: ['predicted', 'golden'],
    explorer: { maxAspects: 2, maxChars: 12 },
    retrieval: { topN: 4, capacity: 6 },
    ranker: { window: 4, docWords: 6, template: 'Q: {{query}}\nAspects:\n{{aspects}}\n{{candidates}}\nChosen: {{selected}}\nNext: ' },
    generation: { maxTokens: 12, docWords: 10 },
    judge: { enabled: true, systems: ['predicted/listwise', 'golden/coverage'] },
    preferences: { enabled: true, samples: 2 },
  };
}

let dir: string;
let base: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-richrag-run-'));
  base = await makeDemoWorkspace(dir, 'base.fairground');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(name: string): AppServices {
  const s = createAppServices(copyWorkspace(base, join(dir, name)), { transport: 'http' });
  s.settings.update({ threads: 1 });
  return s;
}

function misses(s: AppServices): number {
  const model = s.models.models.getByName(DEMO_MODEL_NAME)!;
  return s.models.engineFor({ kind: 'local', modelId: model.id }).stats().misses;
}

/** Items ordered by key, without the cache flags (which differ by construction between sessions). */
function comparable(s: AppServices, runId: number): unknown[] {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'fromCache').map(([k, x]) => [k, strip(x)]));
    return v;
  };
  return s.experiments.repo
    .items(runId)
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map((it) => strip(it));
}

describe('RichRAG run on the tiny model', () => {
  let s: AppServices;
  let runId: number;
  let call: <T>(method: string, input: unknown) => Promise<T>;

  beforeAll(async () => {
    s = open('full.fairground');
    const router = createApiRouter(s, (err) => {
      throw err;
    });
    call = async <T>(method: string, input: unknown) => {
      const r = await router.call(method, input);
      if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
      return r.data as T;
    };
    const e = s.experiments.create(spec('full'));
    const job = s.experiments.startRun(e.id);
    const done = await s.jobs.wait(job.id);
    expect(done.error).toBeNull();
    runId = s.experiments.listRuns(e.id)[0]!.id;
  });

  afterAll(async () => {
    await s?.close();
  });

  it('stores every unit once and calls every distinct prompt once', () => {
    const run = s.experiments.getRun(runId);
    expect(run.status).toBe('succeeded');
    expect(run.conditions).toEqual([...CONDITIONS].sort());
    const count = (prefix: string) => s.experiments.repo.countItems(runId, { keyPrefix: prefix });
    expect(count('["q",')).toBe(3);
    expect(count('["x",')).toBe(3);
    expect(count('["d",')).toBe(3);
    expect(count('["l",')).toBe(3 * CONDITIONS.length);
    expect(count('["g",')).toBe(3 * CONDITIONS.length);
    expect(count('["j",')).toBe(3 * 2);
    expect(count('["t",')).toBe(3 * 3);
    // Every engine call reached the engine once: the cache holds exactly the calls computed.
    const cached = (s.workspace.db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get() as { n: number }).n;
    expect(run.stats.callsComputed).toBe(cached);
    expect(misses(s)).toBe(cached);
    expect(run.stats.callsFromCache).toBeGreaterThan(0); // US³ greedy lists repeat the evaluation's calls
    const manifest = run.manifest as { llm: { models: { role: string; file: string }[] }; seeds: Record<string, number> };
    expect(manifest.llm.models.map((m) => m.role)).toEqual(['generator', 'sub-aspect explorer', 'list-wise ranker', 'pairwise judge']);
    expect(manifest.llm.models[0]!.file).toBe(`${DEMO_MODEL_NAME}.gguf`);
    expect(manifest.seeds).toMatchObject({ us3Sampling: 42, generation: 0 });
  });

  it('ranks with every framework: lists valid, distinct and from the right pool', async () => {
    const page = await call<ItemsOf<'richrag'>>('runs.items', { runId });
    expect(page.items.map((v) => v.queryId)).toEqual(['ma-q1', 'ma-q2', 'ma-q3']);
    for (const qid of ['ma-q1', 'ma-q2', 'ma-q3']) {
      const view = page.items.find((v) => v.queryId === qid)!;
      expect(view.conditions.map((c) => c.condition)).toEqual(CONDITIONS);
      expect(view.golden.length).toBeGreaterThan(1);
      expect(view.predicted!.length).toBeLessThanOrEqual(2);
      for (const c of view.conditions) {
        const ids = c.ranking.map((r) => r.docId);
        expect(new Set(ids).size).toBe(ids.length);
        if (c.framework === 'closed-book') expect(ids).toEqual([]);
        else expect(ids.length).toBeGreaterThan(0);
        expect(ids.length).toBeLessThanOrEqual(2);
        if (c.setting) {
          const pool = new Set(view.settings.find((x) => x.setting === c.setting)!.pool.map((d) => d.docId));
          for (const id of ids) expect(pool.has(id)).toBe(true);
        }
        if (c.framework === 'listwise') expect(c.steps!.every((st) => !st.fallback)).toBe(true);
        expect(typeof c.output).toBe('string');
        expect(c.coverage.documents).toHaveLength(view.golden.length);
        expect(c.segments.map((x) => x.text).join('')).toBe(c.output);
      }
      const golden = view.settings.find((x) => x.setting === 'golden')!;
      expect(golden.aspects).toEqual(view.golden.map((g) => g.aspect));
      for (const d of golden.pool) expect(d.aspects.length).toBeGreaterThan(0);
      expect(view.judge.map((j) => j.condition)).toEqual(['golden/coverage', 'predicted/listwise']);
      expect(view.preferences.map((p) => p.sample)).toEqual([0, 1, 2]);
    }
  });

  it('computes Table 1 and Table 3 for every condition with paired tests against RAG-Fusion', async () => {
    const m = await call<MetricsOf<'richrag'>>('runs.metrics', { runId });
    expect(m.incomplete).toBe(false);
    expect(m.table1.rows.map((r) => r.condition)).toEqual(CONDITIONS);
    expect(m.table1.baseline).toBe('predicted/rag-fusion');
    expect(m.table3.rows.map((r) => r.condition)).toEqual(CONDITIONS.filter((c) => c !== 'closed-book'));
    for (const row of m.table1.rows) expect(row.cells.F1!.n).toBe(3);
    const coverage = m.table3.rows.find((r) => r.condition === 'golden/coverage')!;
    // Issue 23: NCOM of every row against one common pool per query (both settings' pools and the plain list); the
    // coverage ranker is the silver list of its own (golden) pool only, so it reaches at most 1 (1 exactly with ncomPool = own).
    expect(coverage.cells.NCOM!.mean).toBeGreaterThan(0);
    expect(coverage.cells.NCOM!.mean).toBeLessThanOrEqual(1 + 1e-12);
    for (const row of m.table3.rows) expect(row.cells.NCOM!.mean!).toBeLessThanOrEqual(1 + 1e-12);
    expect(m.table3.departure).toContain('one common pool per query');
    expect(m.judge!.rows.map((r) => r.wins + r.ties + r.losses)).toEqual([3, 3]);
    expect(m.preferences).toMatchObject({ queries: 3, lists: 9 });
    expect(m.warnings.filter((w) => /fell back|constraint/.test(w))).toEqual([]);
  });

  it('exports tables and training data, each with a manifest naming the file', async () => {
    for (const format of ['tables-csv', 'per-query-csv', 'latex-table1', 'latex-table3', 'preferences-jsonl', 'sft-jsonl', 'metrics-json'] as const) {
      const out = await call<ApiOutput<'runs.export'>>('runs.export', { runId, format });
      expect(out.manifest).toMatchObject({ export: { file: out.file.name, bytes: Buffer.byteLength(out.file.text) } });
      if (format === 'sft-jsonl') {
        const records = out.file.text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, string>);
        expect(records).toHaveLength(3);
        for (const r of records) expect(r.completion).toMatch(/^D\d+( D\d+)?$/);
      }
      if (format === 'preferences-jsonl') {
        for (const l of out.file.text.split('\n').filter(Boolean)) expect(Object.keys(JSON.parse(l) as object).sort()).toEqual(['chosen', 'prompt', 'rejected']);
      }
    }
    // A condition narrows a query's view to that condition's list and the judgments it took part in.
    const one = await call<ItemsOf<'richrag'>>('runs.items', { runId, queryId: 'ma-q2', condition: 'golden/coverage' });
    expect(one).toMatchObject({ kind: 'richrag', total: 1, items: [{ queryId: 'ma-q2', conditions: [{ condition: 'golden/coverage', framework: 'coverage', setting: 'golden' }] }] });
    expect(one.items[0]!.judge.map((j) => j.condition)).toEqual(['golden/coverage']);
    const router = createApiRouter(s);
    expect(await router.call('runs.items', { runId, condition: 'oracle' })).toMatchObject({ ok: false, error: { code: 'invalid-data', field: 'condition' } });
    expect(await router.call('runs.export', { runId, format: 'table1-csv' })).toMatchObject({ ok: false, error: { code: 'invalid-data', field: 'format', message: expect.stringContaining("unknown export format 'table1-csv' for a RichRAG run") } });
    expect(await router.call('runs.metrics', { runId: 999 })).toMatchObject({ ok: false, error: { code: 'not-found' } });
  });

  it('resumes a run cancelled in the middle: no LLM call twice, the items of the uninterrupted run', async () => {
    const cut = open('cut.fairground');
    try {
      const b = cut.experiments.create(spec('full'));
      const runB = cut.experiments.repo.createRun({ experimentId: b.id, spec: cut.experiments.repo.experiment(b.id)!.spec, specVersion: 1 });
      const stop = new AbortController();
      let stoppedAt = 0;
      const first = cut.experiments.executeRun(runB.id, {
        signal: stop.signal,
        progress: (done, total) => {
          if (total && done >= total / 2 && !stop.signal.aborted) {
            stoppedAt = done;
            stop.abort();
          }
        },
      });
      await expect(first).rejects.toThrow();
      expect(cut.experiments.repo.run(runB.id)!.status).toBe('cancelled');
      expect(stoppedAt).toBeGreaterThan(0);
      const partial = cut.experiments.repo.countItems(runB.id);
      const stats = await cut.experiments.executeRun(runB.id, { signal: new AbortController().signal, progress: () => {} });
      expect(stats.resumedUnits).toBeGreaterThanOrEqual(stoppedAt);
      expect(cut.experiments.repo.countItems(runB.id)).toBeGreaterThan(partial);
      // The cut run computed exactly the calls of the uninterrupted one, each once.
      expect(misses(cut)).toBe(misses(s));
      const cacheRows = (x: AppServices) => (x.workspace.db.prepare(`SELECT count(*) AS n FROM llm_call_cache`).get() as { n: number }).n;
      expect(cacheRows(cut)).toBe(cacheRows(s));
      expect(comparable(cut, runB.id)).toEqual(comparable(s, runId));
    } finally {
      await cut.close();
    }
  });
});

describe('prompt preview', () => {
  it('renders a condition’s prompt for a real query without calling a model', async () => {
    const s = open('preview.fairground');
    try {
      const router = createApiRouter(s);
      const fusion = await router.call('experiments.previewPrompt', { spec: spec('p'), queryId: 'ma-q3', retriever: 'golden/rag-fusion' });
      expect(fusion).toMatchObject({ ok: true, data: { retriever: 'golden/rag-fusion', prompt: expect.stringContaining('Source 1: ') } });
      const ranker = await router.call('experiments.previewPrompt', { spec: spec('p'), queryId: 'ma-q3', retriever: 'golden/listwise' });
      expect(ranker).toMatchObject({ ok: true, data: { prompt: expect.stringMatching(/Aspects:\n1\. ingredients\n2\. exclusions/) } });
      const predicted = await router.call('experiments.previewPrompt', { spec: spec('p'), queryId: 'ma-q3', retriever: 'predicted/listwise' });
      expect(predicted).toMatchObject({ ok: false, error: { message: expect.stringContaining("needs the explorer's sub-aspects") } });
      expect(misses(s)).toBe(0);
    } finally {
      await s.close();
    }
  });
});

describe('the demo spec', () => {
  it.each([
    ['richrag.json', DEMO_SIM_NAME],
    ['richrag-gguf.json', DEMO_MODEL_NAME],
  ])('%s is a valid RichRAG spec naming the demo collection and its model', (file, model) => {
    const raw = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', file), 'utf8')) as Record<string, unknown>;
    const { kind, spec: valid } = requireValidSpec(defaultExperimentRegistry(), raw, file);
    expect(kind.kind).toBe('richrag');
    expect(valid).toMatchObject({ collection: DEMO_COLLECTION_NAME, generator: { model }, settings: ['predicted', 'golden'] });
  });
});
