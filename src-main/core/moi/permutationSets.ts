/**
 * The prompt orderings MoI scores for one query (Lee et al., Sec. 3.2; reference notes moi.md §2.4).
 * Passages are 0 … N−1 in retriever order φ (0 = the retriever's best); a permutation lists passage
 * indices in prompt order, and pruned permutations list only the first L positions. Each prompt is
 * one teacher-forced engine call (it yields both log P(q | ·) and log P(passages), Eq. 3), so
 * `engineCalls` = number of permutations and `passagesPerCall` = L is the per-call cost.
 *
 * - random (Sec. 3.2.1): `count` (default 3N) distinct uniform permutations from a seeded stream;
 *   when N! < count every permutation is returned (lexicographic) and `note` says so.
 *   Self-consistency uses count 30; preference distillation K = 30 (App. A).
 * - cyclic (Eq. 7-9): π_k = [(k+j) mod N for j = 0 … N−1], k = 0 … N−1, M = N.
 * - pruned-cyclic (Eq. 5-6): the first L positions of each rotation, [(k+j) mod N for j < L], M = N.
 *   Eq. 5's "k ≤ N−L" should read k ≤ N−L+1 (1-based; both equations agree there). The paper never
 *   states L.
 * - random-pruned: `count` (default 3N) distinct L-prefixes of uniformly random permutations (recommendation,
 *   not in the paper): as many prompts as random-3N at L/N of the tokens per call, and more prompts than
 *   unknowns (N + L − 1), so a is learnt; prompts shorter than N break the mirror symmetry of
 *   full-length prompts (notes §2.3 (ii)), so the data, not a rule, fix primacy vs recency. When
 *   fewer than `count` distinct prefixes exist (N!/(N−L)!), all of them are returned and `note` says so.
 * - all: every permutation, lexicographic, for tiny N (N ≤ 7, 5040 calls).
 * The paper's "variable pruning with retriever scores" (Table 6) is undefined and not offered here.
 */
import { createRng } from '../random/rng';

export type PermutationSetSpec =
  | { kind: 'random'; n: number; seed: number | string; count?: number }
  | { kind: 'cyclic'; n: number }
  | { kind: 'pruned-cyclic'; n: number; length: number }
  | { kind: 'random-pruned'; n: number; length: number; seed: number | string; count?: number }
  | { kind: 'all'; n: number };

export interface PermutationSet {
  kind: PermutationSetSpec['kind'];
  n: number;
  /** Positions per prompt L (N unless pruned). */
  length: number;
  permutations: number[][];
  /** One teacher-forced forward pass per permutation. */
  engineCalls: number;
  /** Passages in each prompt (= length): the per-call cost the pruned set reduces. */
  passagesPerCall: number;
  /** Every distinct permutation of this length is present (all, or random with N! ≤ count). */
  exhaustive: boolean;
  /** Set when the result differs from what was asked (e.g. fewer than `count` distinct permutations exist). */
  note?: string;
}

export const MAX_N_FOR_ALL = 7;

export function permutationSet(spec: PermutationSetSpec): PermutationSet {
  switch (spec.kind) {
    case 'random':
      return randomPermutationSet(spec.n, spec.seed, spec.count);
    case 'cyclic':
      return cyclicPermutationSet(spec.n);
    case 'pruned-cyclic':
      return prunedCyclicPermutationSet(spec.n, spec.length);
    case 'random-pruned':
      return randomPrunedPermutationSet(spec.n, spec.length, spec.seed, spec.count);
    case 'all':
      return allPermutationSet(spec.n);
  }
}

/** `count` (default 3N) distinct uniformly random permutations; all N! of them when N! ≤ count. */
export function randomPermutationSet(n: number, seed: number | string, count: number = 3 * n): PermutationSet {
  checkN(n);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`random permutation set: count must be a positive integer, got ${count}`);
  const total = factorialUpTo(n, count);
  if (total <= count) {
    const permutations = allPermutations(n);
    return {
      ...describe('random', n, n, permutations),
      exhaustive: true,
      ...(total < count ? { note: `only ${total} distinct permutations of ${n} passages exist (N! < ${count}); returning all of them` } : {}),
    };
  }
  const rng = createRng(seed).fork('moi-random-permutations');
  const identity = Array.from({ length: n }, (_, i) => i);
  const seen = new Set<string>();
  const permutations: number[][] = [];
  // Rejection of repeats; count < N! so this terminates (expected draws ≤ N!·H(N!) in the worst case).
  while (permutations.length < count) {
    const p = rng.shuffled(identity);
    const key = p.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    permutations.push(p);
  }
  return { ...describe('random', n, n, permutations), exhaustive: false };
}

/** The N rotations of the retriever order (Eq. 7-9). */
export function cyclicPermutationSet(n: number): PermutationSet {
  checkN(n);
  return { ...describe('cyclic', n, n, rotations(n, n)), exhaustive: n <= 2 };
}

/** The first L passages of each of the N rotations (Eq. 5-6), 1 ≤ L ≤ N. */
export function prunedCyclicPermutationSet(n: number, length: number): PermutationSet {
  checkN(n);
  if (!Number.isInteger(length) || length < 1 || length > n) throw new RangeError(`pruned cyclic set: L must be an integer in 1..${n}, got ${length}`);
  return { ...describe('pruned-cyclic', n, length, rotations(n, length)), exhaustive: false };
}

/**
 * `count` (default 3N) distinct L-prefixes of seeded uniform random permutations, 1 ≤ L ≤ N; every
 * distinct prefix (lexicographic) when there are no more than `count` of them. L = N is the random set.
 */
export function randomPrunedPermutationSet(n: number, length: number, seed: number | string, count: number = 3 * n): PermutationSet {
  checkN(n);
  if (!Number.isInteger(length) || length < 1 || length > n) throw new RangeError(`random pruned set: L must be an integer in 1..${n}, got ${length}`);
  if (!Number.isInteger(count) || count < 1) throw new RangeError(`random pruned set: count must be a positive integer, got ${count}`);
  const total = fallingFactorialUpTo(n, length, count);
  if (total <= count) {
    const permutations = allPermutations(n, length);
    return {
      ...describe('random-pruned', n, length, permutations),
      exhaustive: true,
      ...(total < count ? { note: `only ${total} distinct ${length}-prefixes of ${n} passages exist (N!/(N−L)! < ${count}); returning all of them` } : {}),
    };
  }
  const rng = createRng(seed).fork('moi-random-pruned-permutations');
  const identity = Array.from({ length: n }, (_, i) => i);
  const seen = new Set<string>();
  const permutations: number[][] = [];
  while (permutations.length < count) {
    const p = rng.shuffled(identity).slice(0, length);
    const key = p.join(',');
    if (seen.has(key)) continue;
    seen.add(key);
    permutations.push(p);
  }
  return { ...describe('random-pruned', n, length, permutations), exhaustive: false };
}

/** All N! permutations in lexicographic order (N ≤ 7). */
export function allPermutationSet(n: number): PermutationSet {
  checkN(n);
  if (n > MAX_N_FOR_ALL) throw new RangeError(`the 'all' set is for N ≤ ${MAX_N_FOR_ALL} (N! engine calls), got N = ${n}`);
  return { ...describe('all', n, n, allPermutations(n)), exhaustive: true };
}

function describe(kind: PermutationSet['kind'], n: number, length: number, permutations: number[][]) {
  return { kind, n, length, permutations, engineCalls: permutations.length, passagesPerCall: length };
}

function rotations(n: number, length: number): number[][] {
  return Array.from({ length: n }, (_, k) => Array.from({ length }, (_, j) => (k + j) % n));
}

/** Lexicographic order (Heap's algorithm would not be); with `length` < n, the distinct length-prefixes. */
function allPermutations(n: number, length: number = n): number[][] {
  const out: number[][] = [];
  const current: number[] = [];
  const used = new Array<boolean>(n).fill(false);
  const extend = () => {
    if (current.length === length) {
      out.push(current.slice());
      return;
    }
    for (let i = 0; i < n; i++) {
      if (used[i]) continue;
      used[i] = true;
      current.push(i);
      extend();
      current.pop();
      used[i] = false;
    }
  };
  extend();
  return out;
}

/** N!/(N−L)!, or any value > cap once it exceeds cap. */
function fallingFactorialUpTo(n: number, length: number, cap: number): number {
  let f = 1;
  for (let i = n; i > n - length; i--) {
    f *= i;
    if (f > cap) return f;
  }
  return f;
}

/** N!, or any value > cap once N! exceeds cap (no overflow for large N). */
function factorialUpTo(n: number, cap: number): number {
  let f = 1;
  for (let i = 2; i <= n; i++) {
    f *= i;
    if (f > cap) return f;
  }
  return f;
}

function checkN(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`N must be a positive integer, got ${n}`);
}
