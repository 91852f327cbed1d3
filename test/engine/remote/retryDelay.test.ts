import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter } from '../../../src-main/engine/remote/retryDelay';

describe('parseRetryAfter', () => {
  it('reads retry-after-ms first, then Retry-After seconds or an HTTP date', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(parseRetryAfter(new Headers({ 'retry-after': '3' }))).toBe(3000);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(new Headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfter(new Headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('doubles up to the cap; jitter keeps it within [half, full]', () => {
    expect([0, 1, 2, 3, 10].map((a) => backoffDelay(a, 100, 1000, false))).toEqual([100, 200, 400, 800, 1000]);
    for (let i = 0; i < 50; i++) {
      const d = backoffDelay(2, 100, 1000, true);
      expect(d).toBeGreaterThanOrEqual(200);
      expect(d).toBeLessThanOrEqual(400);
    }
  });
});
