/**
 * Attribute sets as the user writes them (name, kind, group labels, optional target and measure)
 * made complete and checked: the target defaults to uniform, the measure to JSD for nominal sets and
 * RNOD for ordinal ones (as the paper does for HINDEX), and core's `gfrcInputProblems` rules the
 * rest (at least 2 groups, a distribution, a measure that fits the kind, distinct names).
 */
import { DataError } from '../../core/errors';
import { formatFieldPath, gfrcInputProblems } from '../../core/fairness/gfrcInput';
import type { AttributeSetDef } from '../../store/conversationsRepo';
import { coreAttributeSets } from './nuggetRules';

export interface AttributeSetInput {
  name: string;
  kind: 'nominal' | 'ordinal';
  groups: string[];
  target?: number[] | undefined;
  measure?: 'jsd' | 'nmd' | 'rnod' | undefined;
}

export function completeAttributeSet(input: AttributeSetInput): AttributeSetDef {
  const n = input.groups.length;
  return {
    name: input.name.trim(),
    kind: input.kind,
    groups: input.groups.map((g) => g.trim()),
    target: input.target ?? Array.from({ length: n }, () => 1 / n),
    measure: input.measure ?? (input.kind === 'nominal' ? 'jsd' : 'rnod'),
  };
}

/** Completes and checks a list; errors name `field[m].…` (e.g. `attributeSets[1].target`). */
export function checkedAttributeSets(inputs: readonly AttributeSetInput[], field = 'attributeSets'): AttributeSetDef[] {
  const defs = inputs.map(completeAttributeSet);
  defs.forEach((d, m) => {
    if (d.name === '') throw new DataError('must not be empty', { field: `${field}[${m}].name` });
    if (d.groups.length < 2) throw new DataError(`needs at least 2 groups, got ${d.groups.length}`, { field: `${field}[${m}].groups` });
    const dup = d.groups.find((g, i) => d.groups.indexOf(g) !== i);
    if (dup !== undefined) throw new DataError(`group '${dup}' appears twice`, { field: `${field}[${m}].groups` });
    if (d.target.length !== d.groups.length) {
      throw new DataError(`expected ${d.groups.length} values (one per group), got ${d.target.length}`, { field: `${field}[${m}].target` });
    }
  });
  const [problem] = gfrcInputProblems({ L: 1, l_max: 1, attributeSets: coreAttributeSets(defs), nuggets: [] });
  if (problem) throw new DataError(problem.message, { field: `${field}${formatFieldPath(problem.path.slice(1))}` });
  return defs;
}
