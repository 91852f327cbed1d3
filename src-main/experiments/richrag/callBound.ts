/**
 * An upper bound on the LLM calls a RichRAG run makes (issue 34 item 8e). The cost estimate walks
 * the plan with stand-in answers; with a real model those are placeholders, so its later stages
 * (ranker steps, answers, judgments that depend on the explorer's sub-aspects) are an expected
 * count, not a bound: a model that writes more sub-aspects than the placeholder makes the run ask
 * for more. This bound takes every output at its maximum instead:
 *
 * - explorer: one call per query (setting 'predicted');
 * - a setting's pool: at most min(capacity, aspects × topN, documents searched) candidates, where
 *   aspects is explorer.maxAspects (predicted) or the query's golden sub-aspects (at least 1: the
 *   query stands in when there are none), and documents searched is the query's candidate set or
 *   the collection;
 * - a list-wise ranking of C candidates: windows W(C) = 1 + ⌈(C − window) / (window − k)⌉ (one when
 *   C ≤ window), each at most min(k, C) steps, one call per step (listwiseRanker.ts);
 * - one answer per condition, two judge calls (both orders) per judged condition;
 * - a training query: samples + 1 US³ lists, each a list-wise ranking and one answer.
 *
 * Calls answered by the cache count too (they are calls the run asks for), so the bound holds for
 * calls made, computed or not.
 */
import { richRagConditions, type RichRagSpec } from '../../api/contract/richrag';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import { judgedSystems } from './conditions';
import { loadRichRagData, type RichRagQuery } from './data';
import { preferenceSetting } from './preferences';
import { usesCandidates } from './retrieval';

export interface RichRagCallBound {
  /** At most this many LLM calls in all. */
  total: number;
  explorer: number;
  ranker: number;
  answers: number;
  judge: number;
  /** How the bound is taken, in words. */
  basis: string;
}

/** Steps of a list-wise ranking of `c` candidates at most (listwiseRanker.ts rankListwise). */
export function listwiseStepsBound(c: number, k: number, window: number): number {
  if (c <= 0) return 0;
  const windows = c <= window ? 1 : 1 + Math.ceil((c - window) / (window - k));
  return windows * Math.min(k, c);
}

export function richRagCallBound(spec: RichRagSpec, repo: CollectionsRepo): RichRagCallBound {
  const data = loadRichRagData(spec, repo);
  const collectionDocs = repo.counts(data.collection.id).documents;
  const conditions = richRagConditions(spec);
  const listwise = conditions.filter((c) => c.framework === 'listwise');
  const judged = spec.judge.enabled ? judgedSystems(spec) : [];
  const explores = spec.settings.includes('predicted');
  const poolBound = (q: RichRagQuery, setting: 'predicted' | 'golden'): number => {
    const searched = usesCandidates(spec.retrieval.scope, q.candidates) ? (q.candidates ?? []).length : collectionDocs;
    const aspects = setting === 'predicted' ? spec.explorer.maxAspects : Math.max(1, q.golden.length);
    return Math.min(spec.retrieval.capacity, aspects * spec.retrieval.topN, searched);
  };
  const steps = (q: RichRagQuery, setting: 'predicted' | 'golden') => listwiseStepsBound(poolBound(q, setting), spec.k, spec.ranker.window);
  let explorer = 0;
  let ranker = 0;
  let answers = 0;
  let judge = 0;
  for (const q of data.queries) {
    if (explores) explorer++;
    if (q.roles.evaluate) {
      for (const c of listwise) ranker += steps(q, c.setting!);
      answers += conditions.length;
      judge += 2 * judged.length;
    }
    if (q.roles.train) {
      const lists = spec.preferences.samples + 1;
      ranker += lists * steps(q, preferenceSetting(spec));
      answers += lists;
    }
  }
  return {
    total: explorer + ranker + answers + judge,
    explorer,
    ranker,
    answers,
    judge,
    basis: `every output at its maximum: ${spec.explorer.maxAspects} sub-aspects per explorer answer, pools of min(capacity ${spec.retrieval.capacity}, sub-aspects × topN ${spec.retrieval.topN}, documents searched), every list-wise window ranked to k = ${spec.k}, two judge calls per judged answer`,
  };
}
