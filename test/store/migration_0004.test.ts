import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0001 } from '../../src-main/store/migrations/0001_initial';
import { migration0003 } from '../../src-main/store/migrations/0003_collections';
import { migration0004 } from '../../src-main/store/migrations/0004_retrieval';

function upTo3(): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migration0001.up(db);
  migration0003.up(db);
  db.prepare(`INSERT INTO collections(id, name, content_hash, created_at) VALUES (1, 'c', '', 'now')`).run();
  return db;
}

const matches = (db: Database.Database, term: string) =>
  (db.prepare(`SELECT d.doc_id AS id FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid WHERE documents_fts MATCH ? ORDER BY d.doc_id`).all(term) as { id: string }[]).map((r) => r.id);
const integrity = (db: Database.Database) => db.prepare(`INSERT INTO documents_fts(documents_fts, rank) VALUES ('integrity-check', 1)`).run();

describe('migration 0004 retrieval', () => {
  it('indexes documents that existed before it, and later writes through the triggers', () => {
    const db = upTo3();
    db.prepare(`INSERT INTO documents(collection_id, doc_id, title, text) VALUES (1, 'old', 'Running', 'before the migration')`).run();
    migration0004.up(db);
    expect(matches(db, 'run')).toEqual(['old']); // Porter: running → run
    expect(matches(db, 'migrations')).toEqual(['old']);

    db.prepare(`INSERT INTO documents(collection_id, doc_id, title, text) VALUES (1, 'new', '', 'Café crème')`).run();
    expect(matches(db, 'cafe')).toEqual(['new']); // diacritics folded
    db.prepare(`UPDATE documents SET text = 'tea' WHERE doc_id = 'new'`).run();
    expect(matches(db, 'cafe')).toEqual([]);
    expect(matches(db, 'tea')).toEqual(['new']);
    db.prepare(`UPDATE documents SET attrs = '{"x":1}' WHERE doc_id = 'new'`).run(); // not an indexed column: no reindex needed
    db.prepare(`INSERT INTO documents(collection_id, doc_id, title, text) VALUES (1, 'new', '', 'coffee') ON CONFLICT(collection_id, doc_id) DO UPDATE SET text = excluded.text`).run();
    expect(matches(db, 'coffee')).toEqual(['new']);
    integrity(db);
    db.prepare(`DELETE FROM documents WHERE doc_id = 'old'`).run();
    expect(matches(db, 'run')).toEqual([]);
    db.prepare(`DELETE FROM collections WHERE id = 1`).run(); // cascade fires the delete trigger
    expect(matches(db, 'coffee')).toEqual([]);
    integrity(db);
  });

  it('INSERT OR REPLACE bypasses the delete trigger (why writers must upsert instead)', () => {
    const db = upTo3();
    migration0004.up(db);
    db.prepare(`INSERT INTO documents(collection_id, doc_id, title, text) VALUES (1, 'd', '', 'alpha')`).run();
    db.prepare(`INSERT OR REPLACE INTO documents(collection_id, doc_id, title, text) VALUES (1, 'd', '', 'beta')`).run();
    expect(() => integrity(db)).toThrow();
    db.prepare(`INSERT INTO documents_fts(documents_fts) VALUES ('rebuild')`).run();
    integrity(db);
  });

  it('creates the embedding set and run tables with their constraints', () => {
    const db = upTo3();
    migration0004.up(db);
    const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('embedding_sets','retrieval_runs','retrieval_results','documents_fts')`).all() as { name: string }[]).map((r) => r.name).sort();
    expect(names).toEqual(['documents_fts', 'embedding_sets', 'retrieval_results', 'retrieval_runs']);

    const set = db.prepare(`INSERT INTO embedding_sets(collection_id, model_key, dimensions, metric, created_at, status) VALUES (1, ?, ?, ?, 'now', ?)`);
    set.run('m1', 8, 'cosine', 'building');
    expect(() => set.run('m1', 8, 'cosine', 'ready')).toThrow(/UNIQUE/);
    expect(() => set.run('m2', 0, 'cosine', 'ready')).toThrow(/CHECK/);
    expect(() => set.run('m3', 8, 'l1', 'ready')).toThrow(/CHECK/);
    expect(() => set.run('m4', 8, 'dot', 'done')).toThrow(/CHECK/);
    // AUTOINCREMENT: a deleted set's id (and so its vec_<id> table name) is never reused
    db.prepare(`DELETE FROM embedding_sets`).run();
    set.run('m5', 8, 'dot', 'ready');
    expect(db.prepare(`SELECT id FROM embedding_sets`).get()).toEqual({ id: 2 });

    db.prepare(`INSERT INTO retrieval_runs(collection_id, name, method, created_at) VALUES (1, 'bm25', 'bm25', 'now')`).run();
    expect(() => db.prepare(`INSERT INTO retrieval_runs(collection_id, name, method, created_at) VALUES (1, 'bm25', 'dense', 'now')`).run()).toThrow(/UNIQUE/);
    expect(() => db.prepare(`INSERT INTO retrieval_runs(collection_id, name, method, created_at) VALUES (1, 'x', 'splade', 'now')`).run()).toThrow(/CHECK/);
    const res = db.prepare(`INSERT INTO retrieval_results(run_id, query_id, doc_id, rank, score) VALUES (1, ?, ?, ?, ?)`);
    res.run('q', 'a', 1, 2.5);
    expect(() => res.run('q', 'a', 2, 1)).toThrow(/UNIQUE|PRIMARY/);
    expect(() => res.run('q', 'b', 1, 1)).toThrow(/UNIQUE/); // one document per rank
    expect(() => res.run('q', 'c', 0, 1)).toThrow(/CHECK/);
    expect(() => res.run('q', 'd', 3, Number.NaN)).toThrow(/NOT NULL/);
    db.prepare(`DELETE FROM collections WHERE id = 1`).run();
    expect(db.prepare(`SELECT (SELECT count(*) FROM retrieval_runs) + (SELECT count(*) FROM retrieval_results) + (SELECT count(*) FROM embedding_sets) AS n`).get()).toEqual({ n: 0 });
  });
});
