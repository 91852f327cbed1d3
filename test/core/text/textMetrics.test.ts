import { describe, expect, it } from 'vitest';
import { isRougeImpl, isTextMetricName, TEXT_METRIC_NAMES, textMetric } from '../../../src-main/core/text/textMetrics';

const HEADLINE_PRED = "Hello, world! It's a test.";
const HEADLINE_REF = 'hello world its a test';

describe('textMetric registry', () => {
  it('knows exactly the nine measure names', () => {
    expect([...TEXT_METRIC_NAMES].sort()).toEqual(['accuracy', 'em', 'f1', 'mae', 'rmse', 'rouge1', 'rouge2', 'rougeL', 'rougeLsum']);
    expect(isTextMetricName('rougeL')).toBe(true);
    expect(isTextMetricName('rouge-l')).toBe(false);
    expect(isRougeImpl('pltrdy')).toBe(true);
    expect(isRougeImpl('hf')).toBe(false);
  });

  it('defaults ROUGE to rouge-score and switches to pltrdy on request', () => {
    const rs = textMetric('rouge1');
    const pl = textMetric('rouge1', { impl: 'pltrdy' });
    if (rs.kind !== 'prf' || pl.kind !== 'prf') throw new Error('ROUGE must be a P/R/F measure');
    // rouge.md headline: 8/11 ≈ 0.727 (rouge-score) vs 0.4 (pltrdy)
    expect(rs.score(HEADLINE_PRED, [HEADLINE_REF]).f).toBeCloseTo(8 / 11, 15);
    expect(pl.score(HEADLINE_PRED, [HEADLINE_REF]).f).toBeCloseTo(0.4, 7);
  });

  it('passes stemming through to rouge-score', () => {
    const plain = textMetric('rougeL');
    const stemmed = textMetric('rougeL', { stem: true });
    if (plain.kind !== 'prf' || stemmed.kind !== 'prf') throw new Error('ROUGE must be a P/R/F measure');
    // "cats" vs "cat": 0 without stemming, 1 with
    expect(plain.score('cats', ['cat']).f).toBe(0);
    expect(stemmed.score('cats', ['cat']).f).toBe(1);
  });

  it('aggregates ROUGE as the mean of F', () => {
    const m = textMetric('rouge1');
    if (m.kind !== 'prf') throw new Error('ROUGE must be a P/R/F measure');
    expect(
      m.aggregate([
        { precision: 1, recall: 0, f: 0.2 },
        { precision: 0, recall: 1, f: 0.6 },
      ]),
    ).toBeCloseTo(0.4, 15);
    expect(m.aggregate([])).toBeNull();
  });

  it('maps the value measures to their scorers and aggregates', () => {
    const value = (name: 'f1' | 'em' | 'accuracy' | 'mae' | 'rmse') => {
      const m = textMetric(name);
      if (m.kind !== 'value') throw new Error(`${name} must be a value measure`);
      return m;
    };
    expect(value('f1').score('the cat sat', ['cat'])).toBeCloseTo(2 / 3, 15); // P 1/2, R 1
    expect(value('em').score('The cat.', ['cat'])).toBe(1);
    expect(value('accuracy').score('The cat.', ['cat'])).toBe(0);
    expect(value('mae').score('1', ['4'])).toBe(3);
    expect(value('rmse').score('1', ['4'])).toBe(9);
    // errors 1 and 3: MAE 2; RMSE sqrt((1 + 9)/2) = sqrt(5)
    expect(value('mae').aggregate([1, 3])).toBe(2);
    expect(value('rmse').aggregate([1, 9])).toBe(Math.sqrt(5));
  });

  it('refuses combinations that do not exist', () => {
    expect(() => textMetric('rougeLsum', { impl: 'pltrdy' })).toThrow(/no rougeLsum/);
    expect(() => textMetric('rouge1', { impl: 'pltrdy', stem: true })).toThrow(/never stems/);
    expect(() => textMetric('f1', { stem: true })).toThrow(/does not stem/);
    expect(() => textMetric('mae', { impl: 'rouge-score' })).toThrow(/not a ROUGE measure/);
  });
});
