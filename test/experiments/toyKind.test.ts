/**
 * Issue 37 item 2: a kind is one folder. The toy fourth paper in test/experiments/toy-kind/ joins by
 * one registry line and nothing else, and every generic part reaches it through its registry entry:
 * spec validation and the workspace checks, the model-capability check (its `modelNeeds`), runs and
 * resume, metrics and items, the CLI's summary text, and the power simulation (its `power`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeStats, summaryTable } from '../../src-main/cli/commands/experimentServices';
import { defaultExperimentRegistry } from '../../src-main/experiments/kinds';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { DEMO_COLLECTION_NAME } from '../../src-main/services/collectionsDemo';
import { simulatePower } from '../../src-main/services/simulation/power';
import { makeDemoWorkspace } from './fixture';
import { CONDITIONS, TOY_KIND, toyKind, type ToyMetrics } from './toy-kind/kind';

const READER = 'Simulated reader (lost in the middle)';
const QUERIES = ['tag-u1', 'tag-u2', 'head-u1', 'head-u2'];
let dir: string;
let s: AppServices;
const registry = defaultExperimentRegistry();
registry.register(toyKind); // the one registry line of the main side

const spec = (over: Record<string, unknown> = {}) => ({ kind: TOY_KIND, name: 'toy', collection: DEMO_COLLECTION_NAME, queries: QUERIES, generator: { model: READER }, ...over });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fairground-toykind-'));
  const path = await makeDemoWorkspace(dir);
  s = createAppServices(path, { transport: 'http', registry });
}, 120_000);
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a toy fourth kind registered by one line', () => {
  it('is listed, validated by its schema, and checked against the workspace like every kind', () => {
    expect(s.experiments.kinds().map((k) => k.kind)).toContain(TOY_KIND);
    expect(s.experiments.validateSpec(spec())).toMatchObject({ ok: true });
    const bad = s.experiments.validateSpec(spec({ queries: ['tag-u1', 'no-such-query'], alpha: 2 }));
    expect(bad.ok).toBe(false);
    expect(bad.issues.map((i) => i.path)).toContain('alpha');
    const missing = s.experiments.validateSpec(spec({ queries: ['no-such-query'], generator: { model: 'no such model' } }));
    expect(missing.issues.map((i) => i.path).sort()).toEqual(['generator', 'queries[0]']);
  });

  it('runs, resumes without a second call, and reports its metrics, items and CLI summary', async () => {
    const { experiment } = s.experiments.upsert(spec());
    const run = s.experiments.runToContinue(experiment.id, true).run;
    const ctx = { signal: new AbortController().signal, progress: () => {} };
    await s.experiments.executeRun(run.id, ctx);
    const first = s.experiments.getRun(run.id);
    expect(first.status).toBe('succeeded');
    expect(first.stats).toMatchObject({ queries: 4, callsComputed: 8 });
    // Resume: every item is stored, so nothing is asked again.
    await s.experiments.executeRun(run.id, ctx);
    expect(s.experiments.getRun(run.id).stats).toMatchObject({ callsComputed: 0 });

    const m = s.experiments.metrics(run.id) as unknown as ToyMetrics;
    expect(m.kind).toBe(TOY_KIND);
    expect(m.test.queries).toBe(4);
    const items = s.experiments.items(run.id, { offset: 0, limit: 100 }) as unknown as { items: { queryId: string; condition: string; correct: number; prompt: string }[] };
    expect(items.items).toHaveLength(8);
    // Accuracy per condition is the mean of the stored items' correctness (computed here independently).
    for (const c of CONDITIONS) {
      const rows = items.items.filter((it) => it.condition === c);
      expect(m.accuracy[c]).toBeCloseTo(rows.reduce((a, r) => a + r.correct, 0) / rows.length, 12);
    }
    // The top-1 prompt shows a document; the closed-book prompt only the question.
    const tag = items.items.filter((it) => it.queryId === 'tag-u1');
    expect(tag.find((it) => it.condition === 'closed-book')!.prompt.startsWith('Question: ')).toBe(true);
    expect(tag.find((it) => it.condition === 'top-1')!.prompt.startsWith('Question: ')).toBe(false);

    const summary = s.experiments.summary(run.id);
    expect(summaryTable(summary, s.experiments.registry)).toBe(`closed-book\t${m.accuracy['closed-book']!.toFixed(4)}\ntop-1\t${m.accuracy['top-1']!.toFixed(4)}\n`);
    // No describeStats member: the counters as they are.
    expect(describeStats(s.experiments.getRun(run.id).stats, TOY_KIND, s.experiments.registry)).toMatch(/^queries 4; callsComputed 0/);
  });

  it('gets a power simulation through its power member (effect 0: the two conditions cannot differ)', async () => {
    const report = await simulatePower(s.workspace.db, { spec: spec({ name: 'toy power' }), effects: [0, 1], reps: 2, noise: 0, registry });
    expect(report.kind).toBe(TOY_KIND);
    expect(report.effect).toBe(toyKind.power!.effect);
    expect(report.test.description).toBe('top-1 vs closed-book accuracy');
    expect(report.rows.map((r) => [r.effect, r.reps])).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(report.rows[0]!.meanDifference).toBe(0);
    expect(report.rows[0]!.significant).toBe(0);
  }, 120_000);

  it('without the registry line, the same spec is refused as an unknown kind', () => {
    const plain = createAppServices(':memory:', { transport: 'http' });
    try {
      const v = plain.experiments.validateSpec(spec());
      expect(v.ok).toBe(false);
      expect(v.issues[0]!.path).toBe('kind');
    } finally {
      void plain.close();
    }
  });
});
