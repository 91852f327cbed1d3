/**
 * GFRC, the measure of the NTCIR-18 FairWeb-2 CS subtask (Sakai, Tao & Song 2025, Sec. 2): a
 * relevance score R over nuggets with linear position weights, a group-fairness score GF^m per
 * attribute set over the system turns that hold relevant nuggets, and their average.
 */
import { distrSim, meanDistribution } from './distrSim';
import { gainTable } from './gains';
import { assertGfrcInput, relevantNuggets, type GfrcInput } from './gfrcInput';
import { checkWeights, equalWeights, type ComponentWeights } from './weights';

/**
 * Which R the caller wants:
 * - eq6 (default, what the paper uses): pw = max(0, 1 − (wc−1)/L), R = 2/(L+1)·Σ pw·g   (Eq. 6)
 * - eq7 (what FairWeb-2 actually ran): pw = max(0, 1 − wc/L), R = 2/(L+1)·Σ pw·g       (Eq. 7)
 * - eq9 (Eq. 7's weights with their matching normaliser): R = 2/(L−1)·Σ pw·g          (Eq. 9)
 */
export type RVariant = 'eq6' | 'eq7' | 'eq9';

export interface GfrcOptions {
  rVariant?: RVariant;
  /** Gain per relevance level 0 … l_max; default (2^l − 1)/2^{l_max}. */
  gains?: readonly number[];
  /** Default: R and every GF^m weighted 1/(M+1), which reproduces Table 5. */
  weights?: ComponentWeights;
}

export interface RTerm {
  turn: number;
  end: number;
  level: number;
  pw: number;
  g: number;
}

export interface GfTurn {
  turn: number;
  /** D^m(S_i): mean membership of the turn's relevant nuggets (the "independent distribution" method). */
  D: Record<string, number[]>;
  DistrSim: Record<string, number>;
}

export interface GfrcResult {
  R: number;
  GF: Record<string, number>;
  GFRC: number;
  /** One row per relevant nugget, as in Table 4(a). */
  rTerms: RTerm[];
  /** One row per system turn with at least one relevant nugget, as in Table 4(b)/(c). */
  turns: GfTurn[];
}

/** Position weight of a nugget ending at word wc (Eq. 4 for eq6; Eq. 7/9's variant otherwise). */
export function positionWeight(wc: number, L: number, variant: RVariant = 'eq6'): number {
  const offset = variant === 'eq6' ? wc - 1 : wc;
  return Math.max(0, 1 - offset / L);
}

export function gfrc(input: GfrcInput, options: GfrcOptions = {}): GfrcResult {
  assertGfrcInput(input);
  const variant = options.rVariant ?? 'eq6';
  const gains = gainTable(input.l_max, options.gains);
  const weights = options.weights ?? equalWeights(input.attributeSets);
  checkWeights(weights, input.attributeSets, 'weights', 'main');

  const relevant = relevantNuggets(input.nuggets);
  const { L } = input;

  // Eq. 1 with Eq. 5 (eq6, eq7) or Eq. 8 (eq9) as the normaliser N. Nuggets past L get pw = 0.
  const rTerms = relevant.map((n) => ({ turn: n.turn, end: n.end, level: n.level, pw: positionWeight(n.end, L, variant), g: gains[n.level]! }));
  const norm = variant === 'eq9' ? 2 / (L - 1) : 2 / (L + 1);
  const R = norm * rTerms.reduce((s, t) => s + t.pw * t.g, 0);

  // Eq. 10: per relevant turn, D from that turn's relevant nuggets only; no position weight, no cut-off at L.
  const byTurn = new Map<number, typeof relevant>();
  for (const n of relevant) {
    const list = byTurn.get(n.turn);
    if (list) list.push(n);
    else byTurn.set(n.turn, [n]);
  }
  const turns: GfTurn[] = [...byTurn.entries()].map(([turn, ns]) => {
    const D: Record<string, number[]> = {};
    const sim: Record<string, number> = {};
    for (const set of input.attributeSets) {
      D[set.name] = meanDistribution(ns.map((n) => n.groups[set.name]!), set.target.length);
      sim[set.name] = distrSim(set.measure, D[set.name]!, set.target);
    }
    return { turn, D, DistrSim: sim };
  });
  const GF: Record<string, number> = {};
  for (const set of input.attributeSets) {
    GF[set.name] = turns.length === 0 ? 0 : turns.reduce((s, t) => s + t.DistrSim[set.name]!, 0) / turns.length;
  }

  // GFRC = (R + Σ_m GF^m)/(M+1) by default: α = 1/(M+1) in Eq. 3 with w_m = 1/M in Eq. 2. Eq. 3 read
  // literally with α = ½ gives 0.288752 for COPWA instead of the printed 0.382158.
  const GFRC = weights.main * R + input.attributeSets.reduce((s, set) => s + weights.sets[set.name]! * GF[set.name]!, 0);
  return { R, GF, GFRC, rTerms, turns };
}
