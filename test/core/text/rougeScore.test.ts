import { describe, expect, it } from 'vitest';
import { rougeScore, rougeScoreMulti, type RougeScoreType } from '../../../src-main/core/text/rougeScore';
import { rougeScoreTokenize } from '../../../src-main/core/text/rougeScoreTokenizer';
import { DataError } from '../../../src-main/core/errors';

describe('rougeScoreTokenize (rouge-score default tokenizer)', () => {
  it.each([
    ['Hello, world! It\'s a test.', ['hello', 'world', 'it', 's', 'a', 'test']],
    ['café au lait', ['caf', 'au', 'lait']], // é is not [a-z0-9]: a separator
    ['3.5 million', ['3', '5', 'million']],
    ['state-of-the-art', ['state', 'of', 'the', 'art']],
    ["don't", ['don', 't']],
    ['snake_case', ['snake', 'case']],
    ['北京大学 ２０２４', []], // CJK and full-width digits vanish
    ['\u212A', ['k']], // KELVIN SIGN lower-cases to ASCII k
    ['İstanbul', ['i', 'stanbul']], // İ -> i + U+0307; the combining dot separates
    ['  \n\t ', []],
    ['', []],
  ])('%j -> %j', (text, tokens) => {
    expect(rougeScoreTokenize(text, false)).toEqual(tokens);
  });

  it('stems only tokens longer than 3 characters', () => {
    // "runs"(4) -> run, "cats"(4) -> cat; "was"/"bus"(3) untouched although the stemmer would give
    // "wa"/"bu"; "1990s" -> "1990".
    expect(rougeScoreTokenize('Cats was running; bus runs 1990s', true)).toEqual(['cat', 'was', 'run', 'bus', 'run', '1990']);
  });
});

const score = (type: RougeScoreType, prediction: string, reference: string, stem = false) =>
  rougeScore(type, prediction, reference, { stem });

describe('rougeScore (Google rouge-score 0.1.2 semantics)', () => {
  it('matches the worked examples of rouge-score\'s own tests', () => {
    // target "testing one two", prediction "testing": 1 of 1 predicted unigrams, 1 of 3 target ones.
    expect(score('rouge1', 'testing', 'testing one two')).toEqual({ precision: 1, recall: 1 / 3, f: 0.5 });
    // bigrams: prediction {testing one}, target {testing one, one two}: P 1, R 1/2, F 2/3
    const r2 = score('rouge2', 'testing one', 'testing one two');
    expect(r2.precision).toBe(1);
    expect(r2.recall).toBe(0.5);
    expect(r2.f).toBeCloseTo(2 / 3, 15);
    // LCS("testing two", "testing one two") = 2 (non-consecutive): P 1, R 2/3, F 0.8
    const rl = score('rougeL', 'testing two', 'testing one two');
    expect(rl.precision).toBe(1);
    expect(rl.recall).toBeCloseTo(2 / 3, 15);
    expect(rl.f).toBeCloseTo(0.8, 15);
  });

  it('ignores case and punctuation (the rouge.md headline pair)', () => {
    // reference tokens: hello world it s a test (6); prediction: hello world its a test (5).
    // Common unigrams: hello world a test = 4 -> P 4/5, R 4/6, F = 2·0.8·(2/3)/(0.8+2/3) = 8/11.
    const s = score('rouge1', 'hello world its a test', "Hello, world! It's a test.");
    expect(s.precision).toBe(0.8);
    expect(s.recall).toBeCloseTo(2 / 3, 15);
    expect(s.f).toBeCloseTo(8 / 11, 15);
  });

  it('counts repeated tokens as a multiset', () => {
    // prediction {the:4}, reference {the:1, cat:1}: overlap min(4,1) = 1 -> P 1/4, R 1/2, F 1/3
    const s = score('rouge1', 'the the the the', 'the cat');
    expect(s.precision).toBe(0.25);
    expect(s.recall).toBe(0.5);
    expect(s.f).toBeCloseTo(1 / 3, 15);
    // bigrams: 3×"the the" vs 1×"the cat": no overlap
    expect(score('rouge2', 'the the the the', 'the cat')).toEqual({ precision: 0, recall: 0, f: 0 });
  });

  it('splits digits at punctuation', () => {
    // "3.5 million" -> 3 5 million; "35 million" -> 35 million: overlap 1 -> P 1/3, R 1/2, F 0.4
    const s = score('rouge1', '3.5 million', '35 million');
    expect(s.precision).toBeCloseTo(1 / 3, 15);
    expect(s.recall).toBe(0.5);
    expect(s.f).toBeCloseTo(0.4, 15);
  });

  it('drops accented letters and CJK, so non-English text scores near zero', () => {
    // "café" -> "caf", "cafe" -> "cafe": nothing in common
    expect(score('rouge1', 'café', 'cafe').f).toBe(0);
    // both sides lose the é the same way: caf au lait = caf au lait
    expect(score('rouge1', 'café au lait', 'caf au lait').f).toBe(1);
    // identical Chinese text has no tokens at all
    for (const t of ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const) {
      expect(score(t, '北京大学', '北京大学')).toEqual({ precision: 0, recall: 0, f: 0 });
    }
    // KELVIN SIGN becomes k
    expect(score('rouge1', '\u212A', 'k').f).toBe(1);
  });

  it('scores empty and token-less texts 0 for every type', () => {
    for (const t of ['rouge1', 'rouge2', 'rougeL', 'rougeLsum'] as const) {
      expect(score(t, '', '')).toEqual({ precision: 0, recall: 0, f: 0 });
      expect(score(t, 'testing one two', '')).toEqual({ precision: 0, recall: 0, f: 0 });
      expect(score(t, '', 'testing one two')).toEqual({ precision: 0, recall: 0, f: 0 });
      expect(score(t, '/', 'w1 w2')).toEqual({ precision: 0, recall: 0, f: 0 });
    }
    // A one-token text has no bigram: rouge2 P and R both 0 (divisions by max(count, 1)).
    expect(score('rouge2', 'a', 'a')).toEqual({ precision: 0, recall: 0, f: 0 });
  });

  it('stems only when asked', () => {
    // no stemming: {the, cats, were, running} vs {a, cat, runs}: nothing in common
    expect(score('rouge1', 'The cats were running', 'A cat runs').f).toBe(0);
    // stemming: the cat were run vs a cat run ("were" stays: 5a keeps e after c-v-c "wer"):
    // overlap {cat, run} = 2 -> P 2/4, R 2/3, F = 2·(1/2)(2/3)/(7/6) = 4/7
    const s = score('rouge1', 'The cats were running', 'A cat runs', true);
    expect(s.precision).toBe(0.5);
    expect(s.recall).toBeCloseTo(2 / 3, 15);
    expect(s.f).toBeCloseTo(4 / 7, 15);
  });

  it('reproduces ROUGE-1.5.5 on rouge-score\'s test pair, with and without stemming', () => {
    // Second line of rouge-score's testdata/{prediction,target}.txt; expected values are the
    // ROUGE-1.5.5 runs quoted in its rouge_scorer_test.py (5 decimals).
    const prediction =
      "n cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMer pstion sbKao Q m qier LMmed HqqLFXe,XPY,J XsurkMeo ,ed nB'wH'bWVHjWFEer tQ.saefZwJtKrTlixYpMMNJtion UCAPwNHeYVjD\n";
    const target =
      "KsJdPByEtAor fE-Qg Dpdbring cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMtion psing sbKao Q m qiing LMmer HqqLFXe,XPY,J XsurkMer ,ed nB'wH'bWVHjWFEing tQ.saefZwJtKrTlixYpMMsJing UCAPwNHeYVjDing c T BUySKtion gMPfJpwGw p'NvxAoping eu pBwMBKV'I DNxqelhu,PHPxDEq,mtion SN\n";
    const plain = score('rouge1', prediction, target);
    expect(plain.recall).toBeCloseTo(0.40476, 5);
    expect(plain.precision).toBeCloseTo(0.65385, 5);
    expect(plain.f).toBeCloseTo(0.5, 5);
    const stemmed = score('rouge1', prediction, target, true);
    expect(stemmed.recall).toBeCloseTo(0.42857, 5);
    expect(stemmed.precision).toBeCloseTo(0.69231, 5);
    expect(stemmed.f).toBeCloseTo(0.52941, 5);
    const r2 = score('rouge2', prediction, target);
    expect(r2.recall).toBeCloseTo(0.29268, 5);
    expect(r2.precision).toBeCloseTo(0.48, 5);
  });
});

describe('rougeLsum (summary-level union LCS)', () => {
  it('reproduces Lin (2004) §3.2: union of LCS positions across prediction sentences', () => {
    // r = w1..w5; c1 = w1 w2 w6 w7 w8 (LCS w1 w2), c2 = w1 w3 w8 w9 w5 (LCS w1 w3 w5);
    // union {w1 w2 w3 w5} = 4 hits -> R 4/5, P 4/10, F = 2·0.4·0.8/1.2 = 8/15
    const s = score('rougeLsum', 'w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5', 'w1 w2 w3 w4 w5');
    expect(s.recall).toBe(0.8);
    expect(s.precision).toBe(0.4);
    expect(s.f).toBeCloseTo(8 / 15, 15);
  });

  it('differs from rougeL when sentence order breaks the single sequence', () => {
    const prediction = 'w1 w3 w8 w9 w5\nw1 w2 w6 w7 w8';
    // Lsum is order-free across sentences: still 4 hits
    expect(score('rougeLsum', prediction, 'w1 w2 w3 w4 w5').recall).toBe(0.8);
    // rougeL over the flat 10 tokens: best LCS with w1 w2 w3 w4 w5 is w1 w3 w5 (3): R 3/5, P 3/10
    const l = score('rougeL', prediction, 'w1 w2 w3 w4 w5');
    expect(l.recall).toBe(0.6);
    expect(l.precision).toBe(0.3);
  });

  it('clips each token to the counts available on both sides', () => {
    // prediction "a b / a b" vs reference "a b": union for the one reference sentence is {a, b}; the
    // reference has one a and one b, so 2 hits: R 2/2, P 2/4, F 2/3
    const p = score('rougeLsum', 'a b\na b', 'a b');
    expect(p).toEqual({ precision: 0.5, recall: 1, f: 2 / 3 });
    // reverse: both reference sentences find a b, but the prediction has only one a and one b
    // left after the first sentence: 2 hits: R 2/4, P 2/2
    const r = score('rougeLsum', 'a b', 'a b\na b');
    expect(r).toEqual({ precision: 1, recall: 0.5, f: 2 / 3 });
  });

  it('splits only at newlines; empty lines vanish and "." does not split', () => {
    // "a. b" is one sentence [a, b]; "a\n\n \nb" is sentences [a], [], [b] (empty string dropped,
    // whitespace-only line kept as an empty token list). Reference "b a": per sentence the union
    // LCS positions of {b a} against [a] and [b] are {a} and {b} -> 2 hits, R 1, P 1.
    expect(score('rougeLsum', 'a\n\n \nb', 'b a')).toEqual({ precision: 1, recall: 1, f: 1 });
    // As one sentence "a. b" vs "b a" the LCS is 1 token: R 1/2, P 1/2.
    expect(score('rougeLsum', 'a. b', 'b a')).toEqual({ precision: 0.5, recall: 0.5, f: 0.5 });
  });
});

describe('rougeScoreMulti (score_multi)', () => {
  it('keeps the whole triple of the reference with the highest F', () => {
    // "the cat sat" vs "a dog ran": F 0; vs "the cat sat on the mat": P 1, R 1/2; vs itself: F 1
    expect(rougeScoreMulti('rouge1', 'the cat sat', ['a dog ran', 'the cat sat on the mat', 'the cat sat'])).toEqual({
      precision: 1,
      recall: 1,
      f: 1,
    });
  });

  it('takes the first reference on ties in F', () => {
    // "a b" vs "a b c d": P 1, R 1/2; vs "a": P 1/2, R 1. Both F = 2/3 exactly.
    expect(rougeScoreMulti('rouge1', 'a b', ['a b c d', 'a'])).toEqual({ precision: 1, recall: 0.5, f: 2 / 3 });
    expect(rougeScoreMulti('rouge1', 'a b', ['a', 'a b c d'])).toEqual({ precision: 0.5, recall: 1, f: 2 / 3 });
  });

  it('refuses an empty reference list', () => {
    expect(() => rougeScoreMulti('rouge1', 'a', [])).toThrow(DataError);
  });
});
