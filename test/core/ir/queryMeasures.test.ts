import { describe, expect, it } from 'vitest';
import { parseMeasure } from '../../../src-main/core/ir/measureSpec';
import { queryMeasure, type QueryInput } from '../../../src-main/core/ir/queryMeasures';

const m = (name: string, q: QueryInput) => queryMeasure(parseMeasure(name), q);

// Binary case: 5 retrieved, labels by rank [1, 0, not judged, 1, 0]; the query has 3 relevant
// documents (one never retrieved) and 2 judged non-relevant ones.
const binary: QueryInput = { ranked: [1, 0, undefined, 1, 0], judged: [1, 1, 1, 0, 0] };

// Graded case: retrieved labels [2, 3, 0, 1]; judged labels {3, 2, 2, 1, 0} (one 2 unretrieved).
const graded: QueryInput = { ranked: [2, 3, 0, 1], judged: [3, 2, 1, 0, 2] };

describe('binary relevance', () => {
  it('P@k divides by k even when fewer than k were retrieved', () => {
    expect(m('P@5', binary)).toBe(2 / 5); // ranks 1 and 4 relevant
    expect(m('P@1', binary)).toBe(1);
    expect(m('P@10', binary)).toBe(2 / 10); // trec_eval: missing ranks are non-relevant
  });

  it('R@k divides by all relevant documents of the query', () => {
    expect(m('R@5', binary)).toBe(2 / 3);
    expect(m('R@3', binary)).toBe(1 / 3);
  });

  it('AP averages precision at relevant ranks over R, AP@k keeps the denominator R', () => {
    // (1/1 + 2/4) / 3 = 0.5; the unretrieved relevant document contributes 0
    expect(m('AP', binary)).toBe(0.5);
    // only rank 1 within the cutoff: (1/1) / 3 (not / min(R, k))
    expect(m('AP@3', binary)).toBe(1 / 3);
  });

  it('RR is the reciprocal rank of the first relevant document, RR@k zero beyond k', () => {
    expect(m('RR', binary)).toBe(1);
    const late: QueryInput = { ranked: [0, undefined, 1], judged: [1, 0] };
    expect(m('RR', late)).toBe(1 / 3);
    expect(m('RR@2', late)).toBe(0);
  });

  it('nDCG@5 uses log2(rank+1) discounts and the ideal ranking of all judged documents', () => {
    // DCG = 1/log2(2) + 1/log2(5) = 1.4306766; IDCG = 1 + 1/log2(3) + 1/log2(4) = 2.1309298
    expect(m('nDCG@5', binary)).toBeCloseTo(0.6713860725, 9);
    // the cutoff also cuts the ideal: DCG@1 = IDCG@1 = 1
    expect(m('nDCG@1', binary)).toBe(1);
  });

  it('Judged@k counts judged documents over min(k, retrieved)', () => {
    expect(m('Judged@5', binary)).toBe(4 / 5); // rank 3 is not in the qrels
    expect(m('Judged@10', binary)).toBe(4 / 5); // 5 retrieved < 10
    expect(m('Judged@2', binary)).toBe(1);
  });

  it('NumRet, NumRet(rel=1) and NumRel count documents', () => {
    expect(m('NumRet', binary)).toBe(5);
    expect(m('NumRet(rel=1)', binary)).toBe(2);
    expect(m('NumRel', binary)).toBe(3);
  });
});

describe('graded relevance', () => {
  it('nDCG uses the label as gain (trec_eval ndcg_cut)', () => {
    // DCG = 2 + 3/log2(3) + 0 + 1/log2(5) = 4.323466; ideal [3,2,2,1]: 3 + 2/log2(3) + 2/2 + 1/log2(5) = 5.692537
    expect(m('nDCG@4', graded)).toBeCloseTo(0.7594973083, 9);
    expect(m('nDCG', graded)).toBeCloseTo(0.7594973083, 9);
    // @2: (2 + 3/log2(3)) / (3 + 2/log2(3))
    expect(m('nDCG@2', graded)).toBeCloseTo(0.9134015925, 9);
  });

  it("nDCG(dcg='exp-log2') uses 2^rel - 1", () => {
    // gains [3,7,0,1]: DCG = 3 + 7/log2(3) + 1/log2(5) = 7.847185; ideal [7,3,3,1] = 10.823466
    expect(m("nDCG(dcg='exp-log2')@4", graded)).toBeCloseTo(0.7250159020, 9);
  });

  it('rel=N raises the relevance threshold of P, AP, RR and R', () => {
    expect(m('P@4', graded)).toBe(3 / 4); // labels 2, 3, 1 are >= 1
    expect(m('P(rel=2)@2', graded)).toBe(1);
    expect(m('P(rel=2)@4', graded)).toBe(2 / 4);
    // R(rel=2) = 3 judged documents with label >= 2; ranks 1 and 2 qualify: (1/1 + 2/2) / 3
    expect(m('AP(rel=2)', graded)).toBeCloseTo(2 / 3, 12);
    expect(m('RR(rel=3)', graded)).toBe(1 / 2);
    expect(m('R(rel=2)@4', graded)).toBe(2 / 3);
    expect(m('NumRel(rel=2)', graded)).toBe(3);
  });
});

describe('degenerate queries', () => {
  it('a query without relevant documents scores 0 everywhere (nDCG has IDCG = 0)', () => {
    const none: QueryInput = { ranked: [0, undefined], judged: [0, 0] };
    for (const name of ['nDCG@10', 'AP', 'RR', 'P@2', 'R@10']) expect(m(name, none)).toBe(0);
    expect(m('Judged@2', none)).toBe(1 / 2);
  });

  it('an empty ranking scores 0, and NumRel still counts the qrels', () => {
    const empty: QueryInput = { ranked: [], judged: [1, 2, 0] };
    for (const name of ['nDCG@10', 'AP', 'RR', 'P@5', 'R@5', 'Judged@5', 'NumRet']) expect(m(name, empty)).toBe(0);
    expect(m('NumRel', empty)).toBe(2);
  });

  it('negative labels (in the pool but unjudged) are neither relevant nor judged', () => {
    const q: QueryInput = { ranked: [-1, 1], judged: [-1, 1] };
    expect(m('Judged@2', q)).toBe(1 / 2);
    expect(m('RR', q)).toBe(1 / 2);
    expect(m('AP', q)).toBe(1 / 2); // R = 1
    expect(m('NumRel(rel=0)', q)).toBe(1);
  });
});
