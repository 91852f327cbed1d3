/**
 * Drill-down rows of a Fair RAG run: one row per sampled ranking (a page of sample items), joined
 * with its query snapshot (useful flags, providers), its generation (prompt, output, utility) and
 * its attribution judgments — what a view shows behind an aggregate number.
 */
import type { FairRagSpec, RunItemRow } from '../../api/contract/fairRag';
import type { ExperimentsRepo, RunItem } from '../../store/experimentsRepo';
import { pageOfItems } from '../itemsPage';
import type { ItemsPage, ItemsQuery } from '../registry';
import { generationUtility } from './queryMetrics';
import { generationKey, judgmentKey, KEY_PREFIX, queryKey, type GenerationPayload, type JudgmentPayload, type QueryPayload, type SamplePayload } from './items';

export function fairRagItems(runId: number, spec: FairRagSpec, repo: ExperimentsRepo, query: ItemsQuery): ItemsPage<RunItemRow> {
  return pageOfItems(repo, runId, KEY_PREFIX.sample, query, (rows) => drillDownRows(runId, spec, repo, rows));
}

function drillDownRows(runId: number, spec: FairRagSpec, repo: ExperimentsRepo, rows: RunItem[]): RunItemRow[] {
  const queries = repo.itemsByKeys(
    runId,
    rows.map((r) => queryKey(r.queryId)),
  );
  const gens = repo.itemsByKeys(
    runId,
    rows.map((r) => generationKey(r.queryId, (r.payload as SamplePayload).promptHash)),
  );
  return rows.map((r): RunItemRow => {
    const s = r.payload as SamplePayload;
    const q = queries.get(queryKey(r.queryId))?.payload as QueryPayload | undefined;
    const byDoc = new Map((q?.candidates ?? []).map((c) => [c.docId, c]));
    const g = gens.get(generationKey(r.queryId, s.promptHash))?.payload as GenerationPayload | undefined;
    const top = s.ranking.slice(0, spec.k);
    let attribution: RunItemRow['attribution'] = null;
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
      utility: g ? generationUtility(q ?? { lowerIsBetter: false, worst: null }, g) : null,
      attributionRate: attribution ? attribution.filter((a) => a.entails).length / spec.k : null,
      attribution,
    };
  });
}
