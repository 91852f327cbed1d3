import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exactKnn } from '../../src-main/core/retrieval/exactKnn';
import { createRng } from '../../src-main/core/random/rng';
import { DenseIndex } from '../../src-main/retrieval/dense/denseIndex';
import { embedDocuments } from '../../src-main/retrieval/dense/embedDocuments';
import {
  countVectors,
  createVectorTable,
  dropOrphanVectorTables,
  insertVectors,
  readVectors,
  vectorTableExists,
} from '../../src-main/retrieval/dense/vectorTable';
import { RetrievalRepo } from '../../src-main/store/retrievalRepo';
import type { Workspace } from '../../src-main/store/workspace';
import { addCollection, addDocuments, openTestWorkspace } from './fixture';
import { HashingEngine } from './hashingEngine';

const DIMS = 24;
const N = 300;
let ws: Workspace;
let repo: RetrievalRepo;
let collectionId: number;

function randomUnitish(rng: ReturnType<typeof createRng>): Float32Array {
  return Float32Array.from({ length: DIMS }, () => rng.nextNormal());
}

beforeEach(() => {
  ws = openTestWorkspace();
  repo = new RetrievalRepo(ws.db);
  collectionId = addCollection(ws.db, 'random');
  addDocuments(ws.db, collectionId, Array.from({ length: N }, (_, i) => ({ docId: `d${String(i).padStart(3, '0')}`, text: `document ${i}` })));
});
afterEach(() => ws.close());

function seededSet(seed: number) {
  const set = repo.createEmbeddingSet({ collectionId, modelKey: 'random', modelName: 'random', dimensions: DIMS, metric: 'cosine', params: {} });
  createVectorTable(ws.db, set.id, DIMS);
  const rng = createRng(seed);
  const docs = repo.documents(collectionId);
  const items = docs.map((d) => ({ documentId: d.documentId, id: d.docId, vector: randomUnitish(rng) }));
  insertVectors(ws.db, set.id, items.map((it) => ({ documentId: it.documentId, vector: it.vector, textHash: 'h' })));
  return { set, items, rng };
}

describe('sqlite-vec KNN against brute force', () => {
  it('equal distances at the cut: the k kept are those of the one rank order (docno descending; issue 34 item 1)', () => {
    // Documents inserted in a shuffled order (row ids unrelated to doc ids), every one with the same
    // vector: all tie, so vec0's own cut (k = 3 of 120) is arbitrary.
    const tied = addCollection(ws.db, 'tied');
    const ids = createRng(11).shuffled(Array.from({ length: 120 }, (_, i) => `t${i}`));
    addDocuments(ws.db, tied, ids.map((docId) => ({ docId, text: 'same' })));
    const set = repo.createEmbeddingSet({ collectionId: tied, modelKey: 'same', modelName: 'same', dimensions: DIMS, metric: 'cosine', params: {} });
    createVectorTable(ws.db, set.id, DIMS);
    const v = Float32Array.from({ length: DIMS }, (_, i) => (i === 0 ? 1 : 0));
    insertVectors(ws.db, set.id, createRng(12).shuffled(repo.documents(tied)).map((d) => ({ documentId: d.documentId, vector: v, textHash: 'h' })));
    const got = new DenseIndex(ws.db, set.id, tied, DIMS).search(v, 3, 'cosine');
    // Byte order, descending: t99 > t98 > t97 > … > t119 (the one rank order; trec_eval's).
    expect(got.map((h) => h.id)).toEqual(['t99', 't98', 't97']);
  });

  it('cosine top-10 equals exact double-precision cosine on seeded random vectors', () => {
    const { set, items, rng } = seededSet(7);
    const index = new DenseIndex(ws.db, set.id, collectionId, DIMS);
    for (let q = 0; q < 20; q++) {
      const query = randomUnitish(rng);
      const got = index.search(query, 10, 'cosine');
      const want = exactKnn(query, items, 10, 'cosine');
      // float32 arithmetic inside sqlite-vec: scores agree to ~1e-6; the order agrees wherever
      // neighbouring exact scores are further apart than that.
      got.forEach((h, i) => expect(Math.abs(h.score - want[i]!.score)).toBeLessThan(1e-5));
      const gapsOk = want.every((w, i) => i === 0 || want[i - 1]!.score - w.score > 1e-5);
      if (gapsOk) expect(got.map((h) => h.id)).toEqual(want.map((w) => w.id));
      else expect(new Set(got.map((h) => h.id))).toEqual(new Set(want.map((w) => w.id)));
    }
  });

  it('dot product (exact scan) and candidate-restricted search equal brute force', () => {
    const { set, items, rng } = seededSet(11);
    const index = new DenseIndex(ws.db, set.id, collectionId, DIMS);
    const query = randomUnitish(rng);
    expect(index.search(query, 15, 'dot').map((h) => [h.id, h.score])).toEqual(exactKnn(query, items, 15, 'dot').map((h) => [h.id, h.score]));
    const candidates = items.filter((_, i) => i % 7 === 0);
    const got = index.search(query, 5, 'cosine', candidates.map((c) => ({ documentId: c.documentId, docId: c.id })));
    expect(got.map((h) => [h.id, h.score])).toEqual(exactKnn(query, candidates, 5, 'cosine').map((h) => [h.id, h.score]));
    expect(() => index.search([1, 2], 5, 'cosine')).toThrow(/dimensions/);
  });

  it('vectors of deleted documents are never returned, and k hits still come back', () => {
    const { set, items, rng } = seededSet(3);
    const index = new DenseIndex(ws.db, set.id, collectionId, DIMS);
    const query = randomUnitish(rng);
    const top = exactKnn(query, items, 30, 'cosine');
    const gone = top.slice(0, 25).map((h) => h.id);
    const del = ws.db.prepare(`DELETE FROM documents WHERE collection_id = ? AND doc_id = ?`);
    for (const id of gone) del.run(collectionId, id);
    expect(countVectors(ws.db, set.id)).toBe(N); // the vectors are still there
    const got = index.search(query, 10, 'cosine');
    expect(got).toHaveLength(10);
    expect(got.some((h) => gone.includes(h.id))).toBe(false);
    expect(got.slice(0, 5).map((h) => h.id)).toEqual(top.slice(25, 30).map((h) => h.id));
  });

  it('stores float32 vectors under BigInt rowids and reads them back', () => {
    const { set, items } = seededSet(5);
    const back = readVectors(ws.db, set.id, [items[0]!.documentId, 999_999]);
    expect([...back.keys()]).toEqual([items[0]!.documentId]);
    expect(back.get(items[0]!.documentId)).toEqual(items[0]!.vector);
    // the stack fact the module works around: a JS number binds as REAL and vec0 refuses it
    expect(() => ws.db.prepare(`INSERT INTO vec_${set.id}(id, embedding, text_hash) VALUES (?, ?, 'x')`).run(123456, items[0]!.vector)).toThrow(/integer/i);
  });

  it('drops vec tables whose set is gone (collection deleted)', () => {
    const { set } = seededSet(1);
    expect(dropOrphanVectorTables(ws.db, new Set([set.id]))).toEqual([]);
    ws.db.prepare(`DELETE FROM collections WHERE id = ?`).run(collectionId);
    expect(repo.embeddingSet(set.id)).toBeUndefined();
    expect(dropOrphanVectorTables(ws.db, new Set(repo.embeddingSets().map((s) => s.id)))).toEqual([set.id]);
    expect(vectorTableExists(ws.db, set.id)).toBe(false);
  });
});

describe('embedding documents', () => {
  function newSet(engine: HashingEngine) {
    const set = repo.createEmbeddingSet({ collectionId, modelKey: engine.modelKey, modelName: '', dimensions: engine.dimensions, metric: 'cosine', params: {} });
    createVectorTable(ws.db, set.id, engine.dimensions);
    return set.id;
  }
  const docs = () => repo.documents(collectionId).slice(0, 40).map((d) => ({ documentId: d.documentId, text: d.text }));

  it('embeds in batches with progress, and a second pass embeds nothing', async () => {
    const engine = new HashingEngine();
    const setId = newSet(engine);
    const progress: [number, number][] = [];
    const r = await embedDocuments({ db: ws.db, embedder: engine, setId, dimensions: 32, documents: docs(), batchSize: 16, onProgress: (d, t) => progress.push([d, t]) });
    expect(r).toEqual({ embedded: 40, skipped: 0, removed: 0, empty: 0, total: 40 });
    expect(engine.calls).toBe(3);
    expect(progress).toEqual([[0, 40], [16, 40], [32, 40], [40, 40]]);
    const again = await embedDocuments({ db: ws.db, embedder: engine, setId, dimensions: 32, documents: docs(), batchSize: 16 });
    expect(again).toEqual({ embedded: 0, skipped: 40, removed: 0, empty: 0, total: 40 });
    expect(engine.calls).toBe(3);
  });

  it('is cancellable between batches and resumes where it stopped', async () => {
    const engine = new HashingEngine();
    const setId = newSet(engine);
    const controller = new AbortController();
    engine.abortAfter = { calls: 2, controller };
    await expect(embedDocuments({ db: ws.db, embedder: engine, setId, dimensions: 32, documents: docs(), batchSize: 8, signal: controller.signal })).rejects.toThrow();
    expect(countVectors(ws.db, setId)).toBe(16); // the two finished batches are kept
    engine.abortAfter = undefined;
    engine.embedded = [];
    const r = await embedDocuments({ db: ws.db, embedder: engine, setId, dimensions: 32, documents: docs(), batchSize: 8 });
    expect(r.embedded).toBe(24);
    expect(r.skipped).toBe(16);
    expect(engine.embedded).not.toContain('document 0');
    expect(countVectors(ws.db, setId)).toBe(40);
  });

  it('re-embeds changed texts, removes vectors of vanished documents, skips blank ones', async () => {
    const engine = new HashingEngine();
    const setId = newSet(engine);
    const list = docs();
    await embedDocuments({ db: ws.db, embedder: engine, setId, dimensions: 32, documents: list });
    const changed = list.slice(1).map((d, i) => (i === 0 ? { ...d, text: 'a new text' } : d));
    changed.push({ documentId: 999, text: '   ' });
    engine.embedded = [];
    const r = await embedDocuments({ db: ws.db, embedder: engine, setId, dimensions: 32, documents: changed });
    expect(r).toEqual({ embedded: 1, skipped: 38, removed: 2, empty: 1, total: 39 });
    expect(engine.embedded).toEqual(['a new text']);
    expect(countVectors(ws.db, setId)).toBe(39);
  });

  it('refuses vectors of the wrong dimension', async () => {
    const engine = new HashingEngine(8);
    const setId = newSet(new HashingEngine(32));
    await expect(embedDocuments({ db: ws.db, embedder: engine, setId, dimensions: 32, documents: docs() })).rejects.toThrow(/8-dimensional/);
  });
});
