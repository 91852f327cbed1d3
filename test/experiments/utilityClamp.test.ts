/**
 * Issue 23 item 4: LaMP-3's utility (4 − |prediction − gold|, MAE) stays in its defined range: a
 * numeric prediction outside the label range 1–5 is clamped to it before scoring, so the utility is
 * in [0, 4], u_max is never negative and EU̅ = EU / u_max stays in [0, 1]. Hand-computed cases.
 */
import { describe, expect, it } from 'vitest';
import { utilityScorer, type UtilityScorer } from '../../src-main/experiments/fair-rag/utility';

function scorer(metric: string, worst?: number): UtilityScorer {
  const s = utilityScorer(worst === undefined ? {} : { utilityMetric: { name: metric as 'mae', worst } as never }, metric);
  if ('error' in s) throw new Error(s.error);
  return s;
}

describe('LaMP-3 utility clamped to the task’s label range', () => {
  const mae = scorer('mae');
  it('clamps numeric predictions outside 1–5 before the error; raw keeps LaMP’s unclamped error', () => {
    // gold 1, answer 9: raw |9 − 1| = 8 (utility −4 unclamped); clamped to 5: error 4, utility 0.
    expect(mae.score('9', ['1'])).toEqual({ raw: 8, utility: 0, clamped: 'prediction 9 clamped to 5 (label range 1–5)' });
    // gold 3, answer 6: raw 3 (utility 1 unclamped); clamped to 5: error 2, utility 2.
    expect(mae.score('6', ['3'])).toMatchObject({ raw: 3, utility: 2 });
    // gold 2, answer −1: raw 3; clamped to 1: error 1, utility 3.
    expect(mae.score('-1', ['2'])).toMatchObject({ raw: 3, utility: 3 });
  });
  it('leaves answers in the range and LaMP’s non-numeric fallback alone', () => {
    expect(mae.score('4', ['2'])).toEqual({ raw: 2, utility: 2 });
    // Not a number, gold 3: LaMP scores it as the farther of 1 and 5 (a tie: 1), error 2.
    expect(mae.score('great', ['3'])).toEqual({ raw: 2, utility: 2 });
  });
  it('every answer wrong can no longer make u_max negative (the issue: u_max = −2, EU̅ 1.3–1.6)', () => {
    const utilities = ['9', '8', '7.5', '0'].map((p) => mae.score(p, ['1']).utility);
    // 9, 8, 7.5 → 5 (error 4, utility 0); 0 → 1 (error 0, utility 4).
    expect(utilities).toEqual([0, 0, 0, 4]);
    const wrong = ['9', '8'].map((p) => mae.score(p, ['1']).utility);
    expect(Math.max(...wrong)).toBe(0);
  });
  it('a user-set worst (another scale) clamps the utility to [0, worst]', () => {
    const s = scorer('mae', 2);
    expect(s.score('4', ['1'])).toEqual({ raw: 3, utility: 0, clamped: 'utility -1 clamped to [0, 2]' });
    expect(s.score('2', ['1'])).toEqual({ raw: 1, utility: 1 });
  });
});
