/**
 * Drill-down rows of a RichRAG run: one row per query × condition (a page of generation items) with
 * the chosen list, the answer and its scores — what a table cell's mean is made of. The per-query
 * view with pools, coverage and highlights is queryView.ts.
 */
import type { RichRagSpec } from '../../api/contract/richrag';
import type { ExperimentsRepo } from '../../store/experimentsRepo';
import type { ItemsQuery } from '../registry';
import { KEY_PREFIX, type GenerationPayload } from './items';

export interface RichRagItemRow {
  key: string;
  queryId: string;
  condition: string;
  framework: string;
  setting: string | null;
  ranking: string[];
  output: string;
  scores: Record<string, number>;
}

export function richRagItems(runId: number, _spec: RichRagSpec, repo: ExperimentsRepo, query: ItemsQuery): { kind: 'richrag'; total: number; items: RichRagItemRow[] } {
  const filter = { queryId: query.queryId, condition: query.condition, keyPrefix: KEY_PREFIX.generation };
  const total = repo.countItems(runId, filter);
  const items = repo.items(runId, filter, { offset: query.offset, limit: query.limit }).map((it) => {
    const g = it.payload as GenerationPayload;
    const { coverage: _coverage, ...scores } = g.scores;
    return { key: it.key, queryId: it.queryId, condition: it.condition, framework: g.framework, setting: g.setting, ranking: g.ranking, output: g.output, scores };
  });
  return { kind: 'richrag', total, items };
}
