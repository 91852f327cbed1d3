import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { formatMeasure, parseMeasure } from '../../../src-main/core/ir/measureSpec';
import { formatTrecEvalArgs, trecEvalEquivalent } from '../../../src-main/core/ir/trecEvalNames';

const canonical = (s: string) => formatMeasure(parseMeasure(s));
const trec = (s: string) => {
  const eq = trecEvalEquivalent(parseMeasure(s));
  return eq && formatTrecEvalArgs(eq);
};

describe('parseMeasure', () => {
  it('reads ir_measures syntax into a spec', () => {
    expect(parseMeasure('nDCG@10')).toEqual({ name: 'nDCG', cutoff: 10, dcg: 'log2' });
    expect(parseMeasure('P(rel=2)@10')).toEqual({ name: 'P', cutoff: 10, rel: 2, dcg: 'log2' });
    expect(parseMeasure("nDCG(dcg='exp-log2')@5")).toMatchObject({ name: 'nDCG', cutoff: 5, dcg: 'exp-log2' });
    expect(parseMeasure('AP')).toEqual({ name: 'AP', dcg: 'log2' });
  });

  it('canonicalises aliases, case and default parameters as ir_measures repr() does', () => {
    expect(canonical('ndcg@10')).toBe('nDCG@10');
    expect(canonical('MAP')).toBe('AP');
    expect(canonical('MRR@10')).toBe('RR@10');
    expect(canonical('Recall@1000')).toBe('R@1000');
    expect(canonical('P(rel=1)@5')).toBe('P@5');
    expect(canonical('nDCG(dcg=log2)@10')).toBe('nDCG@10');
    expect(canonical('nDCG(dcg="exp-log2")@10')).toBe("nDCG(dcg='exp-log2')@10");
    expect(canonical('P( rel = 2 )@10')).toBe('P(rel=2)@10');
    // On NumRet, rel=1 is not a default: it turns num_ret into num_rel_ret.
    expect(canonical('NumRet(rel=1)')).toBe('NumRet(rel=1)');
  });

  it.each([
    ['BPref', /unknown measure/],
    ['P', /needs a cutoff, e\.g\. P@10/],
    ['R', /needs a cutoff/],
    ['P@0', /cutoff must be a positive integer/],
    ['P@x', /cutoff must be a positive integer/],
    ['NumRet@10', /takes no cutoff/],
    ['nDCG(rel=2)@10', /does not take parameter 'rel' \(supported: dcg\)/],
    ['P(judged_only=True)@10', /does not take parameter 'judged_only'/],
    ['P(rel=-1)@10', /rel must be a non-negative integer/],
    ['P(rel=2,rel=3)@10', /given twice/],
    ["nDCG(dcg='exp')@10", /dcg must be 'log2' or 'exp-log2'/],
    ['ndcg_cut.10', /trec_eval name; write nDCG@10/],
    ['P.5', /trec_eval name; write P@5/],
    ['recip_rank', /trec_eval name; write RR/],
    ['', /not a measure/],
  ])('rejects %j', (text, reason) => {
    let error: unknown;
    try {
      parseMeasure(text);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DataError);
    expect((error as DataError).field).toBe('measure');
    expect((error as DataError).message).toMatch(reason);
  });
});

describe('trec_eval equivalents', () => {
  it('maps the common measures to -m names', () => {
    expect(trec('nDCG@10')).toBe('-m ndcg_cut.10');
    expect(trec('nDCG')).toBe('-m ndcg');
    expect(trec('AP')).toBe('-m map');
    expect(trec('AP@100')).toBe('-m map_cut.100');
    expect(trec('RR')).toBe('-m recip_rank');
    expect(trec('P@5')).toBe('-m P.5');
    expect(trec('R@1000')).toBe('-m recall.1000');
    expect(trec('NumRet')).toBe('-m num_ret');
    expect(trec('NumRet(rel=1)')).toBe('-m num_rel_ret');
    expect(trec('NumQ')).toBe('-m num_q');
  });

  it('expresses rel as -l and an RR cutoff as -M', () => {
    expect(trec('P(rel=2)@10')).toBe('-l 2 -m P.10');
    expect(trec('RR@10')).toBe('-M 10 -m recip_rank');
    expect(trec('RR(rel=2)@10')).toBe('-l 2 -M 10 -m recip_rank');
  });

  it('has none for Judged and exponential-gain nDCG', () => {
    expect(trec('Judged@10')).toBeUndefined();
    expect(trec("nDCG(dcg='exp-log2')@10")).toBeUndefined();
  });
});
