import { describe, expect, it } from 'vitest';
import { comRouge, comRougeScores, subAnswerWeights } from '../../../src-main/core/richrag/comRouge';
import { listReward } from '../../../src-main/core/richrag/reward';

// a1 "The cat sat" → SQuAD-normalised "cat sat" (article dropped): 2 words
// a2 "dogs bark loudly at night" → 5 words ("at" is not an article)
const SUBS = ['The cat sat', 'dogs bark loudly at night'];
// pltrdy words of r: The cat sat down | dogs bark ('.'-sentences, flattened)
const RESPONSE = 'The cat sat down. dogs bark';

describe('com-rouge (Eq. 11 φ^c, CR2/CRL)', () => {
  it('weights sub-answers by SQuAD-normalised length: δ = [2/7, 5/7]', () => {
    const d = subAnswerWeights(SUBS);
    expect(d[0]).toBeCloseTo(2 / 7, 15);
    expect(d[1]).toBeCloseTo(5 / 7, 15);
    expect(subAnswerWeights(['the', 'a an'])).toEqual([0, 0]); // no word left: weights (and com-rouge) 0
  });

  it('CR1 = 4/7, CR2 = 13/28, CRL = 4/7 (pltrdy recall against each sub-answer)', () => {
    // vs a1 "The cat sat": R1 3/3, R2 {The cat, cat sat} 2/2, RL 3/3 → all 1 (case matches: "The")
    // vs a2: R1 {dogs, bark} 2/5; R2 {dogs bark} of 4 bigrams 1/4; RL: LCS with sentence "dogs bark" = 2 → 2/5
    // CR1 = 2/7·1 + 5/7·2/5 = 4/7; CR2 = 2/7 + 5/7·1/4 = 13/28; CRL = 4/7
    const s = comRougeScores(RESPONSE, SUBS);
    expect(s.cr1).toBeCloseTo(4 / 7, 15);
    expect(s.cr2).toBeCloseTo(13 / 28, 15);
    expect(s.crl).toBeCloseTo(4 / 7, 15);
    expect(comRouge('rouge-2', RESPONSE, SUBS)).toBe(s.cr2);
  });
});

describe('listReward (Eq. 11)', () => {
  it('default: mean(R2, RL) F for the answer + Σ δ_i mean(R2, RL) recall = 9/8', () => {
    const answer = 'The cat sat. dogs bark loudly at night';
    // answer words: The cat sat dogs bark loudly at night (8); bigrams (across the '.') 7:
    //   The cat, cat sat, sat dogs, dogs bark, bark loudly, loudly at, at night
    // response bigrams 5: The cat, cat sat, sat down, down dogs, dogs bark → 3 shared: P 3/5, R 3/7, F 1/2
    // RL: union of LCS words = {The, cat, sat} ∪ {dogs, bark} = 5; R 5/8, P 5/6 (6 distinct words), F 5/7
    // φ(r, a) = (1/2 + 5/7)/2 = 17/28 (less pltrdy's 1e−8 in F's denominator)
    // φ^c = 2/7·(1 + 1)/2 + 5/7·(1/4 + 2/5)/2 = 2/7 + 13/56 = 29/56;  ∇ = 17/28 + 29/56 = 9/8
    const r = listReward(RESPONSE, answer, SUBS);
    expect(r.answer).toBeCloseTo(17 / 28, 7);
    expect(r.coverage).toBeCloseTo(29 / 56, 15);
    expect(r.reward).toBeCloseTo(9 / 8, 7);
  });

  it('takes other φ specs', () => {
    // answer φ = R1 recall: the response has 5 of the answer's 8 words; coverage φ = R1 recall: CR1 = 4/7
    const rouge1 = { rouge: ['rouge-1'] as const, combine: 'max' as const, component: 'recall' as const };
    const r = listReward(RESPONSE, 'The cat sat. dogs bark loudly at night', SUBS, { answerPhi: rouge1, coveragePhi: rouge1 });
    expect(r.answer).toBeCloseTo(5 / 8, 15);
    expect(r.reward).toBeCloseTo(5 / 8 + 4 / 7, 15);
  });
});
