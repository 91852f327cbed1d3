import { describe, expect, it } from 'vitest';
import { csvTable } from '../../../src-main/core/format/csv';
import { escapeLatex } from '../../../src-main/core/format/latex';
import { studentTQuantile } from '../../../src-main/core/stats/studentT';
import { csvField } from '../../../src-main/io/measureCsv';
import { escapeLatex as rendererEscape } from '../../../src-renderer/src/screens/experiments/latex';
import { meanCi, tQuantile975 } from '../../../src-renderer/src/screens/experiments/stats';

describe("the renderer uses core's t-quantile, LaTeX escaping and CSV writer (#16.9; lib/download.ts re-exports csvTable as toCsv)", () => {
  it('t-quantile: exact for fractional df (the table rounded df 2.5 to 3: 3.1824)', () => {
    expect(tQuantile975(1)).toBeCloseTo(12.706204736174698, 8);
    expect(tQuantile975(2.5)).toBe(studentTQuantile(0.975, 2.5));
    expect(tQuantile975(2.5)).toBeGreaterThan(3.2);
    expect(tQuantile975(2.5)).toBeLessThan(4.3);
    // mean of 1, 2, 3 = 2, s = 1: 2 ± 4.302652729911275/√3.
    const ci = meanCi([1, 2, 3])!;
    expect(ci.upper! - ci.mean).toBeCloseTo(4.302652729911275 / Math.sqrt(3), 8);
    expect(meanCi([5])).toEqual({ mean: 5, lower: null, upper: null, n: 1 });
  });

  it('one escapeLatex and one CSV writer', () => {
    expect(rendererEscape).toBe(escapeLatex);
    expect(csvTable(['a', 'b'], [['x,y', null], [1.5, 'q"']])).toBe('a,b\n"x,y",\n1.5,"q"""\n');
    expect(csvField('plain')).toBe('plain');
  });
});
