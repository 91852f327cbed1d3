/**
 * The hand-built pool shared by the RichRAG tests. pltrdy ROUGE: case-sensitive words, distinct n-grams.
 *   a1 = "alpha beta gamma delta"  4 words, bigrams {alpha beta, beta gamma, gamma delta}
 *   a2 = "one two three"           3 words, bigrams {one two, two three}
 *   d0 = "delta gamma beta alpha"  all of a1's words, reversed: R1 1, R2 0, RL 1/4 (LCS is one word)
 *   d1 = "alpha beta gamma one"    a1: R1 3/4, R2 2/3, RL 3/4;  a2: R1 1/3, R2 0, RL 1/3
 *   d2 = "one two"                 a2: R1 2/3, R2 1/2, RL 2/3
 *   d3 = "gamma delta"             a1: R1 2/4, R2 1/3, RL 2/4
 * φ code  = max(R1,R2,RL):  a1 [1, 3/4, 0, 1/2]       a2 [0, 1/3, 2/3, 0]
 * φ paper = mean(R2,RL):    a1 [1/8, 17/24, 0, 5/12]  a2 [0, 1/6, 7/12, 0]
 */
export const SUB_ANSWERS = ['alpha beta gamma delta', 'one two three'];
export const DOCS = ['delta gamma beta alpha', 'alpha beta gamma one', 'one two', 'gamma delta'];
