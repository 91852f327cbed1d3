/**
 * Drill-down rows of a Fair RAG run: one row per sampled ranking (a page of sample items), joined
 * with its query snapshot (useful flags, providers), its generation (prompt, output, utility) and
 * its attribution judgments — what a view shows behind an aggregate number.
 */
import type { FairRagSpec } from '../../api/contract/experiments';
import type { ExperimentsRepo } from '../../store/experimentsRepo';
import type { ItemsQuery } from '../registry';
import { generationKey, judgmentKey, KEY_PREFIX, queryKey, type GenerationPayload, type JudgmentPayload, type QueryPayload, type SamplePayload } from './items';

export interface DrillDownRow {
  key: string;
  queryId: string;
  condition: string;
  sample: number | null;
  retriever: string | null;
  alpha: number | null;
  ranking: { docId: string; useful: boolean; provider: string | null }[];
  prompt: string | null;
  output: string | null;
  utility: number | null;
  attributionRate: number | null;
  attribution: { docId: string; entails: boolean; raw: string | null }[] | null;
}

export function fairRagItems(runId: number, spec: FairRagSpec, repo: ExperimentsRepo, query: ItemsQuery): { total: number; items: DrillDownRow[] } {
  const filter = { queryId: query.queryId, condition: query.condition, keyPrefix: KEY_PREFIX.sample };
  const total = repo.countItems(runId, filter);
  const rows = repo.items(runId, filter, { offset: query.offset, limit: query.limit });
  const queries = repo.itemsByKeys(
    runId,
    rows.map((r) => queryKey(r.queryId)),
  );
  const gens = repo.itemsByKeys(
    runId,
    rows.map((r) => generationKey(r.queryId, (r.payload as SamplePayload).promptHash)),
  );
  const items = rows.map((r): DrillDownRow => {
    const s = r.payload as SamplePayload;
    const q = queries.get(queryKey(r.queryId))?.payload as QueryPayload | undefined;
    const byDoc = new Map((q?.candidates ?? []).map((c) => [c.docId, c]));
    const g = gens.get(generationKey(r.queryId, s.promptHash))?.payload as GenerationPayload | undefined;
    const top = s.ranking.slice(0, spec.k);
    let attribution: DrillDownRow['attribution'] = null;
    if (g && spec.attribution.judge === 'citation') {
      const cited = new Set(g.citations ?? []);
      attribution = top.map((docId, i) => ({ docId, entails: cited.has(i + 1), raw: null }));
    } else if (g && spec.attribution.judge === 'nli-llm') {
      const judged = repo.itemsByKeys(
        runId,
        top.map((docId) => judgmentKey(r.queryId, g.outputHash, docId)),
      );
      const list = top.map((docId) => judged.get(judgmentKey(r.queryId, g.outputHash, docId))?.payload as JudgmentPayload | undefined);
      attribution = list.every((j) => j !== undefined) ? list.map((j) => ({ docId: j!.docId, entails: j!.entails, raw: j!.raw })) : null;
    }
    return {
      key: r.key,
      queryId: r.queryId,
      condition: r.condition,
      sample: r.sample,
      retriever: s.retriever,
      alpha: s.alpha,
      ranking: s.ranking.map((docId) => ({ docId, useful: byDoc.get(docId)?.useful ?? false, provider: byDoc.get(docId)?.provider ?? null })),
      prompt: g?.prompt ?? null,
      output: g?.output ?? null,
      utility: g?.utility ?? null,
      attributionRate: attribution ? attribution.filter((a) => a.entails).length / spec.k : null,
      attribution,
    };
  });
  return { total, items };
}
