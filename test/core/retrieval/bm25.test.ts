import { describe, expect, it } from 'vitest';
import { bm25Scores, buildBm25Corpus, idfTable, idfWeight, scoreBm25, DEFAULT_BM25_PARAMS } from '../../../src-main/core/retrieval/bm25';
import { FAIR_RAG_TOKENIZER, tokenize } from '../../../src-main/core/retrieval/tokenizer';

/*
 * Hand computation shared by the tests below.
 *
 * Candidate set (default tokenizer: lower-case words), N = 5:
 *   d1 "the cat sat on the mat"  |D| = 6   the×2 cat sat on mat
 *   d2 "the dog chased the cat"  |D| = 5   the×2 dog chased cat
 *   d3 "a cat"                   |D| = 2
 *   d4 "the end"                 |D| = 2
 *   d5 "birds sing"              |D| = 2
 * avgdl = (6 + 5 + 2 + 2 + 2)/5 = 17/5 = 3.4
 * document frequencies: the 3, cat 3, every other term (sat on mat dog chased a end birds sing) 1;
 * vocabulary = 11 distinct terms.
 *
 * Robertson idf:  n = 3: ln(2.5/3.5) = −0.3364722366;  n = 1: ln(4.5/1.5) = ln 3 = 1.0986122887
 * Lucene idf:     n = 3: ln(1 + 2.5/3.5) = ln(12/7) = 0.5389965007;  n = 1: ln 4 = 1.3862943611
 * rank_bm25 idf:  mean of the 11 Robertson weights = (2·(−0.3364722366) + 9·1.0986122887)/11 = 0.8376878295,
 *                 negative ones (the, cat) → 0.25 · 0.8376878295 = 0.2094219574
 *
 * k1 = 1.5, b = 0.75: K(D) = k1·(1 − b + b·|D|/avgdl)
 *   K(d1) = 1.5·(0.25 + 0.75·6/3.4) = 2.3602941176,  K(d2) = 1.5·(0.25 + 0.75·5/3.4) = 2.0294117647,
 *   K(d3..d5) = 1.5·(0.25 + 0.75·2/3.4) = 1.0367647059
 * tf part T(tf, D) = tf·2.5/(tf + K(D)):
 *   T(1,d1) = 2.5/3.3602941176 = 0.7439824945   T(2,d1) = 5/4.3602941176 = 1.1467116526
 *   T(1,d2) = 2.5/3.0294117647 = 0.8252427184   T(2,d2) = 5/4.0294117647 = 1.2408759124
 *   T(1,d3) = 2.5/2.0367647059 = 1.2274368231   (same for d4, d5)
 *
 * Query "cat dog" (rank_bm25 idf):
 *   d1 = 0.2094219574·0.7439824945 = 0.1558062703
 *   d2 = 0.2094219574·0.8252427184 + 1.0986122887·0.8252427184 = 1.0794457370
 *   d3 = 0.2094219574·1.2274368231 = 0.2570522221,  d4 = d5 = 0
 * These equal rank_bm25 0.2.2 BM25Okapi(corpus).get_scores(query.split()) (checked in Python:
 * 0.15580627026168645, 1.0794457370309418, 0.25705222205628414, 0, 0).
 */
const DOCS = ['the cat sat on the mat', 'the dog chased the cat', 'a cat', 'the end', 'birds sing'];
const LN3 = Math.log(3);
const ROB3 = Math.log(2.5 / 3.5);
const K = [1.5 * (0.25 + (0.75 * 6) / 3.4), 1.5 * (0.25 + (0.75 * 5) / 3.4), 1.5 * (0.25 + (0.75 * 2) / 3.4)] as const;
const T = (tf: number, k: number) => (tf * 2.5) / (tf + k);
const MEAN = (2 * ROB3 + 9 * LN3) / 11;
const FLOOR = 0.25 * MEAN;

function expectClose(actual: number[], expected: number[], tol = 1e-9): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((v, i) => expect(Math.abs(v - expected[i]!), `doc ${i + 1}: ${v} vs ${expected[i]}`).toBeLessThanOrEqual(tol));
}

describe('BM25 (Okapi) over a candidate set', () => {
  it('rank_bm25 variant equals the hand computation and rank_bm25 itself', () => {
    const s = bm25Scores('cat dog', DOCS);
    expectClose(s, [FLOOR * T(1, K[0]), FLOOR * T(1, K[1]) + LN3 * T(1, K[1]), FLOOR * T(1, K[2]), 0, 0]);
    expectClose(s, [0.15580627026168645, 1.0794457370309418, 0.25705222205628414, 0, 0], 1e-12);
    expect(MEAN).toBeCloseTo(0.8376878295245965, 12);
  });

  it('counts a repeated query term once per occurrence and tf=2 saturates (rank_bm25: "the the cat")', () => {
    // d1: 2·FLOOR·T(2,d1) + FLOOR·T(1,d1); d4: 2·FLOOR·T(1,d4); d3: FLOOR·T(1,d3)
    const s = bm25Scores('the the cat', DOCS);
    expectClose(s, [
      2 * FLOOR * T(2, K[0]) + FLOOR * T(1, K[0]),
      2 * FLOOR * T(2, K[1]) + FLOOR * T(1, K[1]),
      FLOOR * T(1, K[2]),
      2 * FLOOR * T(1, K[2]),
      0,
    ]);
    expectClose(s, [0.6360994608828717, 0.6925572702991514, 0.25705222205628414, 0.5141044441125683, 0], 1e-12);
  });

  it('robertson idf is negative for terms in more than half of the documents', () => {
    expect(idfWeight(3, 5, 'robertson')).toBeCloseTo(ROB3, 14);
    expect(ROB3).toBeLessThan(0);
    const s = bm25Scores('cat dog', DOCS, { params: { idf: 'robertson' } });
    // d1 = −0.3364722366·0.7439824945 = −0.2503295, d2 = (−0.3364722366 + 1.0986122887)·0.8252427184 = 0.6289513, d3 = −0.4129947
    expectClose(s, [ROB3 * T(1, K[0]), (ROB3 + LN3) * T(1, K[1]), ROB3 * T(1, K[2]), 0, 0]);
    expect(s[0]).toBeLessThan(0);
    expect(s[0]).toBeCloseTo(-0.2503295, 6);
  });

  it('lucene idf log(1 + (N − n + 0.5)/(n + 0.5)) is always positive', () => {
    const L3 = Math.log(12 / 7);
    const L1 = Math.log(4);
    expect(idfWeight(3, 5, 'lucene')).toBeCloseTo(0.5389965007, 9);
    expect(idfWeight(5, 5, 'lucene')).toBeGreaterThan(0);
    const s = bm25Scores('cat dog', DOCS, { params: { idf: 'lucene' } });
    // d2 = (0.5389965007 + 1.3862943611)·0.8252427184 = 1.9252908618·0.8252427184 = 1.5888323
    expectClose(s, [L3 * T(1, K[0]), (L3 + L1) * T(1, K[1]), L3 * T(1, K[2]), 0, 0]);
    expect(s[1]).toBeCloseTo(1.5888323, 6);
  });

  it('rank_bm25 floors only negative weights, with epsilon × the mean over the whole vocabulary', () => {
    const corpus = buildBm25Corpus(DOCS.map((d) => tokenize(d)));
    const table = idfTable(corpus, { idf: 'rank_bm25', epsilon: 0.25 });
    expect(table.size).toBe(11);
    expect(table.get('the')).toBeCloseTo(0.20942195738114913, 14);
    expect(table.get('sat')).toBeCloseTo(LN3, 14);
    const custom = idfTable(corpus, { idf: 'rank_bm25', epsilon: 0.5 });
    expect(custom.get('cat')).toBeCloseTo(0.5 * MEAN, 14);
    // n = N/2 gives exactly 0, which rank_bm25 leaves alone (its test is `idf < 0`)
    const even = buildBm25Corpus([['x'], ['x'], ['y'], ['z']]);
    expect(idfTable(even, { idf: 'rank_bm25', epsilon: 0.25 }).get('x')).toBe(0);
    // when most terms are common the mean is negative and so is the "floor" (as in rank_bm25)
    const common = buildBm25Corpus([['a', 'b'], ['a', 'b'], ['a', 'c']]);
    const t = idfTable(common, { idf: 'rank_bm25', epsilon: 0.25 });
    const m = (Math.log(0.5 / 3.5) + Math.log(1.5 / 2.5) + Math.log(2.5 / 1.5)) / 3;
    expect(m).toBeLessThan(0);
    expect(t.get('a')).toBeCloseTo(0.25 * m, 14);
    expect(t.get('b')).toBeCloseTo(0.25 * m, 14);
    expect(t.get('c')).toBeCloseTo(Math.log(2.5 / 1.5), 14);
  });

  it('k1 = 0 scores term presence only (and 0, not NaN, where the term is missing)', () => {
    // T = tf·1/(tf + 0) = 1 for tf > 0: d2 = FLOOR + ln 3 (rank_bm25 gives NaN for d1, d3..d5)
    const s = bm25Scores('cat dog the', DOCS, { params: { k1: 0 } });
    expectClose(s, [2 * FLOOR, 2 * FLOOR + LN3, FLOOR, FLOOR, 0]);
    expect(s.every(Number.isFinite)).toBe(true);
  });

  it('b = 0 turns length normalisation off: T = tf·(k1 + 1)/(tf + k1)', () => {
    // "the cat": d1 = FLOOR·(2·2.5/3.5) + FLOOR·(2.5/2.5) = 0.5085961822 (rank_bm25 b=0 agrees)
    const s = bm25Scores('the cat', DOCS, { params: { b: 0 } });
    expectClose(s, [FLOOR * (5 / 3.5) + FLOOR, FLOOR * (5 / 3.5) + FLOOR, FLOOR, FLOOR, 0]);
    expectClose(s, [0.5085961822113622, 0.5085961822113622, 0.20942195738114913, 0.20942195738114913, 0], 1e-12);
  });

  it('b = 1 normalises fully: K(D) = k1·|D|/avgdl', () => {
    const s = bm25Scores('dog', DOCS, { params: { b: 1, idf: 'robertson' } });
    expectClose(s, [0, LN3 * (2.5 / (1 + (1.5 * 5) / 3.4)), 0, 0, 0]);
  });

  it('an empty query and a term absent from every document score 0', () => {
    expect(bm25Scores('', DOCS)).toEqual([0, 0, 0, 0, 0]);
    expect(bm25Scores('  ...  ', DOCS)).toEqual([0, 0, 0, 0, 0]);
    for (const idf of ['robertson', 'lucene', 'rank_bm25'] as const) {
      expect(bm25Scores('zebra', DOCS, { params: { idf } })).toEqual([0, 0, 0, 0, 0]);
      expectClose(bm25Scores('cat zebra', DOCS, { params: { idf } }), bm25Scores('cat', DOCS, { params: { idf } }), 0);
    }
  });

  it('degenerate sets: no documents, only empty documents', () => {
    expect(bm25Scores('cat', [])).toEqual([]);
    expect(bm25Scores('cat', ['', '  '])).toEqual([0, 0]);
  });

  it('uses the Fair-RAG tokenizer when asked: whitespace split, case-sensitive', () => {
    expect(tokenize('The cat.  Cat\u00a0sat', FAIR_RAG_TOKENIZER)).toEqual(['The', 'cat.', 'Cat', 'sat']);
    const docs = ['The cat.', 'the cat', 'a dog'];
    const s = bm25Scores('cat', docs, { tokenizer: FAIR_RAG_TOKENIZER });
    expect(s[0]).toBe(0); // "cat." ≠ "cat"
    expect(s[1]).toBeGreaterThan(0); // n = 1 of N = 3: ln(2.5/1.5) > 0
    expect(bm25Scores('cat', docs)[0]).toBeCloseTo(bm25Scores('cat', docs)[1]!, 14);
  });

  it('scoreBm25 with a prebuilt corpus equals bm25Scores', () => {
    const corpus = buildBm25Corpus(DOCS.map((d) => tokenize(d)));
    const idf = idfTable(corpus, DEFAULT_BM25_PARAMS);
    expect(scoreBm25(corpus, idf, ['cat', 'dog'], DEFAULT_BM25_PARAMS)).toEqual(bm25Scores('cat dog', DOCS));
  });

  it('rejects impossible parameters', () => {
    expect(() => bm25Scores('a', DOCS, { params: { k1: -1 } })).toThrow(/k1/);
    expect(() => bm25Scores('a', DOCS, { params: { b: 1.5 } })).toThrow(/b must/);
    expect(() => bm25Scores('a', DOCS, { params: { idf: 'bm25+' as never } })).toThrow(/idf/);
  });
});

describe('tokenizer', () => {
  it('default: lower-case runs of letters, digits and marks', () => {
    expect(tokenize("Don't stop-words! Café 42x ÉTÉ")).toEqual(['don', 't', 'stop', 'words', 'café', '42x', 'été']);
    expect(tokenize('')).toEqual([]);
  });
  it('stop words and a stemmer are applied only when given', () => {
    const stem = (t: string) => t.replace(/s$/, '');
    expect(tokenize('The cats and the dogs', { stopwords: new Set(['the', 'and']), stem })).toEqual(['cat', 'dog']);
    expect(tokenize('The cats')).toEqual(['the', 'cats']);
  });
});
