/**
 * Issue 34 item 8: an import of labels that differ from stored ones says so. A Fair-RAG mapping of
 * hand labels imported over the labels of `label utility` (source 'llm') used to report "no change"
 * and keep the LLM's values; now it is an error naming the first differences (file line, stored and
 * imported value) and writes nothing, or — with replaceLabels — replaces them and reports how many.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { textSource } from '../../src-main/io/importers/source';
import { importIntoCollection } from '../../src-main/services/collectionsImport';
import { CollectionsRepo } from '../../src-main/store/collectionsRepo';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';

let dir: string;
let ws: Workspace;
let repo: CollectionsRepo;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-replace-labels-'));
  ws = openWorkspace(join(dir, 'w.fairground'));
  repo = new CollectionsRepo(ws.db);
});
afterEach(() => {
  ws.close();
  rmSync(dir, { recursive: true, force: true });
});

const docs = ['d1', 'd2', 'd3', 'd4'];
const mapping = (labels: number[]) => `qid\tpid\trelevance_label\n${labels.map((l, i) => `q1\t${docs[i]}\t${l}`).join('\n')}\n`;

async function setup(): Promise<number> {
  const corpus = docs.map((d) => JSON.stringify({ id: d, text: `text of ${d}` })).join('\n') + '\n';
  const r = await importIntoCollection(repo, { name: 'g2' }, [
    { kind: 'corpus', sources: [textSource('docs.jsonl', corpus)] },
    { kind: 'queries', sources: [textSource('queries.jsonl', `${JSON.stringify({ id: 'q1', text: 'a question' })}\n`)] },
    { kind: 'fairrag-mapping', sources: [textSource('llm.tsv', mapping([1, 0, 1, 0]))] },
  ]);
  // What `label utility` leaves: the same rows with source 'llm' (set here directly; the labeling run is tested elsewhere).
  ws.db.prepare(`UPDATE judgments SET source = 'llm', provenance = '{"generator":"tiny"}' WHERE collection_id = ?`).run(r.collectionId);
  return r.collectionId;
}

const labels = (id: number) => (ws.db.prepare(`SELECT doc_id AS d, label AS l, source AS s FROM judgments WHERE collection_id = ? ORDER BY doc_id`).all(id) as { d: string; l: number; s: string }[]);

describe('importing labels that differ from stored LLM labels', () => {
  it('is an error naming the first differences (line, stored, imported), and writes nothing', async () => {
    const id = await setup();
    const before = labels(id);
    const hash = repo.get(id)!.contentHash;
    // Hand labels: d2 and d4 differ (lines 3 and 5), d1 and d3 agree.
    const err = await importIntoCollection(repo, { name: 'g2' }, { kind: 'fairrag-mapping', sources: [textSource('hand.tsv', mapping([1, 1, 1, 1]))] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataError);
    const e = err as DataError;
    expect(e.message).toContain('2 imported utility labels differ from the stored ones');
    expect(e.message).toContain("query 'q1' document 'd2': stored llm label 0, imported 1 (line 3)");
    expect(e.message).toContain("document 'd4': stored llm label 0, imported 1 (line 5)");
    expect(e.message).toContain('replace labels');
    expect(e.message).toContain('hand.tsv');
    expect(labels(id)).toEqual(before);
    expect(repo.get(id)!.contentHash).toBe(hash);
  });

  it('labels equal to the stored ones are still "no change"', async () => {
    const id = await setup();
    const r = await importIntoCollection(repo, { name: 'g2' }, { kind: 'fairrag-mapping', sources: [textSource('same.tsv', mapping([1, 0, 1, 0]))] });
    expect(r.noop).toBe(true);
    expect(r.judgments).toMatchObject({ kept: 4, replaced: 0 });
    expect(labels(id).map((x) => x.s)).toEqual(['llm', 'llm', 'llm', 'llm']);
  });

  it('with replaceLabels, the differing labels are replaced, counted and reported; the old value stays in provenance.previous', async () => {
    const id = await setup();
    const hash = repo.get(id)!.contentHash;
    const r = await importIntoCollection(repo, { name: 'g2', replaceLabels: true }, { kind: 'fairrag-mapping', sources: [textSource('hand.tsv', mapping([1, 1, 1, 1]))] });
    expect(r.noop).toBe(false);
    expect(r.judgments).toMatchObject({ added: 0, replaced: 2, kept: 2 });
    expect(r.message).toBe("nothing added to 'g2'; replaced 2 stored labels that differed; kept 2 manual/LLM labels (same values)");
    expect(labels(id)).toEqual([
      { d: 'd1', l: 1, s: 'llm' },
      { d: 'd2', l: 1, s: 'import' },
      { d: 'd3', l: 1, s: 'llm' },
      { d: 'd4', l: 1, s: 'import' },
    ]);
    expect(repo.getJudgment(id, 'q1', 'd2', 'utility')!.provenance.previous).toEqual({ label: 0, source: 'llm', provenance: { generator: 'tiny' } });
    expect(repo.get(id)!.contentHash).not.toBe(hash);
  });
});
