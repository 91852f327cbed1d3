import { describe, expect, it } from 'vitest';
import { pltrdyAverage, pltrdyRouge, pltrdyRougeMulti, pltrdySentences } from '../../../src-main/core/text/pltrdyRouge';
import { rougeScore } from '../../../src-main/core/text/rougeScore';

/** pltrdy's F, F = 2·((P·R)/(P+R+1e−8)), computed the same way for expected values. */
const f = (p: number, r: number) => 2.0 * ((p * r) / (p + r + 1e-8));

describe('pltrdySentences', () => {
  it.each([
    ['Hello world. Bye', ['Hello world', 'Bye']],
    ['a.  b  c . .', ['a', 'b c', '']], // collapse whitespace AFTER the length filter: " " survives as ""
    ['. .', ['']],
    ['', []],
    ['...', []],
    ['no dot', ['no dot']],
    ['x\u0085y\ufeffz', ['x y\ufeffz']], // Python whitespace: NEL splits, BOM does not
  ])('%j -> %j', (text, sentences) => {
    expect(pltrdySentences(text)).toEqual(sentences);
  });
});

describe('pltrdyRouge (pltrdy rouge 1.0.1 semantics)', () => {
  it('differs from rouge-score on the rouge.md headline pair (0.400 vs 0.727)', () => {
    // words: Hello, world! It's a test | hello world its a test: only "a" and "test" match
    // (case and attached punctuation), 2 of 5 distinct each way -> P = R = 0.4
    const pl = pltrdyRouge('rouge-1', "Hello, world! It's a test.", 'hello world its a test');
    expect(pl).toEqual({ precision: 0.4, recall: 0.4, f: f(0.4, 0.4) });
    expect(pl.f).toBeCloseTo(0.4, 7);
    const rs = rougeScore('rouge1', "Hello, world! It's a test.", 'hello world its a test');
    expect(rs.f).toBeCloseTo(8 / 11, 15); // 0.727
  });

  it('is case-sensitive', () => {
    // {The, cat} vs {the, cat}: 1 of 2 each way
    expect(pltrdyRouge('rouge-1', 'The cat', 'the cat')).toEqual({ precision: 0.5, recall: 0.5, f: f(0.5, 0.5) });
  });

  it('gives identical texts F = 0.999999995, not 1 (the 1e-8 in the denominator)', () => {
    const s = pltrdyRouge('rouge-l', 'the cat sat', 'the cat sat');
    expect(s.precision).toBe(1);
    expect(s.recall).toBe(1);
    expect(s.f).toBe(2 / (2 + 1e-8));
    expect(s.f).toBeLessThan(1);
  });

  it('counts distinct n-grams (sets), unlike rouge-score', () => {
    // {the} vs {the, cat}: P 1/1, R 1/2 (rouge-score with counts: P 1/4, R 1/2)
    expect(pltrdyRouge('rouge-1', 'the the the the', 'the cat')).toEqual({ precision: 1, recall: 0.5, f: f(1, 0.5) });
    // rouge-l: m = |{the, cat}| = 2, n = |{the}| = 1, LCS tokens {the} -> R 1/2, P 1
    expect(pltrdyRouge('rouge-l', 'the the the the', 'the cat')).toEqual({ precision: 1, recall: 0.5, f: f(1, 0.5) });
    // rouge-l on distinct words: "a b a b" vs "a b": LCS set {a, b}, m = n = 2 -> 1, 1
    // (rouge-score rougeL: LCS 2 of 4 predicted tokens -> P 1/2)
    expect(pltrdyRouge('rouge-l', 'a b a b', 'a b').precision).toBe(1);
    expect(rougeScore('rougeL', 'a b a b', 'a b').precision).toBe(0.5);
  });

  it("splits sentences at '.', yet bigrams run across sentence boundaries", () => {
    // "a b. c d" -> words a b c d -> bigrams {a b, b c, c d}, the same as "a b c d"
    expect(pltrdyRouge('rouge-2', 'a b. c d', 'a b c d')).toEqual({ precision: 1, recall: 1, f: f(1, 1) });
    // one word has no bigram: P = 0 (guarded division), R = 0
    expect(pltrdyRouge('rouge-2', 'a', 'a b')).toEqual({ precision: 0, recall: 0, f: 0 });
  });

  it('keeps the empty-string word that ". ." produces', () => {
    // ". ." -> sentences [""] -> words [""]; against itself the one unigram "" matches
    expect(pltrdyRouge('rouge-1', '. .', '. .')).toEqual({ precision: 1, recall: 1, f: f(1, 1) });
    expect(pltrdyRouge('rouge-1', '. .', 'x')).toEqual({ precision: 0, recall: 0, f: 0 });
  });

  it('keeps CJK runs as single words (no tokenizer), where rouge-score sees nothing', () => {
    expect(pltrdyRouge('rouge-1', '北京大学', '北京大学')).toEqual({ precision: 1, recall: 1, f: f(1, 1) });
    expect(rougeScore('rouge1', '北京大学', '北京大学').f).toBe(0);
    // no spaces, so "北京大学很好" is one different word
    expect(pltrdyRouge('rouge-1', '北京大学很好', '北京大学').f).toBe(0);
    // accents kept: café ≠ cafe, but café = café
    expect(pltrdyRouge('rouge-1', 'café', 'café').precision).toBe(1);
    expect(pltrdyRouge('rouge-1', 'café', 'cafe').precision).toBe(0);
  });

  it('returns 0 where pltrdy raises on an empty text (RichRAG wrapper semantics)', () => {
    for (const t of ['rouge-1', 'rouge-2', 'rouge-l'] as const) {
      expect(pltrdyRouge(t, '', 'a b')).toEqual({ precision: 0, recall: 0, f: 0 });
      expect(pltrdyRouge(t, 'a b', '...')).toEqual({ precision: 0, recall: 0, f: 0 });
      expect(pltrdyRouge(t, '', '')).toEqual({ precision: 0, recall: 0, f: 0 });
    }
  });

  it('forms the summary-level union from LCS tokens read out with pltrdy\'s tie-break', () => {
    // ref sentence x = [a, b]; hyp sentences [b, a] and [b]. LCS(x, [b a]) has length 1 and two
    // candidates; pltrdy's read-out goes left on the tie at (2,2) and returns [b]. LCS(x, [b]) = [b].
    // Union {b}: llcs 1, m = n = 2 -> P = R = 1/2. (Going up on ties would give [a] and union
    // {a, b} -> P = R = 1.)
    expect(pltrdyRouge('rouge-l', 'b a. b', 'a b')).toEqual({ precision: 0.5, recall: 0.5, f: f(0.5, 0.5) });
  });

  it('unions LCS tokens over every (reference sentence, hypothesis sentence) pair', () => {
    // Lin's example with '.' as the separator: union {w1 w2 w3 w5}; m = 5 distinct reference
    // words, n = |{w1 w2 w6 w7 w8 w3 w9 w5}| = 8 distinct hypothesis words -> R 4/5, P 4/8
    const s = pltrdyRouge('rouge-l', 'w1 w2 w6 w7 w8. w1 w3 w8 w9 w5', 'w1 w2 w3 w4 w5');
    expect(s).toEqual({ precision: 0.5, recall: 0.8, f: f(0.5, 0.8) });
  });

  it('handles long sentences where pltrdy\'s recursive read-out would overflow', () => {
    const words = Array.from({ length: 1500 }, (_, i) => `w${i % 50}`).join(' ');
    // identical 1500-word texts: distinct words 50 each, LCS tokens cover all 50 -> P = R = 1
    expect(pltrdyRouge('rouge-l', words, words).recall).toBe(1);
  });
});

describe('pltrdyRougeMulti and pltrdyAverage', () => {
  it('keeps the reference with the highest F, first on ties', () => {
    // vs "the dog": {the} -> 1/2, 1/2; vs "the cat": 1, 1
    expect(pltrdyRougeMulti('rouge-1', 'the cat', ['the dog', 'the cat']).recall).toBe(1);
    // "a b" vs "a b c d": P 1, R 1/2; vs "a": P 1/2, R 1; equal F -> the first
    expect(pltrdyRougeMulti('rouge-1', 'a b', ['a b c d', 'a']).precision).toBe(1);
    expect(pltrdyRougeMulti('rouge-1', 'a b', ['a', 'a b c d']).precision).toBe(0.5);
  });

  it('averages P, R and F arithmetically, as get_scores(avg=True)', () => {
    const avg = pltrdyAverage([
      { precision: 1, recall: 0.5, f: 0.6 },
      { precision: 0, recall: 0.25, f: 0.2 },
    ]);
    expect(avg.precision).toBe(0.5);
    expect(avg.recall).toBe(0.375);
    expect(avg.f).toBeCloseTo(0.4, 15);
    expect(() => pltrdyAverage([])).toThrow(RangeError);
  });
});
