/**
 * What a nugget must satisfy before it is stored: a level from 0 to l_max, a membership vector for
 * every attribute set when it is relevant (level ≥ 1; Eq. 10 and Eq. 18 average them), vectors of
 * the set's size summing to 1, and no overlap with another nugget (else I(wc) and the word counts
 * are ill-defined). The level and vector rules are core's `gfrcInputProblems`, applied to the one
 * nugget, so the annotation screen refuses exactly what `eval gfrc2` would.
 */
import { DataError } from '../../core/errors';
import { formatFieldPath, gfrcInputProblems, type AttributeSet } from '../../core/fairness/gfrcInput';
import type { AttributeSetDef, NuggetRow } from '../../store/conversationsRepo';

export type MembershipInput = Record<string, number[] | string>;

export function coreAttributeSets(defs: readonly AttributeSetDef[]): AttributeSet[] {
  return defs.map((d) => ({ name: d.name, kind: d.kind, measure: d.measure, target: d.target }));
}

/** Group labels become one-hot vectors; vectors are kept as given. Fields: `groups.SET`. */
export function resolveMemberships(defs: readonly AttributeSetDef[], groups: MembershipInput | undefined): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [name, value] of Object.entries(groups ?? {})) {
    const def = defs.find((d) => d.name === name);
    if (!def) {
      const known = defs.map((d) => `'${d.name}'`).join(', ') || 'none';
      throw new DataError(`unknown attribute set '${name}' (the set has ${known})`, { field: `groups.${name}` });
    }
    if (typeof value === 'string') {
      const i = def.groups.indexOf(value);
      if (i < 0) throw new DataError(`unknown group '${value}' (${name} has ${def.groups.map((g) => `'${g}'`).join(', ')})`, { field: `groups.${name}` });
      out[name] = def.groups.map((_, k) => (k === i ? 1 : 0));
    } else out[name] = [...value];
  }
  return out;
}

export function checkLevelAndGroups(defs: readonly AttributeSetDef[], lMax: number, level: number, groups: Record<string, number[]>): void {
  const problems = gfrcInputProblems({ L: 1, l_max: lMax, attributeSets: coreAttributeSets(defs), nuggets: [{ turn: 1, end: 1, length: 1, level, groups }] });
  const mine = problems.find((p) => p.path[0] === 'nuggets');
  if (mine) throw new DataError(mine.message, { field: formatFieldPath(mine.path.slice(2)) });
}

/** The stored nugget of the same turn whose span shares a character with [start, end), if any. */
export function overlapping(nuggets: readonly NuggetRow[], turn: number, start: number, end: number, exceptId?: number): NuggetRow | undefined {
  return nuggets.find((n) => n.id !== exceptId && n.turn === turn && n.start < end && n.end > start);
}

export function overlapMessage(other: { start: number; end: number; wordEnd: number; wordLength: number }, turnText: string): string {
  const text = turnText.slice(other.start, other.end).replace(/\s+/gu, ' ');
  const shown = text.length > 50 ? `${text.slice(0, 47)}...` : text;
  return `overlaps the nugget '${shown}' (words ${other.wordEnd - other.wordLength + 1}-${other.wordEnd}); nuggets must not overlap — delete or shrink that one first`;
}
