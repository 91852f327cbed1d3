/** Which condition a run compares against, and the sub-aspects a condition's generator prompt shows. */
import { richRagConditions, type RichRagCondition, type RichRagSpec } from '../../api/contract/richrag';
import type { PoolPayload } from './items';

/** The first setting's RAG-Fusion when the spec has it (the paper's basic sub-aspect baseline), else the first condition. */
export function defaultBaseline(spec: Pick<RichRagSpec, 'settings' | 'frameworks'>): string {
  const conditions = richRagConditions(spec);
  const fusion = `${spec.settings[0]}/rag-fusion`;
  return conditions.some((c) => c.condition === fusion) ? fusion : conditions[0]!.condition;
}

export function analysisBaseline(spec: RichRagSpec): string {
  return spec.analysis.baseline ?? defaultBaseline(spec);
}

export function judgeBaseline(spec: RichRagSpec): string {
  return spec.judge.baseline ?? defaultBaseline(spec);
}

/** The conditions judged against the judge's baseline. */
export function judgedSystems(spec: RichRagSpec): RichRagCondition[] {
  const baseline = judgeBaseline(spec);
  const all = richRagConditions(spec);
  return spec.judge.systems ? all.filter((c) => spec.judge.systems!.includes(c.condition)) : all.filter((c) => c.condition !== baseline);
}

/** Sub-aspects for {{aspects}}: the pool's own, none when the query stood in for them. */
export function promptAspects(pool: PoolPayload | null): string[] {
  return pool && !pool.fallback ? pool.aspects : [];
}
