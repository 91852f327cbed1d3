/**
 * Snippets of long texts (over LONG_TEXT_CHARS) are picked from highlight()'s marks by
 * passageOfHighlighted instead of FTS5's snippet(), whose passage search is quadratic in the matches.
 * The passage is checked against a brute-force search over every window on random marked texts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LONG_TEXT_CHARS, searchFts } from '../../src-main/retrieval/fts5/ftsSearch';
import { MARK_CLOSE, MARK_OPEN, markedToHtml, markedWords, passageOfHighlighted, passageScore } from '../../src-main/retrieval/fts5/snippetHtml';
import type { Workspace } from '../../src-main/store/workspace';
import { addCollection, addDocuments, openTestWorkspace } from './fixture';

const O = MARK_OPEN;
const C = MARK_CLOSE;

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const strip = (s: string) => s.replace(/^…/, '').replace(/…$/, '').replaceAll(O, '').replaceAll(C, '');

describe('passageOfHighlighted', () => {
  it('takes the window with the most distinct matches, moved back so no match opens it (hand case)', () => {
    // Words 0..10; matches gamma (2, 7) and iota (9). With 4 words: from 2 one distinct match (1000),
    // from 7 two (2000). Moved back by 1 (a quarter of 4), the last match (9) still inside: words 6..9.
    const marked = `alpha beta ${O}gamma${C} delta epsilon zeta eta ${O}gamma${C} theta ${O}iota${C} kappa`;
    expect(markedToHtml(passageOfHighlighted(marked, 4))).toBe('…eta <mark>gamma</mark> theta <mark>iota</mark>…');
    // The whole text fits: no ellipsis.
    expect(markedToHtml(passageOfHighlighted(marked, 20))).toBe('alpha beta <mark>gamma</mark> delta epsilon zeta eta <mark>gamma</mark> theta <mark>iota</mark> kappa');
    // No match: the opening words.
    expect(passageOfHighlighted('one two three four five', 3)).toBe('one two three…');
    // A match in the first word: nothing before it to show.
    expect(markedToHtml(passageOfHighlighted(`${O}Bees${C} pollinate, flowers; bees fly.`, 3))).toBe('<mark>Bees</mark> pollinate, flowers…');
    // A phrase mark spanning words, cut inside it: the part kept stays marked (the earliest of equal windows).
    expect(markedToHtml(passageOfHighlighted(`a b c d e f g h ${O}new york city${C} i`, 2))).toBe('…<mark>new york</mark>…');
    expect(markedToHtml(passageOfHighlighted(`a b c d e f g h ${O}new york city${C} i`, 1))).toBe('…<mark>new</mark>…');
  });

  it('equals the best window of a brute-force search on random marked texts', () => {
    const seed = Number(process.env.FAIRGROUND_SEED ?? Date.now() % 1_000_000);
    console.log(`passageOfHighlighted property: seed ${seed} (FAIRGROUND_SEED replays)`);
    const r = rng(seed);
    const vocab = ['river', 'lamp', 'rank', 'model', 'fair', 'exposure', 'query', 'Ünïcode', '42', 'x'];
    for (let trial = 0; trial < 400; trial++) {
      const nWords = 1 + Math.floor(r() * 120);
      const parts: string[] = [];
      for (let i = 0; i < nWords; ) {
        const len = r() < 0.8 ? 1 : 2 + Math.floor(r() * 2);
        const words = Array.from({ length: Math.min(len, nWords - i) }, () => vocab[Math.floor(r() * vocab.length)]!);
        const sep = r() < 0.2 ? ', ' : ' ';
        parts.push(r() < 0.25 ? `${O}${words.join(' ')}${C}` : words.join(' '));
        parts.push(sep);
        i += words.length;
      }
      const marked = parts.join('').trimEnd();
      const n = 1 + Math.floor(r() * 30);
      const out = passageOfHighlighted(marked, n);
      const all = markedWords(marked);
      const got = markedWords(out);
      const context = `seed ${seed} trial ${trial}: n ${n} ${JSON.stringify(marked)} → ${JSON.stringify(out)}`;
      expect(got.length, context).toBeLessThanOrEqual(n);
      expect(got.length, context).toBe(Math.min(n, all.length));
      expect(strip(marked), context).toContain(strip(out));
      let brute = 0;
      for (let s = 0; s < all.length; s++) brute = Math.max(brute, passageScore(all, s, n));
      expect(passageScore(got, 0, n), context).toBe(brute);
      // An ellipsis where words were cut, on the side they were cut.
      expect(out.startsWith('…') || out.endsWith('…'), context).toBe(got.length < all.length);
      if (!out.startsWith('…')) expect(strip(marked).trimStart().startsWith(strip(out)), context).toBe(true);
    }
  });
});

describe('search snippets of long texts', () => {
  let ws: Workspace;
  let books: number;
  beforeEach(() => {
    ws = openTestWorkspace();
    books = addCollection(ws.db, 'books');
  });
  afterEach(() => ws.close());

  it('mark the passage with both query words in a text over the limit, as passageOfHighlighted picks it from highlight()', () => {
    const r = rng(7);
    const filler = ['river', 'lamp', 'rank', 'model', 'fair', 'query'];
    const words = Array.from({ length: 30_000 }, () => filler[Math.floor(r() * filler.length)]!);
    words[20_000] = 'needle';
    words[20_003] = 'haystack';
    words[5_000] = 'needle';
    const text = words.join(' ');
    expect(text.length).toBeGreaterThan(LONG_TEXT_CHARS);
    addDocuments(ws.db, books, [
      { docId: 'long', title: 'A needle', text },
      { docId: 'short', title: 'Short', text: 'a needle in a haystack' },
    ]);
    const hits = searchFts(ws.db, { collectionId: books, query: 'needle haystack', k: 2, snippetTokens: 8 }).hits;
    const long = hits.find((h) => h.docId === 'long')!;
    const expected = words.slice(19_998, 20_006).join(' ').replace('needle', '<mark>needle</mark>').replace('haystack', '<mark>haystack</mark>');
    expect(long.snippetHtml).toBe(`…${expected}…`);
    expect(long.titleHtml).toBe('A <mark>needle</mark>');
    // A short text keeps FTS5's own snippet().
    const short = hits.find((h) => h.docId === 'short')!;
    const own = ws.db.prepare(`SELECT snippet(documents_fts, 1, char(2), char(3), '…', 8) FROM documents_fts WHERE documents_fts MATCH ? AND rowid = ?`).pluck().get('"needle" OR "haystack"', BigInt(short.documentId)) as string;
    expect(short.snippetHtml).toBe(markedToHtml(own));
    expect(short.snippetHtml).toBe('a <mark>needle</mark> in a <mark>haystack</mark>');
  });
});
