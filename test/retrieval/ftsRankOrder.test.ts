/**
 * Issue 18 item 3: search reads FTS5's `ORDER BY rank` and stops after the k-th row and its ties.
 * The rows, their order and their scores must equal the previous full-sort statements
 * (test/bench/baselines/ftsSearchV0.ts), ties included: the collections below hold many exact
 * duplicates (equal scores) whose doc ids are not in insertion order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../src-main/core/random/rng';
import { CollectionFtsIndex } from '../../src-main/retrieval/fts5/collectionIndex';
import { searchFts } from '../../src-main/retrieval/fts5/ftsSearch';
import { queryTerms, toMatchExpression } from '../../src-main/retrieval/fts5/matchExpression';
import { bm25RankFunction, plainDecimal, takeTopK } from '../../src-main/retrieval/fts5/rankOrder';
import type { Workspace } from '../../src-main/store/workspace';
import { indexTopV0, searchTopV0 } from '../bench/baselines/ftsSearchV0';
import { addCollection, addDocuments, openTestWorkspace, type DocInput } from './fixture';

const WORDS = 'penguin eagle owl heron swan crane robin finch wren lark kite hawk'.split(' ');
let ws: Workspace;
let a: number;
let b: number;

beforeAll(() => {
  ws = openTestWorkspace();
  a = addCollection(ws.db, 'a');
  b = addCollection(ws.db, 'b');
  const rng = createRng(18);
  const make = (prefix: string, n: number): DocInput[] => {
    const docs: DocInput[] = [];
    for (let i = 0; i < n; i++) {
      // Every third document copies an earlier one: equal texts give equal scores (exact ties).
      const copy = i > 3 && i % 3 === 0 ? docs[rng.nextInt(docs.length)] : undefined;
      const text = copy?.text ?? Array.from({ length: 3 + rng.nextInt(12) }, () => WORDS[rng.nextInt(WORDS.length)]).join(' ');
      docs.push({ docId: `${prefix}${(i * 7919) % 1000}`, title: copy?.title ?? (WORDS[rng.nextInt(WORDS.length)] as string), text });
    }
    return rng.shuffled(docs);
  };
  addDocuments(ws.db, a, make('a', 600));
  addDocuments(ws.db, b, make('b', 300));
});
afterAll(() => ws.close());

const WEIGHTS = [
  { title: 1, text: 1 },
  { title: 0, text: 1 },
  { title: 2.5, text: 0.3 },
  { title: 1.1728067063273514e-7, text: 3 },
  { title: 10, text: 0 },
];

describe('search in rank order with deterministic ties', () => {
  it('searchFts equals the full-sort statement for 20 queries × 5 weightings × 4 depths × 2 collections', () => {
    const rng = createRng(3);
    let compared = 0;
    let tiedAtCut = 0;
    for (let q = 0; q < 20; q++) {
      const query = Array.from({ length: 1 + rng.nextInt(3) }, () => WORDS[rng.nextInt(WORDS.length)]).join(' ');
      const match = toMatchExpression(queryTerms(query)) as string;
      for (const weights of WEIGHTS) {
        for (const k of [1, 3, 10, 25]) {
          for (const collectionId of [a, b]) {
            const expected = searchTopV0(ws.db, collectionId, match, k, weights);
            const got = searchFts(ws.db, { collectionId, query, k, weights }).hits;
            expect(
              got.map((h) => ({ documentId: h.documentId, docId: h.docId, title: h.title, score: h.score })),
              `${query} k=${k} weights=${JSON.stringify(weights)}`,
            ).toEqual(expected);
            expect(got.map((h) => h.rank)).toEqual(expected.map((_, i) => i + 1));
            compared += expected.length;
            const more = searchTopV0(ws.db, collectionId, match, k + 1, weights);
            if (more.length > k && more[k]!.score === more[k - 1]!.score) tiedAtCut++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(2_000);
    expect(tiedAtCut).toBeGreaterThan(50); // the cut at k often falls inside a group of equal scores
  });

  it('the per-collection run index equals its full-sort statement, ties included', () => {
    const index = CollectionFtsIndex.build(ws.db, a);
    try {
      const table = (ws.db.prepare(`SELECT name FROM temp.sqlite_master WHERE name LIKE 'retrieval_fts_%' AND sql LIKE 'CREATE VIRTUAL TABLE%'`).pluck().all() as string[]).at(-1)!;
      const rng = createRng(4);
      for (let q = 0; q < 20; q++) {
        const query = Array.from({ length: 1 + rng.nextInt(3) }, () => WORDS[rng.nextInt(WORDS.length)]).join(' ');
        const match = toMatchExpression(queryTerms(query)) as string;
        for (const weights of WEIGHTS) {
          for (const k of [1, 5, 100]) expect(index.search(query, k, weights), query).toEqual(indexTopV0(ws.db, table, match, k, weights));
        }
      }
    } finally {
      index.drop();
    }
  });

  it('takeTopK reads on past k only while the score ties, then orders the ties by doc id descending (trec_eval)', () => {
    const read: string[] = [];
    function* rows() {
      for (const [docId, score] of [['d9', 5], ['d3', 4], ['d8', 4], ['d1', 4], ['d0', 3], ['d2', 1]] as const) {
        read.push(docId);
        yield { docId, score };
      }
    }
    expect(takeTopK(rows(), 2)).toEqual([{ docId: 'd9', score: 5 }, { docId: 'd8', score: 4 }]);
    expect(read).toEqual(['d9', 'd3', 'd8', 'd1', 'd0']); // stopped at the first score below the k-th
    expect(takeTopK(rows(), 0)).toEqual([]);
    expect(takeTopK(rows(), 10).map((r) => r.docId)).toEqual(['d9', 'd8', 'd3', 'd1', 'd0', 'd2']);
  });

  it('writes weights as plain decimals that FTS5 accepts and that parse back exactly', () => {
    expect(plainDecimal(1.1728067063273514e-7)).toBe('0.00000011728067063273514');
    expect(plainDecimal(1e21)).toBe('1000000000000000000000');
    expect(plainDecimal(1.5e22)).toBe('15000000000000000000000');
    expect(plainDecimal(2.5)).toBe('2.5');
    expect(plainDecimal(0)).toBe('0');
    expect(() => plainDecimal(-1)).toThrow(RangeError);
    const rng = createRng(5);
    for (let i = 0; i < 2000; i++) {
      const x = rng.nextFloat() * 10 ** (rng.nextInt(80) - 40);
      expect(Number(plainDecimal(x))).toBe(x);
    }
    // SQLite's parse of the rank function gives the same doubles as the bound bm25() weights.
    for (const w of [...WEIGHTS, { title: 5e-324, text: 1.7976931348623157e308 }, { title: 1 / 3, text: 0.1 }]) {
      const rows = ws.db
        .prepare(`SELECT rank, bm25(documents_fts, ?, ?) AS b FROM documents_fts WHERE documents_fts MATCH ? AND rank MATCH ? ORDER BY rank LIMIT 20`)
        .all(w.title, w.text, '"owl" OR "wren"', bm25RankFunction(w)) as { rank: number; b: number }[];
      expect(rows.length).toBe(20);
      for (const r of rows) expect(r.rank).toBe(r.b);
    }
  });
});
