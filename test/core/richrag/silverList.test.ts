import { describe, expect, it } from 'vitest';
import { coverageMatrix } from '../../../src-main/core/richrag/coverage';
import { gainRule } from '../../../src-main/core/richrag/coverageGain';
import { comprehensiveness, ncom, silverList } from '../../../src-main/core/richrag/silverList';
import { DOCS, SUB_ANSWERS } from './handPool';

const codePhi = () => coverageMatrix(SUB_ANSWERS, DOCS, 'code');
const paperPhi = () => coverageMatrix(SUB_ANSWERS, DOCS, 'paper');

describe('silverList (Eq. 8-9) on the hand-built pool', () => {
  it('code φ, code weights: [d1, d2, d0, d3], COM* = 3151/1848', () => {
    // φ a1 [1, 3/4, 0, 1/2], a2 [0, 1/3, 2/3, 0]; pool maxima c_max = [1, 2/3]
    // t1 c = [0, 0]: w = [1/2, 1/2]; gains d0 1/2, d1 (3/4 + 1/3)/2 = 13/24, d2 1/3, d3 1/4 → d1
    // t2 c = [3/4, 1/3]: 1 − c = [1/4, 2/3], sum 11/12, w = [3/11, 8/11]; d0 3/11, d2 (8/11)(2/3) = 16/33, d3 3/22 → d2
    // t3 c = [3/4, 2/3]: 1 − c = [1/4, 1/3], w = [3/7, 4/7]; d0 3/7, d3 3/14 → d0; now c = [1, 2/3] = c_max → reset to 0
    // t4 c = [0, 0]: w = [1/2, 1/2]; d3 1/4
    // COM* = 13/24 + 16/33 + 3/7 + 1/4 = 3151/1848
    const s = silverList(codePhi(), 4, 'code');
    expect(s.order).toEqual([1, 2, 0, 3]);
    expectAll(s.gains, [13 / 24, 16 / 33, 3 / 7, 1 / 4]);
    expect(s.comStar).toBeCloseTo(3151 / 1848, 14);
  });

  it('paper φ, paper weights (Eq. 9 as printed): [d1, d2, d3, d0], COM* = 3553/2232', () => {
    // φ a1 [1/8, 17/24, 0, 5/12], a2 [0, 1/6, 7/12, 0]
    // t1 Σc = 0 → Norm = 0, w = [1, 1]; gains d0 1/8, d1 17/24 + 1/6 = 7/8, d2 7/12, d3 5/12 → d1
    // t2 c = [17/24, 1/6], Σc = 7/8, Norm = [17/21, 4/21], w = [4/21, 17/21];
    //    d0 (4/21)(1/8) = 1/42, d2 (17/21)(7/12) = 17/36, d3 (4/21)(5/12) = 5/63 → d2
    // t3 c = [17/24, 7/12], Σc = 31/24, w = [14/31, 17/31]; d0 (14/31)(1/8) = 7/124, d3 (14/31)(5/12) = 35/186 → d3
    // t4 c unchanged (5/12 < 17/24): d0 7/124.  COM* = 7/8 + 17/36 + 35/186 + 7/124 = 3553/2232
    const s = silverList(paperPhi(), 4, 'paper');
    expect(s.order).toEqual([1, 2, 3, 0]);
    expectAll(s.gains, [7 / 8, 17 / 36, 35 / 186, 7 / 124]);
    expect(s.comStar).toBeCloseTo(3553 / 2232, 14);
  });

  it('paper φ, code weights: [d1, d2, d3, d0], COM* = 27677/24624', () => {
    // c_max = [17/24, 7/12]
    // t1 w = [1/2, 1/2]: d0 1/16, d1 (17/24 + 1/6)/2 = 7/16, d2 7/24, d3 5/24 → d1
    // t2 c = [17/24, 1/6]: 1 − c = [7/24, 20/24], w = [7/27, 20/27]; d0 7/216, d2 (20/27)(7/12) = 35/81, d3 35/324 → d2
    //    c = [17/24, 7/12] = c_max → reset
    // t3 w = [1/2, 1/2]: d0 1/16, d3 5/24 → d3;  t4 c = [5/12, 0]: w = [7/19, 12/19]; d0 (7/19)(1/8) = 7/152
    const s = silverList(paperPhi(), 4, 'code');
    expect(s.order).toEqual([1, 2, 3, 0]);
    expectAll(s.gains, [7 / 16, 35 / 81, 5 / 24, 7 / 152]);
    expect(s.comStar).toBeCloseTo(27677 / 24624, 14);
  });

  it('the reset changes COM*: code weights without reset give 2689/1848', () => {
    // as the code case up to t3; at t4 c stays [1, 2/3]: 1 − c = [0, 1/3], w = [0, 1]; d3 gains 0
    const s = silverList(codePhi(), 4, { weights: 'code', reset: false });
    expect(s.order).toEqual([1, 2, 0, 3]);
    expectAll(s.gains, [13 / 24, 16 / 33, 3 / 7, 0]);
    expect(s.comStar).toBeCloseTo(2689 / 1848, 14);
  });

  it('breaks ties by pool order (first index), and takes the whole pool when k exceeds it', () => {
    // one sub-answer, φ = [0.2, 0.5, 0.5]: t1 w = [1]: d1 and d2 tie at 0.5 → d1 (earlier);
    // c = 0.5 = max → reset; t2 d2 0.5 > d0 0.2; t3 d0
    const s = silverList([[0.2, 0.5, 0.5]], 10, 'code');
    expect(s.order).toEqual([1, 2, 0]);
    expect(s.comStar).toBeCloseTo(1.2, 15);
    expect(silverList([[0.5, 0.5, 0.5]], 3, 'paper').order).toEqual([0, 1, 2]);
  });

  it("applies the code's 1/n fallback to the silver list only, when every sub-answer is fully covered and reset is off", () => {
    // φ: d0 covers both fully, d1 only a1, d2 half of a2
    const phi = [
      [1, 1, 0],
      [1, 0, 0.5],
    ];
    // no reset: t1 w = [1/2, 1/2]: d0 1 → c = [1, 1], 1 − c = 0 → w = 0 → fallback [1/2, 1/2]:
    //   t2 d1 1/2, t3 d2 1/4; COM* = 7/4.  COM of the same list uses w = 0: 1 + 0 + 0 = 1 → NCOM 4/7
    const noReset = ncom(phi, [0, 1, 2], 3, { weights: 'code', reset: false });
    expect(noReset.silver.order).toEqual([0, 1, 2]);
    expect(noReset.silver.comStar).toBe(1.75);
    expect(noReset.com).toBe(1);
    expect(noReset.ncom).toBeCloseTo(4 / 7, 15);
    // with reset (the code's default) c = c_max after d0 → reset: t2 w = [1/2, 1/2] d1 1/2 → c = [1, 0];
    // t3 w = [0, 1]: d2 1/2.  COM* = 2 and the silver list has NCOM 1
    const withReset = ncom(phi, [0, 1, 2], 3, 'code');
    expect(withReset.silver.comStar).toBe(2);
    expect(withReset.ncom).toBe(1);
  });

  it('Eq. 9 as printed zeroes the weight of a single sub-answer after the first document', () => {
    // n = 1, φ = [0.5, 0.25]: t1 w = 1 − 0 = 1 → d0 0.5; then Norm(c) = [1], w = [0] → d1 gains 0
    const s = silverList([[0.5, 0.25]], 2, 'paper');
    expect(s.gains).toEqual([0.5, 0]);
  });

  it('rejects bad input', () => {
    expect(() => silverList([], 1)).toThrow(/at least one sub-answer/);
    expect(() => silverList([[1, 0], [1]], 1)).toThrow(/row 1 has 1 documents/);
    expect(() => silverList([[Number.NaN]], 1)).toThrow(/phi\[0\]\[0\]/);
    expect(() => silverList([[1]], 0)).toThrow(/k must be a positive integer/);
    expect(() => comprehensiveness([[1, 1]], [0, 2])).toThrow(/ranking\[1\] = 2 is not a document index/);
    expect(() => comprehensiveness([[1, 1]], [1, 1])).toThrow(/ranking\[1\] repeats document 1/);
  });
});

describe('COM and NCOM (App. C, Eq. 13)', () => {
  it('code: ranking [d0, d3, d2] has COM 7/6 and NCOM 2156/3151', () => {
    // t1 w = [1/2, 1/2]: d0 1/2 → c = [1, 0] (a2 not at its max 2/3: no reset)
    // t2 1 − c = [0, 1], w = [0, 1]: d3 0;  t3 w = [0, 1]: d2 2/3.  COM = 1/2 + 0 + 2/3 = 7/6
    // NCOM = (7/6) / (3151/1848) = 2156/3151
    const r = ncom(codePhi(), [0, 3, 2], 4, 'code');
    expect(r.silver.order).toEqual([1, 2, 0, 3]);
    expect(r.com).toBeCloseTo(7 / 6, 14);
    expect(r.ncom).toBeCloseTo(2156 / 3151, 14);
  });

  it('paper: ranking [d0, d3, d2] has COM 17/24 and NCOM 1581/3553', () => {
    // t1 w = [1, 1]: d0 1/8 → c = [1/8, 0], Norm = [1, 0], w = [0, 1]
    // t2 d3 0 → c = [5/12, 0], w still [0, 1];  t3 d2 7/12.  COM = 1/8 + 7/12 = 17/24
    // NCOM = (17/24) / (3553/2232) = 1581/3553
    const r = ncom(paperPhi(), [0, 3, 2], 4, 'paper');
    expect(r.com).toBeCloseTo(17 / 24, 14);
    expect(r.ncom).toBeCloseTo(1581 / 3553, 14);
  });

  it('paper φ with code weights: COM 1711/2736, NCOM 15399/27677', () => {
    // t1 w = [1/2, 1/2]: d0 1/16 → c = [1/8, 0];  t2 1 − c = [7/8, 1], w = [7/15, 8/15]: d3 (7/15)(5/12) = 7/36 → c = [5/12, 0]
    // t3 1 − c = [7/12, 1], w = [7/19, 12/19]: d2 (12/19)(7/12) = 7/19.  COM = 1/16 + 7/36 + 7/19 = 1711/2736
    const r = ncom(paperPhi(), [0, 3, 2], 4, 'code');
    expect(r.com).toBeCloseTo(1711 / 2736, 14);
    expect(r.ncom).toBeCloseTo(15399 / 27677, 14);
  });

  it.each(['code', 'paper'] as const)('a silver ranking has NCOM exactly 1 (%s)', (preset) => {
    const phi = coverageMatrix(SUB_ANSWERS, DOCS, preset);
    const silver = silverList(phi, 4, preset);
    expect(ncom(phi, silver.order, 4, preset).ncom).toBe(1);
  });

  it('can exceed 1: the greedy silver list is not the best list (code: reversed silver has NCOM 3311/3151)', () => {
    // [d3, d0, d2, d1]: t1 w = [1/2, 1/2]: d3 1/4 → c = [1/2, 0]; t2 1 − c = [1/2, 1], w = [1/3, 2/3]: d0 1/3 → c = [1, 0]
    // t3 w = [0, 1]: d2 2/3 → c = [1, 2/3] = c_max → reset; t4 w = [1/2, 1/2]: d1 13/24
    // COM = 1/4 + 1/3 + 2/3 + 13/24 = 43/24 > COM* = 3151/1848;  NCOM = (43/24)(1848/3151) = 3311/3151
    const r = ncom(codePhi(), [3, 0, 2, 1], 4, 'code');
    expect(r.com).toBeCloseTo(43 / 24, 14);
    expect(r.ncom).toBeCloseTo(3311 / 3151, 14);
  });

  it('cuts the ranking at k and leaves NCOM null when COM* is 0', () => {
    // k = 1: silver [d1], COM* 13/24; the ranking's first document d0 gains 1/2 → NCOM (1/2)/(13/24) = 12/13
    const r = ncom(codePhi(), [0, 3, 2], 1, 'code');
    expect(r.silver.order).toEqual([1]);
    expect(r.com).toBe(0.5);
    expect(r.ncom).toBeCloseTo(12 / 13, 15);
    // nothing covers anything: all gains 0, silver in pool order, NCOM undefined → null
    const zero = ncom([[0, 0, 0]], [2], 2, 'code');
    expect(zero.silver.order).toEqual([0, 1]);
    expect(zero.silver.comStar).toBe(0);
    expect(zero.ncom).toBeNull();
  });

  it('gainRule fills the reset from the weights', () => {
    expect(gainRule()).toEqual({ weights: 'code', reset: true });
    expect(gainRule({ weights: 'paper' })).toEqual({ weights: 'paper', reset: false });
    expect(gainRule({ weights: 'paper', reset: true })).toEqual({ weights: 'paper', reset: true });
  });
});

function expectAll(actual: number[], expected: number[]): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((x, i) => expect(x, `gain ${i}`).toBeCloseTo(expected[i]!, 14));
}
