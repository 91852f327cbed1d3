/**
 * A MoI estimation problem for one query (Sec. 3.1): N passages (0-based, in retriever order), M
 * prompts given as permutations (passage indices in prompt order; pruned prompts list only their
 * first L passages, all of the same L), and one listwise score s_i per prompt (Eq. 3, log domain).
 * This module checks such a problem and builds the two design matrices of the bilinear model
 * ŝ_i = Σ_{j<L} a_j · u_{π_i[j]} (Eq. 4).
 */
import { DataError } from '../errors';

export interface MoiProblem {
  /** Number of passages N; passages are 0 … N−1 in retriever order. */
  n: number;
  /** M prompts, each the passage indices at positions 0 … L−1. */
  permutations: readonly (readonly number[])[];
  /** s_i per prompt (Eq. 3, log domain). */
  scores: readonly number[];
}

export type FieldPath = (string | number)[];

export interface MoiProblemIssue {
  path: FieldPath;
  message: string;
}

/** `permutations[3][1]`, `options.fixedA[0]`. */
export function formatFieldPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

/** Every problem with the shape of a MoI problem, in reading order (empty when valid). */
export function moiProblemIssues(problem: MoiProblem): MoiProblemIssue[] {
  const issues: MoiProblemIssue[] = [];
  const { n, permutations, scores } = problem;
  if (!Number.isInteger(n) || n < 1) {
    issues.push({ path: ['n'], message: `expected a positive integer, got ${n}` });
    return issues;
  }
  if (permutations.length === 0) issues.push({ path: ['permutations'], message: 'expected at least one permutation' });
  const L = permutations[0]?.length ?? 0;
  permutations.forEach((perm, i) => {
    if (perm.length === 0) {
      issues.push({ path: ['permutations', i], message: 'a prompt needs at least one passage' });
      return;
    }
    if (perm.length > n) issues.push({ path: ['permutations', i], message: `${perm.length} positions for n = ${n} passages` });
    else if (perm.length !== L) {
      issues.push({
        path: ['permutations', i],
        message: `length ${perm.length} differs from L = ${L} (permutations[0]); prompts shorter than n are allowed only as pruned prefixes of one common length L`,
      });
    }
    const seen = new Map<number, number>();
    perm.forEach((p, j) => {
      if (!Number.isInteger(p)) issues.push({ path: ['permutations', i, j], message: `expected a passage index (integer), got ${p}` });
      else if (p < 0 || p >= n) issues.push({ path: ['permutations', i, j], message: `index ${p} out of range 0..${n - 1}` });
      else if (seen.has(p)) issues.push({ path: ['permutations', i, j], message: `passage ${p} repeated (also at position ${seen.get(p)})` });
      else seen.set(p, j);
    });
  });
  if (scores.length !== permutations.length) {
    issues.push({ path: ['scores'], message: `expected ${permutations.length} scores (one per permutation), got ${scores.length}` });
  }
  scores.forEach((v, i) => {
    if (!Number.isFinite(v)) issues.push({ path: ['scores', i], message: `expected a finite number, got ${v}` });
  });
  return issues;
}

/** Throws the first issue as a DataError naming its field. */
export function assertMoiProblem(problem: MoiProblem): void {
  const [first] = moiProblemIssues(problem);
  if (first) throw new DataError(first.message, { field: formatFieldPath(first.path) });
}

/** Prompt length L (positions that carry a bias coefficient). */
export function promptLength(problem: MoiProblem): number {
  return problem.permutations[0]?.length ?? 0;
}

/** u-design X (M × N): X_{i,p} = Σ_{j: π_i[j] = p} a_j, so that ŝ = X·u. */
export function uDesign(permutations: readonly (readonly number[])[], a: readonly number[], n: number): number[][] {
  return permutations.map((perm) => {
    const row = new Array<number>(n).fill(0);
    perm.forEach((p, j) => (row[p] = (row[p] as number) + (a[j] as number)));
    return row;
  });
}

/** a-design Z (M × L): Z_{i,j} = u_{π_i[j]}, so that ŝ = Z·a. */
export function aDesign(permutations: readonly (readonly number[])[], u: readonly number[]): number[][] {
  return permutations.map((perm) => perm.map((p) => u[p] as number));
}

/** ŝ_i = Σ_j a_j u_{π_i[j]} (Eq. 4). */
export function predictScores(permutations: readonly (readonly number[])[], a: readonly number[], u: readonly number[]): number[] {
  return permutations.map((perm) => perm.reduce((acc, p, j) => acc + (a[j] as number) * (u[p] as number), 0));
}

/** The MoI objective Σ_i (ŝ_i − s_i)². */
export function moiObjective(problem: MoiProblem, a: readonly number[], u: readonly number[]): number {
  const pred = predictScores(problem.permutations, a, u);
  return pred.reduce((acc, v, i) => acc + (v - (problem.scores[i] as number)) ** 2, 0);
}
