/** Issue 26, "An error that quotes a 10 MB custom_id writes 10 MB to stderr": quoted user values are cut. */
import { describe, expect, it } from 'vitest';
import { QUOTE_MAX_CHARS, quoteIdText, quoteValue } from '../../src-main/core/errors';
import { quoteId } from '../../src-main/io/importers/records';
import { quoteId as storeQuoteId } from '../../src-main/store/collectionTypes';

describe('quoteValue / quoteIdText', () => {
  it('quotes short values whole, control characters and NUL escaped', () => {
    expect(quoteValue('ab')).toBe('"ab"');
    expect(quoteValue('a\u0000b\tc')).toBe('"a\\u0000b\\tc"');
    expect(quoteValue(12)).toBe('12');
    expect(quoteValue(undefined)).toBe('undefined');
    expect(quoteValue({ a: [1] })).toBe('{"a":[1]}');
    expect(quoteIdText('c\td')).toBe("'c\\td'");
    expect(quoteValue('x'.repeat(QUOTE_MAX_CHARS))).toBe(`"${'x'.repeat(QUOTE_MAX_CHARS)}"`);
  });

  it(`cuts past ${QUOTE_MAX_CHARS} characters and gives the full length`, () => {
    const long = 'y'.repeat(10 * 1024 * 1024);
    expect(quoteValue(long)).toBe(`"${'y'.repeat(QUOTE_MAX_CHARS)}…" (10485760 characters)`);
    expect(quoteValue('z'.repeat(QUOTE_MAX_CHARS + 1), 3)).toBe('"zzz…" (121 characters)');
    expect(quoteValue(['q'.repeat(500)], 5)).toBe('["qqq… (504 characters)');
    expect(quoteIdText('d'.repeat(1 << 20))).toBe(`'${'d'.repeat(QUOTE_MAX_CHARS)}…' (1048576 characters)`);
    // The two quoteId helpers (importers, store) are this one.
    expect(quoteId('d'.repeat(1000))).toBe(quoteIdText('d'.repeat(1000)));
    expect(storeQuoteId('d'.repeat(1000))).toBe(quoteIdText('d'.repeat(1000)));
  });
});
