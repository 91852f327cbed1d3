/**
 * Test workspaces for retrieval: an in-memory workspace with every migration (collections 0003,
 * retrieval 0004), and helpers that write collections, documents and queries the way an importer
 * does (plain INSERTs against migration 0003's schema).
 */
import type { Database } from 'better-sqlite3';
import { openWorkspace, type Workspace } from '../../src-main/store/workspace';

export function openTestWorkspace(): Workspace {
  return openWorkspace(':memory:');
}

export function addCollection(db: Database, name: string): number {
  const info = db.prepare(`INSERT INTO collections(name, content_hash, created_at) VALUES (?, '', '2025-01-01T00:00:00.000Z')`).run(name);
  return Number(info.lastInsertRowid);
}

export interface DocInput {
  docId: string;
  title?: string;
  text: string;
}

export function addDocuments(db: Database, collectionId: number, docs: readonly DocInput[]): void {
  const ins = db.prepare(`INSERT INTO documents(collection_id, doc_id, title, text) VALUES (?, ?, ?, ?)`);
  db.transaction(() => {
    for (const d of docs) ins.run(collectionId, d.docId, d.title ?? '', d.text);
  })();
}

export interface QueryInput {
  queryId: string;
  text: string;
  candidates?: string[];
}

export function addQueries(db: Database, collectionId: number, queries: readonly QueryInput[]): void {
  const ins = db.prepare(`INSERT INTO queries(collection_id, query_id, text, candidates) VALUES (?, ?, ?, ?)`);
  db.transaction(() => {
    for (const q of queries) ins.run(collectionId, q.queryId, q.text, q.candidates ? JSON.stringify(q.candidates) : null);
  })();
}

/**
 * A small zoo. Tokens after FTS5's porter/unicode61 analysis, (title | text):
 *   z1  penguin of antarctica (3) | penguin are flightless bird that live in the cold antarct (10)   → 13 tokens
 *   z2  eagl (1) | eagl are bird of prey with keen eyesight eagl hunt fish (11)                      → 12
 *   z3  penguin coloni (2) | a coloni of penguin huddl togeth penguin share warmth (9)                → 11
 *   z4  desert fox (2) | fennec fox live in the sahara desert and hunt at night (11)                  → 13
 *   z5  script alert 1 script bird bee (6) | bee pollin flower bird eat bee sometim (7)              → 13
 */
export const ZOO: readonly DocInput[] = [
  { docId: 'z1', title: 'Penguins of Antarctica', text: 'Penguins are flightless birds that live in the cold Antarctic.' },
  { docId: 'z2', title: 'Eagles', text: 'Eagles are birds of prey with keen eyesight. Eagles hunt fish.' },
  { docId: 'z3', title: 'Penguin colonies', text: 'A colony of penguins huddles together; penguins share warmth.' },
  { docId: 'z4', title: 'Desert foxes', text: 'Fennec foxes live in the Sahara desert and hunt at night.' },
  { docId: 'z5', title: '<script>alert(1)</script> Birds & bees', text: 'Bees pollinate flowers; birds eat bees sometimes.' },
];
