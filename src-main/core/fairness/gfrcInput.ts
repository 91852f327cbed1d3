/**
 * The input of GFRC and GFRC2 (Sakai, Tao & Song 2025): a conversation reduced to its nuggets, each
 * placed by word positions over the whole conversation, with relevance levels and group membership
 * vectors per attribute set. `gfrcInputProblems` lists everything wrong with such an input, each with
 * a field path, so that callers can report it against their own file layout.
 */
import { DataError } from '../errors';
import type { DivergenceMeasure } from './distrSim';

export interface AttributeSet {
  name: string;
  /** Nominal groups (e.g. PRONOUN: he, she, other) or ordinal ones (e.g. HINDEX G1 < … < G4). */
  kind: 'nominal' | 'ordinal';
  /** Nominal sets use JSD; ordinal sets NMD or RNOD (Sec. 2.1). */
  measure: DivergenceMeasure;
  /** Target distribution D*, one probability per group. Used as given (not renormalised), as NTCIREVAL does. */
  target: number[];
}

export interface Nugget {
  /** The system turn the nugget lies in (1-based); GFRC's GF groups nuggets by it (Eq. 10). */
  turn: number;
  /** 1-based word position of the nugget's last word in the whole conversation, wc(n). */
  end: number;
  /** Number of words in the nugget; it covers words end − length + 1 … end. */
  length: number;
  /** Relevance level: 0 (not relevant) … l_max. */
  level: number;
  /** Membership vector per attribute set name (one-hot or soft, summing to 1). Required for relevant nuggets. */
  groups: Record<string, number[]>;
}

export interface GfrcInput {
  /** Reading budget in words (L = 1000 in FairWeb-2): position weights reach 0 and user clusters stop at L. */
  L: number;
  /** Highest relevance level (2 in FairWeb-2: L0-L2). */
  l_max: number;
  attributeSets: AttributeSet[];
  nuggets: Nugget[];
}

export type FieldPath = readonly (string | number)[];

export interface InputProblem {
  path: FieldPath;
  message: string;
}

/** How far a distribution's sum may stray from 1: admits a gold file's 0.333333 × 3, rejects 0.33 × 3. */
export const SUM_TOLERANCE = 1e-4;

/** `['nuggets', 3, 'level']` → `nuggets[3].level`. */
export function formatFieldPath(path: FieldPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? seg : `.${seg}`;
  }
  return out;
}

const isPositiveInteger = (x: number) => Number.isInteger(x) && x > 0;

function distributionProblem(v: readonly number[], size: number): string | undefined {
  if (v.length !== size) return `expected ${size} values (one per group), got ${v.length}`;
  const bad = v.findIndex((x) => !Number.isFinite(x) || x < 0);
  if (bad >= 0) return `value ${bad + 1} is ${v[bad]}; probabilities must be finite and non-negative`;
  const sum = v.reduce((s, x) => s + x, 0);
  if (Math.abs(sum - 1) > SUM_TOLERANCE) return `values sum to ${sum}, not 1`;
  return undefined;
}

export function gfrcInputProblems(input: GfrcInput): InputProblem[] {
  const problems: InputProblem[] = [];
  const add = (path: FieldPath, message: string) => problems.push({ path, message });

  if (!isPositiveInteger(input.L)) add(['L'], `must be a positive integer, got ${input.L}`);
  if (!isPositiveInteger(input.l_max)) add(['l_max'], `must be a positive integer, got ${input.l_max}`);

  const sizes = new Map<string, number>();
  input.attributeSets.forEach((set, m) => {
    if (set.name === '') add(['attributeSets', m, 'name'], 'must not be empty');
    else if (sizes.has(set.name)) add(['attributeSets', m, 'name'], `duplicate attribute set name '${set.name}'`);
    if (set.kind === 'nominal' && set.measure !== 'jsd') {
      add(['attributeSets', m, 'measure'], `a nominal attribute set needs 'jsd' (order-aware '${set.measure}' assumes ordered groups)`);
    } else if (set.kind === 'ordinal' && set.measure === 'jsd') {
      add(['attributeSets', m, 'measure'], "an ordinal attribute set needs 'nmd' or 'rnod'");
    }
    if (set.target.length < 2) add(['attributeSets', m, 'target'], `needs at least 2 groups, got ${set.target.length}`);
    else {
      const p = distributionProblem(set.target, set.target.length);
      if (p) add(['attributeSets', m, 'target'], p);
    }
    if (!sizes.has(set.name)) sizes.set(set.name, set.target.length);
  });

  input.nuggets.forEach((n, k) => {
    const at = (...rest: (string | number)[]) => ['nuggets', k, ...rest];
    if (!isPositiveInteger(n.turn)) add(at('turn'), `must be a positive integer, got ${n.turn}`);
    if (!isPositiveInteger(n.end)) add(at('end'), `must be a positive integer word position, got ${n.end}`);
    if (!isPositiveInteger(n.length)) add(at('length'), `must be a positive integer, got ${n.length}`);
    else if (isPositiveInteger(n.end) && n.length > n.end) add(at('length'), `${n.length} words cannot end at word ${n.end}`);
    if (!Number.isInteger(n.level) || n.level < 0 || n.level > input.l_max) {
      add(at('level'), `must be an integer from 0 to l_max = ${input.l_max}, got ${n.level}`);
    }
    for (const [name, v] of Object.entries(n.groups)) {
      const size = sizes.get(name);
      if (size === undefined) add(at('groups', name), `unknown attribute set '${name}'`);
      else {
        const p = distributionProblem(v, size);
        if (p) add(at('groups', name), p);
      }
    }
    // Only relevant nuggets enter the achieved distributions (Eq. 10, Eq. 18), so L0 nuggets may omit groups.
    if (n.level >= 1) {
      for (const set of input.attributeSets) {
        if (!(set.name in n.groups)) add(at('groups', set.name), `missing: a relevant nugget needs a membership vector for every attribute set`);
      }
    }
  });

  if (problems.length === 0) problems.push(...layoutProblems(input.nuggets));
  return problems;
}

/**
 * Nuggets must not overlap (else I(wc) and the word counts are ill-defined), and turn numbers must not
 * decrease along the conversation.
 */
function layoutProblems(nuggets: readonly Nugget[]): InputProblem[] {
  const order = nuggets.map((_, k) => k).sort((a, b) => nuggets[a]!.end - nuggets[b]!.end);
  for (let i = 1; i < order.length; i++) {
    const prev = nuggets[order[i - 1]!]!;
    const k = order[i]!;
    const cur = nuggets[k]!;
    const start = cur.end - cur.length + 1;
    if (start <= prev.end) {
      return [{ path: ['nuggets', k], message: `words ${start}-${cur.end} overlap nuggets[${order[i - 1]}] (words ${prev.end - prev.length + 1}-${prev.end})` }];
    }
    if (cur.turn < prev.turn) {
      return [{ path: ['nuggets', k, 'turn'], message: `turn ${cur.turn} at words ${start}-${cur.end} comes after nuggets[${order[i - 1]}] in turn ${prev.turn}` }];
    }
  }
  return [];
}

/** Throws a DataError naming the first problem's field path. */
export function assertGfrcInput(input: GfrcInput): void {
  const [first] = gfrcInputProblems(input);
  if (first) throw new DataError(first.message, { field: formatFieldPath(first.path) });
}

/** Relevant nuggets (level ≥ 1) in conversation order. */
export function relevantNuggets(nuggets: readonly Nugget[]): Nugget[] {
  return nuggets.filter((n) => n.level >= 1).sort((a, b) => a.end - b.end);
}
