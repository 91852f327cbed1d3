/**
 * The one pager of runs.items (experiments/itemsPage.ts) over a real run_items table, and the run
 * API's unions on `kind` (api/contract/runs.ts): every kind's results validate under their own
 * kind only, and runs.export takes exactly the union of the kinds' formats.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ExportFormat } from '../../src-main/api/contract/fairRag';
import { MoiExportFormat } from '../../src-main/api/contract/moi';
import { RichRagExportFormat } from '../../src-main/api/contract/richrag';
import { contract } from '../../src-main/api/contract/index';
import { EXPORT_FORMATS, RunItemsPage, RunMetrics } from '../../src-main/api/contract/runs';
import { DataError } from '../../src-main/core/errors';
import { pageOfItems, pageOfQueries } from '../../src-main/experiments/itemsPage';
import { migration0006 } from '../../src-main/store/migrations/0006_experiments';
import { ExperimentsRepo, type RunItem } from '../../src-main/store/experimentsRepo';

function runWithItems(items: RunItem[]): { repo: ExperimentsRepo; runId: number } {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migration0006.up(db);
  const repo = new ExperimentsRepo(db);
  const e = repo.createExperiment({ kind: 'moi', name: 'paging', spec: {} });
  const run = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 });
  repo.upsertItems(run.id, items);
  return { repo, runId: run.id };
}

// Three queries (q1..q3), each with a query item and two method items; q2 also has a third method.
const ITEMS: RunItem[] = ['q1', 'q2', 'q3'].flatMap((q) => [
  { key: JSON.stringify(['q', q]), queryId: q, condition: '', sample: null, payload: { q } },
  { key: JSON.stringify(['m', q, 'moi']), queryId: q, condition: 'moi', sample: null, payload: { m: 'moi' } },
  { key: JSON.stringify(['m', q, 'retriever']), queryId: q, condition: 'retriever', sample: null, payload: { m: 'retriever' } },
  ...(q === 'q2' ? [{ key: JSON.stringify(['m', q, 'random']), queryId: q, condition: 'random', sample: null, payload: { m: 'random' } }] : []),
]);

describe('runs.items paging (itemsPage.ts)', () => {
  it('pages queries, each item built from all of its stored items, with the total of the filter', () => {
    const { repo, runId } = runWithItems(ITEMS);
    const view = (qid: string, items: RunItem[], condition: string | undefined) => ({ qid, conditions: items.map((i) => i.condition).filter((c) => c && (condition === undefined || c === condition)) });
    expect(pageOfQueries(repo, runId, '["q",', { offset: 1, limit: 1 }, view)).toEqual({ total: 3, items: [{ qid: 'q2', conditions: ['moi', 'random', 'retriever'] }] });
    expect(pageOfQueries(repo, runId, '["q",', { offset: 2, limit: 5 }, view)).toEqual({ total: 3, items: [{ qid: 'q3', conditions: ['moi', 'retriever'] }] });
    expect(pageOfQueries(repo, runId, '["q",', { queryId: 'q1', offset: 0, limit: 50 }, view)).toEqual({ total: 1, items: [{ qid: 'q1', conditions: ['moi', 'retriever'] }] });
    expect(pageOfQueries(repo, runId, '["q",', { queryId: 'nope', offset: 0, limit: 50 }, view)).toEqual({ total: 0, items: [] });
    // A condition reaches the view; one the run has no item of is refused with the run's conditions.
    expect(pageOfQueries(repo, runId, '["q",', { condition: 'random', offset: 0, limit: 50 }, view).items.map((v) => v.conditions)).toEqual([[], ['random'], []]);
    expect(() => pageOfQueries(repo, runId, '["q",', { condition: 'oracle', offset: 0, limit: 50 }, view)).toThrow(DataError);
    expect(() => pageOfQueries(repo, runId, '["q",', { condition: 'oracle', offset: 0, limit: 50 }, view)).toThrow("no condition 'oracle' in this run (it has moi, random, retriever)");
  });

  it('pages stored rows of one type, filtered by query and condition', () => {
    const { repo, runId } = runWithItems(ITEMS);
    const keys = (items: RunItem[]) => items.map((i) => i.key);
    expect(pageOfItems(repo, runId, '["m",', { condition: 'moi', offset: 1, limit: 1 }, keys)).toEqual({ total: 3, items: ['["m","q2","moi"]'] });
    expect(pageOfItems(repo, runId, '["m",', { queryId: 'q2', offset: 0, limit: 2 }, keys)).toEqual({ total: 3, items: ['["m","q2","moi"]', '["m","q2","random"]'] });
    expect(pageOfItems(repo, runId, '["m",', { condition: 'oracle', offset: 0, limit: 5 }, keys)).toEqual({ total: 0, items: [] });
  });
});

describe('the run API over every kind (api/contract/runs.ts)', () => {
  it('validates a result under its own kind only', () => {
    const richrag = { kind: 'richrag', total: 0, items: [] };
    expect(RunItemsPage.safeParse(richrag).success).toBe(true);
    // A page of Fair RAG rows labelled as MoI is refused: MoI items are per-query details.
    const row = { key: 'k', queryId: 'q', condition: 'c', sample: 0, retriever: null, alpha: null, ranking: [], prompt: null, output: null, utility: null, attributionRate: null, attribution: null };
    expect(RunItemsPage.safeParse({ kind: 'fair-rag', total: 1, items: [row] }).success).toBe(true);
    expect(RunItemsPage.safeParse({ kind: 'moi', total: 1, items: [row] }).success).toBe(false);
    expect(RunMetrics.safeParse({ kind: 'conversations' }).success).toBe(false);
    expect(RunMetrics.options.map((o) => o.shape.kind.value)).toEqual(['fair-rag', 'moi', 'richrag']);
  });

  it('has no per-kind run methods, and runs.export takes exactly the kinds’ formats', () => {
    expect(Object.keys(contract).filter((m) => /^(moi|richrag)\./.test(m))).toEqual([]);
    const input = contract['runs.export'].input;
    for (const [kind, formats] of Object.entries(EXPORT_FORMATS)) {
      for (const format of formats) expect(input.safeParse({ runId: 1, format }).success, `${kind} ${format}`).toBe(true);
    }
    expect(new Set(Object.values(EXPORT_FORMATS).flat())).toEqual(new Set([...ExportFormat.options, ...MoiExportFormat.options, ...RichRagExportFormat.options]));
    expect(input.safeParse({ runId: 1, format: 'table9-csv' }).success).toBe(false);
  });
});
