/**
 * The SQL of LLM utility labels over the judgments table (migration 0003). It sits here rather
 * than in store/collectionsRepo.ts only because that file belongs to the collections work in
 * progress; it is store code (no orchestration) and can move there as `upsertLlmJudgments`.
 *
 * Rules, one row per (collection, query, document, kind) as the table's UNIQUE key demands:
 * - no row yet                  → insert with source 'llm';
 * - an 'llm' row                → replaced when label or provenance differ, else left alone
 *                                 (a re-run writes nothing, so the content hash stays);
 * - an 'import' row             → replaced; the imported label is kept in provenance.previous;
 * - a 'manual' row              → label and source stay; its provenance.previous (what "revert"
 *                                 restores, CollectionsRepo.setManualJudgment) becomes this label
 *                                 (an imported label that was under the override moves into it).
 */
import type { Database } from 'better-sqlite3';
import { canonicalJson } from '../../store/canonicalJson';
import type { JsonObject, JudgmentSource } from '../../store/collectionTypes';

export interface LlmLabel {
  docId: string;
  label: number;
  provenance: JsonObject;
}

export interface WriteCounts {
  written: number;
  unchanged: number;
  keptManual: number;
  replacedImport: number;
}

export function emptyWriteCounts(): WriteCounts {
  return { written: 0, unchanged: 0, keptManual: 0, replacedImport: 0 };
}

interface Existing {
  label: number;
  source: JudgmentSource;
  provenance: string;
}

/** Write one query's labels; call inside a transaction. Adds to `counts`. */
export function upsertLlmUtilityLabels(db: Database, collectionId: number, queryId: string, labels: readonly LlmLabel[], counts: WriteCounts, now = new Date()): void {
  const stamp = now.toISOString();
  const find = db.prepare(`SELECT label, source, provenance FROM judgments WHERE collection_id = ? AND query_id = ? AND doc_id = ? AND kind = 'utility'`);
  const insert = db.prepare(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, source, provenance, updated_at) VALUES (?, ?, ?, 'utility', ?, 'llm', ?, ?)`);
  const update = db.prepare(`UPDATE judgments SET label = ?, source = ?, provenance = ?, updated_at = ? WHERE collection_id = ? AND query_id = ? AND doc_id = ? AND kind = 'utility'`);
  for (const l of labels) {
    const old = find.get(collectionId, queryId, l.docId) as Existing | undefined;
    if (!old) {
      insert.run(collectionId, queryId, l.docId, l.label, canonicalJson(l.provenance), stamp);
      counts.written++;
      continue;
    }
    const oldProvenance = JSON.parse(old.provenance) as JsonObject;
    if (old.source === 'manual') {
      // An imported label under the override stays reachable: it moves into the LLM label's provenance.
      const under = oldProvenance.previous as { label: number; source: JudgmentSource; provenance?: JsonObject } | undefined;
      const imported = under?.source === 'import' ? under : under?.source === 'llm' ? under.provenance?.previous : undefined;
      const llm = imported === undefined ? l.provenance : { ...l.provenance, previous: imported };
      const previous = canonicalJson({ ...oldProvenance, previous: { label: l.label, source: 'llm', provenance: llm } });
      if (previous !== old.provenance) update.run(old.label, 'manual', previous, stamp, collectionId, queryId, l.docId);
      counts.keptManual++;
      continue;
    }
    // An imported label is kept beside the new one; one kept by an earlier run stays.
    const kept = old.source === 'import' ? { label: old.label, source: old.source, provenance: oldProvenance } : oldProvenance.previous;
    const provenance = canonicalJson(kept === undefined ? l.provenance : { ...l.provenance, previous: kept });
    if (old.source === 'llm' && old.label === l.label && old.provenance === provenance) {
      counts.unchanged++;
      continue;
    }
    update.run(l.label, 'llm', provenance, stamp, collectionId, queryId, l.docId);
    if (old.source === 'import') counts.replacedImport++;
    else counts.written++;
  }
}

export interface UtilityJudgment {
  queryId: string;
  docId: string;
  label: number;
  source: JudgmentSource;
  provenance: JsonObject;
  /** LaMP documents renamed `<qid>/<pid>` keep their profile item id here (io/importers/lampImporter.ts). */
  profileId: string | null;
}

/** Every utility judgment of a collection, by query then document id. */
export function utilityJudgments(db: Database, collectionId: number): UtilityJudgment[] {
  const rows = db
    .prepare(
      `SELECT j.query_id, j.doc_id, j.label, j.source, j.provenance, json_extract(d.attrs, '$.profile_id') AS profile_id
       FROM judgments j LEFT JOIN documents d ON d.collection_id = j.collection_id AND d.doc_id = j.doc_id
       WHERE j.collection_id = ? AND j.kind = 'utility' ORDER BY j.query_id, j.doc_id`,
    )
    .all(collectionId) as { query_id: string; doc_id: string; label: number; source: JudgmentSource; provenance: string; profile_id: unknown }[];
  return rows.map((r) => ({
    queryId: r.query_id,
    docId: r.doc_id,
    label: r.label,
    source: r.source,
    provenance: JSON.parse(r.provenance) as JsonObject,
    profileId: typeof r.profile_id === 'string' ? r.profile_id : null,
  }));
}

/** Useful (label > 0) utility judgments per query, for the queries given. */
export function usefulCounts(db: Database, collectionId: number, queryIds: readonly string[]): Map<string, number> {
  const stmt = db.prepare(`SELECT count(*) FROM judgments WHERE collection_id = ? AND query_id = ? AND kind = 'utility' AND label > 0`).pluck();
  return new Map(queryIds.map((q) => [q, stmt.get(collectionId, q) as number]));
}

/** The collection's queries in import order with their candidate lists (for summaries and exports). */
export function queriesInOrder(db: Database, collectionId: number): { queryId: string; task: string | null; candidates: string[] | null }[] {
  const rows = db.prepare(`SELECT query_id, task, candidates FROM queries WHERE collection_id = ? ORDER BY id`).all(collectionId) as {
    query_id: string;
    task: string | null;
    candidates: string | null;
  }[];
  return rows.map((r) => ({ queryId: r.query_id, task: r.task, candidates: r.candidates === null ? null : (JSON.parse(r.candidates) as string[]) }));
}
