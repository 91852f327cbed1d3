import { describe, expect, it } from 'vitest';
import {
  richRagAnswerF1,
  squadExactMatch,
  squadExactMatchMax,
  squadF1,
  squadF1Max,
  squadNormalize,
} from '../../../src-main/core/text/squadAnswer';
import { DataError } from '../../../src-main/core/errors';

describe('squadNormalize', () => {
  it.each([
    ['The Cat!', 'cat'], // lower, drop "!", drop article
    ['U.S.A.', 'usa'], // ASCII punctuation removed without a space
    ['an apple a day', 'apple day'],
    ['A.', ''], // "a" once the dot is gone is an article
    ['the_end', 'theend'], // "_" is punctuation, removed before articles are looked for
    ['theatre', 'theatre'], // "the" inside a word is not an article
    ['²the', '²the'], // ² is a number (\p{N}), so a word character for Python too
    ['éthe', 'éthe'], // Python's \b is Unicode-aware: é is a word character, no boundary before "the"
    ['the\u0301', '\u0301'], // a combining mark is not a word character: "the" stands alone and goes
    ['“quoted” … 。', '“quoted” … 。'], // non-ASCII punctuation stays
    ['  many   spaces\n', 'many spaces'],
    ['cat\u0085dog', 'cat dog'], // U+0085 is Python whitespace
    ['cat\ufeffdog', 'cat\ufeffdog'], // U+FEFF is not
    ['', ''],
  ])('%j -> %j', (text, normal) => {
    expect(squadNormalize(text)).toBe(normal);
  });
});

describe('squadF1 / squadExactMatch', () => {
  it('computes multiset token F1 after normalisation', () => {
    // "cat sat on mat" (4) vs "cat on mat" (3): 3 common -> P 3/4, R 1, F = 2·(3/4)/(7/4) = 6/7
    expect(squadF1('The cat sat on the mat.', 'A cat, on a mat')).toBeCloseTo(6 / 7, 15);
    // repeated tokens: {cat:3} vs {cat:1} -> 1 common -> P 1/3, R 1, F 1/2
    expect(squadF1('cat cat cat', 'cat')).toBeCloseTo(0.5, 15);
    expect(squadF1('dog', 'cat')).toBe(0);
  });

  it('scores empty answers as SQuAD v1.1 does', () => {
    // no common token -> 0, even when both are empty (v1.1; v2.0 would say 1)
    expect(squadF1('', '')).toBe(0);
    expect(squadF1('the', 'an')).toBe(0); // both normalise to ""
    expect(squadF1('cat', '')).toBe(0);
    // exact match compares the normalised strings: "" = ""
    expect(squadExactMatch('', '')).toBe(1);
    expect(squadExactMatch('The Eiffel Tower.', 'eiffel tower')).toBe(1);
    expect(squadExactMatch('Eiffel Towers', 'eiffel tower')).toBe(0);
  });

  it('takes the maximum over references', () => {
    // vs "dog": 0; vs "a cat": "cat" = "cat" -> 1
    expect(squadF1Max('the cat', ['dog', 'a cat'])).toBe(1);
    expect(squadExactMatchMax('Paris', ['London', 'paris.'])).toBe(1);
    expect(squadExactMatchMax('Paris', ['London'])).toBe(0);
    expect(() => squadF1Max('x', [])).toThrow(DataError);
    expect(() => squadExactMatchMax('x', [])).toThrow(DataError);
  });

  it('adds the joined ground truths in RichRAG\'s variant', () => {
    // per ground truth: "paris and london" vs "paris": P 1/3, R 1, F 1/2 (same for london);
    // vs "paris, london" -> "paris london": 2 common, P 2/3, R 1, F 0.8
    expect(squadF1Max('paris and london', ['paris', 'london'])).toBeCloseTo(0.5, 15);
    expect(richRagAnswerF1('paris and london', ['paris', 'london'])).toBeCloseTo(0.8, 15);
  });
});
