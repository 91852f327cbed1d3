import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0003 } from '../../src-main/store/migrations/0003_collections';
import { openWorkspace } from '../../src-main/store/workspace';

function fresh() {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migration0001.up(db);
  migration0003.up(db);
  db.prepare(`INSERT INTO collections(id, name, content_hash, created_at) VALUES (1, 'c', 'h', 'now')`).run();
  return db;
}

describe('migration 0003 collections', () => {
  it('creates the four STRICT tables with their defaults', () => {
    const db = fresh();
    const tables = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type='table' AND name IN ('collections','documents','queries','judgments') ORDER BY name`).all() as { name: string; sql: string }[];
    expect(tables.map((t) => t.name)).toEqual(['collections', 'documents', 'judgments', 'queries']);
    for (const t of tables) expect(t.sql).toMatch(/\)\s*STRICT$/);
    expect(db.prepare(`SELECT description, sources FROM collections`).get()).toEqual({ description: '', sources: '[]' });
    db.prepare(`INSERT INTO documents(collection_id, doc_id, text) VALUES (1, 'd', 't')`).run();
    expect(db.prepare(`SELECT title, attrs FROM documents`).get()).toEqual({ title: '', attrs: '{}' });
    db.prepare(`INSERT INTO queries(collection_id, query_id, text) VALUES (1, 'q', 't')`).run();
    expect(db.prepare(`SELECT answers, task, metric, subaspects, candidates, attrs FROM queries`).get()).toEqual({
      answers: '[]',
      task: null,
      metric: null,
      subaspects: null,
      candidates: null,
      attrs: '{}',
    });
    db.prepare(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, updated_at) VALUES (1, 'q', 'd', 'utility', 1, 'now')`).run();
    expect(db.prepare(`SELECT label, source, provenance FROM judgments`).get()).toEqual({ label: 1, source: 'import', provenance: '{}' });
  });

  it('enforces unique names and ids per collection, the judgment kind and column types', () => {
    const db = fresh();
    expect(() => db.prepare(`INSERT INTO collections(name, content_hash, created_at) VALUES ('c', 'h', 'now')`).run()).toThrow(/UNIQUE/);
    db.prepare(`INSERT INTO collections(id, name, content_hash, created_at) VALUES (2, 'other', 'h', 'now')`).run();
    db.prepare(`INSERT INTO documents(collection_id, doc_id, text) VALUES (1, 'd', 't')`).run();
    db.prepare(`INSERT INTO documents(collection_id, doc_id, text) VALUES (2, 'd', 't')`).run(); // same id, other collection
    expect(() => db.prepare(`INSERT INTO documents(collection_id, doc_id, text) VALUES (1, 'd', 'u')`).run()).toThrow(/UNIQUE/);
    expect(() => db.prepare(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, updated_at) VALUES (1, 'q', 'd', 'grade', 1, 'now')`).run()).toThrow(/CHECK/);
    expect(() => db.prepare(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, updated_at) VALUES (1, 'q', 'd', 'relevance', 'high', 'now')`).run()).toThrow();
    db.prepare(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, updated_at) VALUES (1, 'q', 'd', 'relevance', 1, 'now')`).run();
    db.prepare(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, updated_at) VALUES (1, 'q', 'd', 'utility', 0, 'now')`).run();
    expect(() => db.prepare(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, updated_at) VALUES (1, 'q', 'd', 'utility', 1, 'now')`).run()).toThrow(/UNIQUE/);
    expect(() => db.prepare(`INSERT INTO documents(collection_id, doc_id, text) VALUES (99, 'x', 't')`).run()).toThrow(/FOREIGN KEY/);
  });

  it('deleting a collection deletes its rows (ON DELETE CASCADE) and leaves the others', () => {
    const db = fresh();
    db.prepare(`INSERT INTO collections(id, name, content_hash, created_at) VALUES (2, 'keep', 'h', 'now')`).run();
    for (const c of [1, 2]) {
      db.prepare(`INSERT INTO documents(collection_id, doc_id, text) VALUES (?, 'd', 't')`).run(c);
      db.prepare(`INSERT INTO queries(collection_id, query_id, text) VALUES (?, 'q', 't')`).run(c);
      db.prepare(`INSERT INTO judgments(collection_id, query_id, doc_id, kind, label, updated_at) VALUES (?, 'q', 'd', 'relevance', 1, 'now')`).run(c);
    }
    db.prepare(`DELETE FROM collections WHERE id = 1`).run();
    for (const t of ['documents', 'queries', 'judgments']) {
      expect(db.prepare(`SELECT collection_id AS c FROM ${t}`).all()).toEqual([{ c: 2 }]);
    }
  });

  it('brings a version-1 workspace up to date without touching its jobs', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-m3-'));
    try {
      const path = join(dir, 'w.fairground');
      const v1 = openWorkspace(path, { migrations: [migration0001] });
      v1.db.prepare(`INSERT INTO jobs(id, kind, title, status, params, created_at) VALUES ('j', 'k', 't', 'succeeded', '{}', 'now')`).run();
      v1.close();
      const ws = openWorkspace(path, { migrations: [migration0001, migration0003] });
      expect(ws.schemaVersion).toBe(3);
      expect(ws.db.prepare(`SELECT count(*) AS n FROM jobs`).get()).toEqual({ n: 1 });
      expect(ws.db.prepare(`SELECT count(*) AS n FROM collections`).get()).toEqual({ n: 0 });
      ws.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
