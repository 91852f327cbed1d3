/**
 * Drill-down of one query of a MoI run (pure over the query's items): its passages in retriever
 * order with gold flags and the fitted u, every scored ordering with s_i, its two terms and the
 * fit's prediction ŝ_i, the fitted a and u with orientation and identifiability, and each method's
 * order, per-passage scores, answer and values — the rows behind every number of the tables.
 */
import type { MoiQueryDetail } from '../../api/contract/moi';
import { DataError } from '../../core/errors';
import type { RunItem } from '../../store/experimentsRepo';
import { fitCaveats, fitChecks, generationKey, indexRunItems, orientationByRule } from './items';
import { methodLabel } from './plan';
import { methodValue } from './tables';

export function moiQueryDetail(queryId: string, items: readonly RunItem[]): MoiQueryDetail {
  const data = indexRunItems(items);
  const q = data.queries.get(queryId);
  if (!q) throw new DataError(`the run has no query '${queryId}'`, { field: 'queryId' });
  const fit = data.fits.get(queryId) ?? null;
  const perms = data.perms.get(queryId);
  const predicted = new Map<string, number>();
  if (fit) q.set.permutations.forEach((order, i) => predicted.set(order.join(','), fit.predictions[i]!));
  return {
    queryId,
    text: q.text,
    answers: q.answers,
    metric: q.metrics[0]!,
    passages: q.passages.map((p, index) => ({ index, docId: p.docId, title: p.title, text: p.text, retrieverScore: p.retrieverScore, gold: p.gold, u: fit ? (fit.u[index] ?? null) : null })),
    permutations: q.set.permutations.map((order, sample) => {
      const p = perms?.get(order.join(','));
      return {
        sample,
        order,
        s: p?.s ?? null,
        question: p?.question ?? null,
        passages: p?.passages ?? null,
        predicted: predicted.get(order.join(',')) ?? null,
        tokens: p ? p.promptTokens + p.continuationTokens : null,
        fromCache: p?.fromCache ?? null,
      };
    }),
    fit: fit && {
      a: fit.a,
      u: fit.u,
      ranking: fit.ranking,
      objective: fit.objective,
      orientation: fit.orientation,
      underdetermined: fit.underdetermined,
      reasons: fit.reasons,
      biasSlope: fit.biasSlope,
      retrieverTau: fit.retrieverTau,
      converged: fit.converged,
      fixedA: fit.fixedA,
      orientationRule: fit.orientationRule,
      orientationByRule: orientationByRule(fit),
      ...fitChecks(fit),
      caveats: fitCaveats(fit),
    },
    methods: q.methods.map((method) => {
      const m = data.methods.get(queryId)?.get(method);
      const hash = m ? (m.chosen ? m.promptHashes[m.chosen.index] : m.promptHashes.length === 1 ? m.promptHashes[0] : undefined) : undefined;
      const g = hash ? data.generations.get(generationKey(queryId, hash)) : undefined;
      let note = m?.note ?? null;
      if (m?.chosen) note = m.chosen.rule === 'exact' ? `${m.chosen.support} of ${m.promptHashes.length} answers agree (SQuAD-normalised exact match)` : `highest mean token F1 to the other answers (${m.chosen.support.toFixed(3)})`;
      return {
        method,
        label: methodLabel(method),
        order: m?.order ?? null,
        scores: m?.scores ?? null,
        answer: g?.output ?? null,
        values: Object.fromEntries(q.metrics.map((measure) => [measure, methodValue(data, queryId, method, measure)])),
        note,
      };
    }),
  };
}
