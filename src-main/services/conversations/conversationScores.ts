/**
 * GFRC2 and GFRC of one stored conversation: its scored nuggets (everything but unaccepted
 * suggestions) become core's GfrcInput and go through core's gfrc2 and gfrc unchanged. A
 * conversation whose nuggets do not make a valid input (e.g. a relevant nugget without a membership
 * for an attribute set added later) gets no scores and a list of problems naming the nuggets.
 */
import { formatFieldPath, gfrcInputProblems, type GfrcInput } from '../../core/fairness/gfrcInput';
import { gfrc, type RVariant } from '../../core/fairness/gfrc';
import { gfrc2, type Gfrc2Cluster } from '../../core/fairness/gfrc2';
import type { ConversationSetRow, NuggetRow } from '../../store/conversationsRepo';
import { coreAttributeSets } from './nuggetRules';

export interface GfrcScores {
  R: number;
  GF: Record<string, number>;
  GFRC: number;
  rTerms: { turn: number; end: number; level: number; pw: number; g: number }[];
  turns: { turn: number; D: Record<string, number[]>; DistrSim: Record<string, number> }[];
}

export interface ConversationScores {
  rVariant: RVariant;
  /** Nuggets that entered the measures (suggestions not yet accepted are left out). */
  scoredNuggets: number;
  suggestedNuggets: number;
  /** Why the conversation could not be scored; empty when it was. */
  problems: string[];
  gfrc2: { clusters: Gfrc2Cluster[]; EGNP: number; EGF: Record<string, number>; GFRC2: number } | null;
  gfrc: GfrcScores | null;
}

export function gfrcInputOf(set: ConversationSetRow, nuggets: readonly NuggetRow[]): { input: GfrcInput; scored: NuggetRow[] } {
  const scored = nuggets.filter((n) => n.source !== 'llm-suggested');
  return {
    scored,
    input: {
      L: set.L,
      l_max: set.lMax,
      attributeSets: coreAttributeSets(set.attributeSets),
      nuggets: scored.map((n) => ({ turn: n.systemTurn, end: n.wordEnd, length: n.wordLength, level: n.level, groups: n.groups })),
    },
  };
}

export function scoreConversation(set: ConversationSetRow, nuggets: readonly NuggetRow[], rVariant: RVariant = 'eq6'): ConversationScores {
  const { input, scored } = gfrcInputOf(set, nuggets);
  const base = { rVariant, scoredNuggets: scored.length, suggestedNuggets: nuggets.length - scored.length };
  const problems = gfrcInputProblems(input).map((p) => {
    const [head, index, ...rest] = p.path;
    const where = rest.length ? `${formatFieldPath(rest)}: ` : '';
    if (head === 'nuggets' && typeof index === 'number') {
      const n = scored[index]!;
      return `nugget #${n.id} (words ${n.wordEnd - n.wordLength + 1}-${n.wordEnd}): ${where}${p.message}`;
    }
    return `${formatFieldPath(p.path)}: ${p.message}`;
  });
  if (problems.length > 0) return { ...base, problems, gfrc2: null, gfrc: null };
  const second = gfrc2(input);
  const first = gfrc(input, { rVariant });
  return {
    ...base,
    problems: [],
    gfrc2: { clusters: second.clusters, EGNP: second.EGNP, EGF: second.EGF, GFRC2: second.GFRC2 },
    gfrc: { R: first.R, GF: first.GF, GFRC: first.GFRC, rTerms: first.rTerms, turns: first.turns },
  };
}

/** The measures of the runs × topics table, in column order. */
export function measureNames(set: Pick<ConversationSetRow, 'attributeSets'>): string[] {
  const names = set.attributeSets.map((a) => a.name);
  return ['GFRC2', 'EGNP', ...names.map((n) => `EGF(${n})`), 'GFRC', 'R', ...names.map((n) => `GF(${n})`)];
}

/** The table's values of one scored conversation, by measure name. */
export function measureValues(set: Pick<ConversationSetRow, 'attributeSets'>, scores: ConversationScores): Record<string, number> | null {
  if (!scores.gfrc2 || !scores.gfrc) return null;
  const out: Record<string, number> = { GFRC2: scores.gfrc2.GFRC2, EGNP: scores.gfrc2.EGNP, GFRC: scores.gfrc.GFRC, R: scores.gfrc.R };
  for (const a of set.attributeSets) {
    out[`EGF(${a.name})`] = scores.gfrc2.EGF[a.name]!;
    out[`GF(${a.name})`] = scores.gfrc.GF[a.name]!;
  }
  return out;
}
