/**
 * The per-query view of a RichRAG run (pure: the query's stored items → plain data): its sub-aspects
 * (predicted and golden), every setting's pool with aspect tags, φ per sub-answer and relevance, and
 * for every condition the chosen list, the ranker's steps, the answer with its scores, the coverage of
 * each sub-answer — by the top-k documents (max φ) and by the answer (φ) — and the answer cut into
 * segments marked by the sub-answers they match (highlight.ts).
 */
import { richRagConditions, type RichRagQueryView, type RichRagSpec } from '../../api/contract/richrag';
import { DataError } from '../../core/errors';
import type { RunItem } from '../../store/experimentsRepo';
import { HIGHLIGHT_RULE, highlightSegments } from './highlight';
import { docLabel, indexRunItems } from './items';
import { relevanceLabels } from './rankingMetrics';

export function richRagQueryView(spec: RichRagSpec, items: readonly RunItem[], queryId: string): RichRagQueryView {
  const data = indexRunItems(items);
  const query = data.queries.get(queryId);
  if (!query) throw new DataError(`no query '${queryId}' in this run`, { field: 'queryId' });
  const docs = data.documents.get(queryId) ?? null;
  const explorer = data.explorer.get(queryId) ?? null;
  const labels = docs ? relevanceLabels(spec, query, docs) : new Map<string, number>();
  const tagsOf = new Map<string, string[]>();
  for (const p of docs?.pools ?? []) for (const e of p.pool) if (!tagsOf.has(e.id)) tagsOf.set(e.id, e.aspects);
  const subAnswers = query.golden.map((g) => g.answer);

  const conditions = richRagConditions(spec).flatMap((c) => {
    const g = data.generations.get(queryId)?.get(c.condition);
    const list = data.lists.get(queryId)?.get(c.condition);
    if (!g && !list) return [];
    const ranking = g?.ranking ?? list?.ranking ?? [];
    const poolTags = c.setting ? new Map((docs?.pools.find((p) => p.setting === c.setting)?.pool ?? []).map((e) => [e.id, e.aspects])) : tagsOf;
    const docCoverage = subAnswers.map((_, i) => ranking.reduce((m, id) => Math.max(m, docs?.docs[id]?.phi[i] ?? 0), 0));
    return [
      {
        ...c,
        ranking: ranking.map((id) => ({ docId: id, title: docs?.docs[id]?.title ?? '', aspects: poolTags.get(id) ?? [] })),
        steps: list?.steps?.map((s) => ({ window: s.window, raw: s.raw, docId: s.docId, fallback: s.fallback })) ?? null,
        prompt: g?.prompt ?? null,
        output: g?.output ?? null,
        scores: (g ? { F1: g.scores.f1, R2: g.scores.r2, RL: g.scores.rl, CR1: g.scores.cr1, CR2: g.scores.cr2, CRL: g.scores.crl } : {}) as Record<string, number | null>,
        coverage: { documents: docCoverage, answer: g ? g.scores.coverage : subAnswers.map(() => null) },
        segments: g ? highlightSegments(g.output, subAnswers) : [],
      },
    ];
  });

  return {
    queryId,
    text: query.text,
    answers: query.answers,
    golden: query.golden,
    predicted: explorer?.aspects ?? null,
    explorer: explorer ? { prompt: explorer.prompt, raw: explorer.raw, repaired: explorer.repaired, empty: explorer.aspects.length === 0 } : null,
    roles: query.roles,
    settings: (docs?.pools ?? []).map((p) => ({
      setting: p.setting,
      aspects: p.aspects,
      pool: p.pool.map((e, i) => {
        const d = docs!.docs[e.id]!;
        return { docId: e.id, label: docLabel(i), title: d.title, text: d.text, aspects: e.aspects, phi: d.phi, relevance: labels.get(e.id) ?? 0 };
      }),
    })),
    conditions,
    judge: [...(data.judgments.get(queryId)?.values() ?? [])].map((j) => ({ condition: j.condition, baseline: j.baseline, verdicts: j.verdicts, outcome: j.outcome, note: j.note })),
    preferences: (data.preferences.get(queryId) ?? []).map((p) => ({ sample: p.sample, ranking: p.ranking, reward: p.reward.reward, greedy: p.greedy })),
    highlightRule: HIGHLIGHT_RULE,
  };
}
