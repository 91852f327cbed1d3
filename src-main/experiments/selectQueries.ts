/**
 * The queries an experiment spec names: the listed ids (an unknown id is a DataError naming
 * `field[i]`) or every query of the collection, paged from the repository.
 */
import { DataError } from '../core/errors';
import type { CollectionsRepo } from '../store/collectionsRepo';
import type { QueryRow } from '../store/collectionTypes';

export function selectQueries(
  repo: CollectionsRepo,
  collection: { id: number; name: string },
  queries: 'all' | readonly string[],
  field = 'queries',
): QueryRow[] {
  if (queries !== 'all') {
    return queries.map((id, i) => {
      const q = repo.getQuery(collection.id, id);
      if (!q) throw new DataError(`no query '${id}' in collection '${collection.name}'`, { field: `${field}[${i}]` });
      return q;
    });
  }
  const out: QueryRow[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = repo.listQueries(collection.id, { offset, limit: 1000 });
    out.push(...page.items);
    if (page.items.length < 1000) break;
  }
  return out;
}
