/**
 * The deterministic baseline retriever: the top k items by score, the ranking that every sample
 * converges to as α grows (Sec. 3.2.1; "maximum item-unfairness", EE-D̄ = 1 when n ≥ k).
 * Equal scores are ordered by id (code-unit order) so the baseline is reproducible.
 */
import { DataError } from '../errors';
import { checkCutoff, checkUniqueIds, compareIds } from './itemChecks';
import type { ScoredItem } from './plackettLuce';

export function deterministicTopK(items: readonly ScoredItem[], k: number): string[] {
  checkUniqueIds(items.map((it) => it.id));
  checkCutoff(k);
  for (const it of items) if (!Number.isFinite(it.score)) throw new DataError(`score of '${it.id}' is not a finite number`, { field: 'score' });
  return items
    .slice()
    .sort((a, b) => b.score - a.score || compareIds(a.id, b.id))
    .slice(0, k)
    .map((it) => it.id);
}
