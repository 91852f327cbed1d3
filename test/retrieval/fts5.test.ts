import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CollectionFtsIndex } from '../../src-main/retrieval/fts5/collectionIndex';
import { checkFtsIndex, searchFts } from '../../src-main/retrieval/fts5/ftsSearch';
import { queryTerms, toMatchExpression } from '../../src-main/retrieval/fts5/matchExpression';
import { markedToHtml } from '../../src-main/retrieval/fts5/snippetHtml';
import type { Workspace } from '../../src-main/store/workspace';
import { ZOO, addCollection, addDocuments, openTestWorkspace } from './fixture';

let ws: Workspace;
let zoo: number;
let other: number;

beforeEach(() => {
  ws = openTestWorkspace();
  zoo = addCollection(ws.db, 'zoo');
  other = addCollection(ws.db, 'other');
  addDocuments(ws.db, zoo, ZOO);
  addDocuments(ws.db, other, [{ docId: 'o1', title: 'Penguins', text: 'Emperor penguins.' }]);
});
afterEach(() => ws.close());

const search = (query: string, k = 10, collectionId = zoo, weights?: { title: number; text: number }) =>
  searchFts(ws.db, { collectionId, query, k, ...(weights ? { weights } : {}) });

describe('FTS5 BM25 search', () => {
  it('ranks by term frequency and length: "penguins" → z3 (tf 3 in 11 tokens) before z1 (tf 2 in 13)', () => {
    // Porter stems "penguins" and "penguin" alike. z3: title 1 + text 2 = 3 occurrences, 11 tokens;
    // z1: title 1 + text 1 = 2 occurrences, 13 tokens. Same idf, so higher tf and shorter length win.
    const { hits, terms } = search('penguins');
    expect(terms).toEqual(['penguins']);
    expect(hits.map((h) => h.docId)).toEqual(['z3', 'z1']);
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
    expect(hits.every((h) => h.score > 0)).toBe(true); // FTS5's bm25() is negative; negated here
    expect(hits.map((h) => h.rank)).toEqual([1, 2]);
  });

  it('"eagles hunt" → z2 (eagles ×3, hunt ×1) before z4 (hunt ×1); k truncates', () => {
    expect(search('eagles hunt').hits.map((h) => h.docId)).toEqual(['z2', 'z4']);
    expect(search('eagles hunt', 1).hits.map((h) => h.docId)).toEqual(['z2']);
  });

  it('filters by collection (the other collection has a penguin document too)', () => {
    expect(search('penguins', 10, other).hits.map((h) => h.docId)).toEqual(['o1']);
    expect(search('penguins').hits.some((h) => h.docId === 'o1')).toBe(false);
  });

  it('field weights multiply term frequencies per column', () => {
    // "birds" is in z5's title and text but only in the text of z1 and z2.
    const titleHeavy = search('birds', 10, zoo, { title: 10, text: 1 }).hits;
    const titleOff = search('birds', 10, zoo, { title: 0, text: 1 }).hits;
    expect(titleHeavy[0]!.docId).toBe('z5');
    const z5 = (hits: typeof titleOff) => hits.find((h) => h.docId === 'z5')!.score;
    expect(z5(titleHeavy)).toBeGreaterThan(z5(titleOff));
    expect(() => search('birds', 10, zoo, { title: -1, text: 1 })).toThrow(/weight/);
  });

  it('snippets mark the matched terms and escape the document HTML', () => {
    const z5 = search('birds bees').hits.find((h) => h.docId === 'z5')!;
    expect(z5.titleHtml).toBe('&lt;script&gt;alert(1)&lt;/script&gt; <mark>Birds</mark> &amp; <mark>bees</mark>');
    expect(z5.snippetHtml).toBe('<mark>Bees</mark> pollinate flowers; <mark>birds</mark> eat <mark>bees</mark> sometimes.');
    expect(z5.title).toBe('<script>alert(1)</script> Birds & bees');
    const z3 = search('penguins').hits[0]!;
    expect(z3.snippetHtml).toContain('<mark>penguins</mark>');
    expect(z3.titleHtml).toBe('<mark>Penguin</mark> colonies');
  });

  it('long texts are cut with an ellipsis around the match', () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`);
    words[120] = 'needle';
    addDocuments(ws.db, zoo, [{ docId: 'long', text: words.join(' ') }]);
    const hit = searchFts(ws.db, { collectionId: zoo, query: 'needle', k: 1, snippetTokens: 8 }).hits[0]!;
    expect(hit.snippetHtml).toMatch(/^….*<mark>needle<\/mark>.*…$/);
  });

  it('odd user input never reaches FTS5 as syntax and never throws', () => {
    const odd = ['', '   ', '"', '""', '"penguins', 'AND', 'penguins AND', 'OR OR', 'NOT', '*', 'pengu*', 'NEAR(', 'NEAR(penguins eagles, 2)',
      'title:penguins', '-penguins', '^penguins', '(', ')', "'", '{title}: x', 'a + b', '\u0000', '🐧 penguins', 'ÉAGLES', 'x'.repeat(5000),
      Array.from({ length: 3000 }, (_, i) => `t${i}`).join(' ')];
    for (const q of odd) expect(() => search(q), q.slice(0, 20)).not.toThrow();
    expect(search('').hits).toEqual([]);
    expect(search('*').hits).toEqual([]);
    expect(search('NEAR(penguins eagles, 2)').hits.map((h) => h.docId).sort()).toEqual(['z1', 'z2', 'z3']); // plain OR of the words
    expect(search('"penguins').hits.map((h) => h.docId)).toEqual(['z3', 'z1']);
    expect(search('title:penguins').hits.length).toBeGreaterThan(0); // "title" is a word here, not a column filter
    expect(search('ÉAGLES').hits.map((h) => h.docId)).toEqual(['z2']); // case and diacritics folded
  });

  it('the index follows inserts, updates, deletes and cascades (triggers)', () => {
    ws.db.prepare(`UPDATE documents SET text = 'Now about albatrosses.' WHERE doc_id = 'z4'`).run();
    expect(search('albatross').hits.map((h) => h.docId)).toEqual(['z4']);
    expect(search('fennec').hits).toEqual([]);
    ws.db.prepare(`INSERT INTO documents(collection_id, doc_id, title, text) VALUES (?, 'z4', 'x', 'upserted quokka') ON CONFLICT(collection_id, doc_id) DO UPDATE SET text = excluded.text`).run(zoo);
    expect(search('quokka').hits.map((h) => h.docId)).toEqual(['z4']);
    ws.db.prepare(`DELETE FROM documents WHERE doc_id = 'z3'`).run();
    expect(search('penguins').hits.map((h) => h.docId)).toEqual(['z1']);
    ws.db.prepare(`DELETE FROM collections WHERE id = ?`).run(other);
    expect(search('emperor', 10, other).hits).toEqual([]);
    expect(() => checkFtsIndex(ws.db)).not.toThrow();
  });
});

describe('per-collection index for runs', () => {
  it('scores depend on the collection only, and equal documents_fts when the workspace holds one collection', () => {
    const index = CollectionFtsIndex.build(ws.db, zoo);
    const before = index.search('penguins birds', 10);
    index.drop();
    expect(before.map((h) => h.docId)).toEqual(['z3', 'z1', 'z5', 'z2']);

    // More documents in ANOTHER collection change documents_fts statistics but not the run index.
    addDocuments(ws.db, other, Array.from({ length: 20 }, (_, i) => ({ docId: `p${i}`, text: 'penguins penguins birds' })));
    const again = CollectionFtsIndex.build(ws.db, zoo);
    expect(again.search('penguins birds', 10)).toEqual(before);
    expect(again.documents).toBe(5);
    again.drop();
    const shared = search('penguins birds').hits;
    expect(shared.find((h) => h.docId === 'z3')!.score).not.toBeCloseTo(before.find((h) => h.docId === 'z3')!.score, 6);

    // Alone in a workspace, the run index and documents_fts give identical scores.
    const solo = openTestWorkspace();
    try {
      const c = addCollection(solo.db, 'zoo');
      addDocuments(solo.db, c, ZOO);
      const idx = CollectionFtsIndex.build(solo.db, c);
      const fromIndex = idx.search('penguins birds', 10);
      idx.drop();
      const fromFts = searchFts(solo.db, { collectionId: c, query: 'penguins birds', k: 10 }).hits;
      expect(fromIndex.map((h) => h.docId)).toEqual(fromFts.map((h) => h.docId));
      fromIndex.forEach((h, i) => expect(h.score).toBeCloseTo(fromFts[i]!.score, 12));
    } finally {
      solo.close();
    }
  });

  it('drops its temp table', () => {
    const idx = CollectionFtsIndex.build(ws.db, zoo);
    idx.drop();
    expect(ws.db.prepare(`SELECT count(*) AS n FROM temp.sqlite_master WHERE name LIKE 'retrieval_fts_%' AND type = 'table'`).get()).toEqual({ n: 0 });
    expect(() => idx.search('x', 1)).toThrow(/dropped/);
  });
});

describe('query sanitising and snippet HTML (pure)', () => {
  it('quotes every term and ORs them', () => {
    expect(queryTerms('"Hello" AND w*rld (NEAR)')).toEqual(['Hello', 'AND', 'w', 'rld', 'NEAR']);
    expect(toMatchExpression(['a', 'AND'])).toBe('"a" OR "AND"');
    expect(toMatchExpression([])).toBeNull();
  });
  it('balances marks and escapes everything else', () => {
    expect(markedToHtml('a \u0002<b>\u0003 & "c"')).toBe('a <mark>&lt;b&gt;</mark> &amp; &quot;c&quot;');
    expect(markedToHtml('\u0003x\u0002y')).toBe('x<mark>y</mark>');
    expect(markedToHtml("it's")).toBe('it&#39;s');
  });
});
