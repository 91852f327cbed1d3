/**
 * GFRC2 (Sakai, Tao & Song 2025, Sec. 3, Eq. 11-21): the expected total experience of a population
 * of users who read the conversation word by word and abandon it at the end of a relevant nugget.
 * Each user cluster sits at the end wc of a relevant nugget with Prob = 1/L if wc ≤ L (Eq. 14); its
 * experience mixes graded nugget precision (GNP) with the distribution similarity of the relevant
 * nuggets read so far.
 */
import { distrSim, meanDistribution } from './distrSim';
import { assertGfrcInput, relevantNuggets, type GfrcInput } from './gfrcInput';
import { checkWeights, equalWeights, type ComponentWeights } from './weights';

export interface Gfrc2Options {
  /** w_0 (GNP) and w_m per attribute set in Eq. 12; default 1/(M+1) each (Eq. 19). */
  weights?: ComponentWeights;
}

export interface Gfrc2Cluster {
  /** Word count at which this cluster abandons the conversation (a relevant nugget's end). */
  wc: number;
  /** Eq. 16: Σ_l l · WCrel_l(wc). */
  GWCrel: number;
  /** Words among the first wc that belong to no relevant nugget (L0 nuggets' words included). */
  WCnonrel: number;
  /** Eq. 15. */
  GNP: number;
  /** Eq. 18: mean membership over all relevant nuggets ending ≤ wc, cumulative across turns. */
  D: Record<string, number[]>;
  /** Eq. 17. */
  DistrSim: Record<string, number>;
  /** Eq. 12. */
  Experience: number;
}

export interface Gfrc2Result {
  /** User clusters with Prob > 0, i.e. relevant nugget ends wc ≤ L. */
  clusters: Gfrc2Cluster[];
  /** Eq. 20. */
  EGNP: number;
  /** Eq. 21, per attribute set. */
  EGF: Record<string, number>;
  /** Eq. 11 (Eq. 19 with the default weights). */
  GFRC2: number;
}

export function gfrc2(input: GfrcInput, options: Gfrc2Options = {}): Gfrc2Result {
  assertGfrcInput(input);
  const weights = options.weights ?? equalWeights(input.attributeSets);
  checkWeights(weights, input.attributeSets, 'weights', 'main');
  const { L, attributeSets } = input;

  const clusters: Gfrc2Cluster[] = [];
  const seen: GfrcInput['nuggets'] = [];
  let gwcRel = 0;
  let relWords = 0;
  for (const n of relevantNuggets(input.nuggets)) {
    // Nuggets do not overlap, so the relevant words among the first wc are exactly those of the
    // relevant nuggets ending ≤ wc.
    seen.push(n);
    gwcRel += n.level * n.length;
    relWords += n.length;
    // Eq. 14: users stop reading at L, so a nugget ending past L opens no cluster (and later ones neither).
    if (n.end > L) break;
    const wcNonrel = n.end - relWords;
    const gnp = gwcRel / (wcNonrel + gwcRel);
    const D: Record<string, number[]> = {};
    const sim: Record<string, number> = {};
    for (const set of attributeSets) {
      D[set.name] = meanDistribution(seen.map((s) => s.groups[set.name]!), set.target.length);
      sim[set.name] = distrSim(set.measure, D[set.name]!, set.target);
    }
    const experience = weights.main * gnp + attributeSets.reduce((s, set) => s + weights.sets[set.name]! * sim[set.name]!, 0);
    clusters.push({ wc: n.end, GWCrel: gwcRel, WCnonrel: wcNonrel, GNP: gnp, D, DistrSim: sim, Experience: experience });
  }

  // Eq. 20, 21, 11: sums over clusters divided by L (not by the number of clusters).
  const EGNP = clusters.reduce((s, c) => s + c.GNP, 0) / L;
  const EGF: Record<string, number> = {};
  for (const set of attributeSets) EGF[set.name] = clusters.reduce((s, c) => s + c.DistrSim[set.name]!, 0) / L;
  const GFRC2 = clusters.reduce((s, c) => s + c.Experience, 0) / L;
  return { clusters, EGNP, EGF, GFRC2 };
}
