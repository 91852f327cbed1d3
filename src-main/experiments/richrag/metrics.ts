/**
 * All metrics of a RichRAG run as plain data (pure: stored items + spec → tables), over the evaluation
 * queries:
 *
 *   Table 1  every condition × F1, R2, RL, CR2, CRL (answer scores stored with each generation,
 *            generation.ts), mean over queries;
 *   Table 3  every ranked condition (all but closed-book) × MAP, nDCG@1/3/5/k and NCOM (rankingMetrics.ts).
 * Significance: each condition against the baseline (analysis.baseline, default the first setting's
 * RAG-Fusion), paired over the queries both have, two-sided paired t-test (or a paired randomization
 * test, seeded with seeds.sampling); p-values corrected per measure over the conditions compared
 * (Holm by default); significant = corrected p ≤ α. Fewer than two paired queries: no test.
 * Also the judge's win/tie/loss per condition, the explorer's sub-aspect counts and the US³ summary.
 */
import { richRagConditions, type RichRagCondition, type RichRagMetrics, type RichRagSpec, type RichRagTable } from '../../api/contract/richrag';
import { compareScores } from '../../core/stats/compare';
import { mean } from '../../core/stats/descriptive';
import { adjustPValues, significantAt } from '../../core/stats/multipleComparisons';
import type { RunItem } from '../../store/experimentsRepo';
import { analysisBaseline, judgeBaseline, judgedSystems } from './conditions';
import { indexRunItems, type RichRagRunData } from './items';
import { JUDGE_OPTIONS, TIE_RULE } from './judge';
import { preferenceRecords } from './preferences';
import { ncomDeparture, rankingMeasureNames, rankingValues, relevanceDefinition, relevanceLabels } from './rankingMetrics';

export const ANSWER_MEASURES = ['F1', 'R2', 'RL', 'CR2', 'CRL'] as const;

export interface RichRagMetricsInput {
  runId: number;
  spec: RichRagSpec;
  items: readonly RunItem[];
  finished: boolean;
  generatorName: string;
}

type PerQuery = Map<string, Map<string, Record<string, number | null>>>; // condition → qid → values

export function richRagMetrics(input: RichRagMetricsInput): RichRagMetrics {
  const { spec } = input;
  const data = indexRunItems(input.items);
  const conditions = richRagConditions(spec);
  const queries = [...data.queries].filter(([, q]) => q.roles.evaluate).map(([qid]) => qid);
  const { perQuery, incomplete, fallbacks } = perQueryValues(spec, data, conditions, queries);
  const baseline = analysisBaseline(spec);
  const ranked = conditions.filter((c) => c.framework !== 'closed-book');
  const warnings: string[] = [];
  if (fallbacks > 0) warnings.push(`${fallbacks} list-wise ranker step(s) named no valid id and took the first remaining candidate (the constraint did not hold)`);
  const explorer = explorerSummary(data);
  if (explorer && explorer.empty > 0) warnings.push(`the explorer found no sub-aspect for ${explorer.empty} quer${explorer.empty === 1 ? 'y' : 'ies'}; the query itself was retrieved with`);
  warnings.push(...budgetWarnings(data));
  const rows: RichRagMetrics['perQuery'] = [];
  for (const c of conditions) for (const [qid, values] of perQuery.get(c.condition) ?? []) rows.push({ queryId: qid, condition: c.condition, values });
  return {
    kind: 'richrag',
    runId: input.runId,
    k: spec.k,
    generator: input.generatorName,
    conditions,
    queries,
    relevance: relevanceDefinition(spec),
    perQuery: rows,
    table1: significanceTable(spec, conditions, [...ANSWER_MEASURES], perQuery, queries, baseline),
    table3: { ...significanceTable(spec, ranked, rankingMeasureNames(spec.k), perQuery, queries, ranked.some((c) => c.condition === baseline) ? baseline : null), departure: ncomDeparture(spec) ?? undefined },
    judge: judgeSummary(spec, data, queries),
    explorer,
    preferences: preferenceSummary(spec, data),
    warnings,
    incomplete: incomplete || !input.finished || queries.length === 0,
  };
}

function perQueryValues(spec: RichRagSpec, data: RichRagRunData, conditions: readonly RichRagCondition[], queries: readonly string[]): { perQuery: PerQuery; incomplete: boolean; fallbacks: number } {
  const perQuery: PerQuery = new Map(conditions.map((c) => [c.condition, new Map()]));
  let incomplete = false;
  let fallbacks = 0;
  for (const qid of queries) {
    const query = data.queries.get(qid)!;
    const docs = data.documents.get(qid);
    const labels = docs ? relevanceLabels(spec, query, docs) : null;
    for (const c of conditions) {
      const g = data.generations.get(qid)?.get(c.condition);
      const list = data.lists.get(qid)?.get(c.condition);
      if (!g) {
        incomplete = true;
        continue;
      }
      fallbacks += list?.steps?.filter((s) => s.fallback).length ?? 0;
      const values: Record<string, number | null> = { F1: g.scores.f1, R2: g.scores.r2, RL: g.scores.rl, CR1: g.scores.cr1, CR2: g.scores.cr2, CRL: g.scores.crl };
      if (c.framework !== 'closed-book' && docs && labels) Object.assign(values, rankingValues(spec, labels, docs, c.framework, c.setting, g.ranking));
      perQuery.get(c.condition)!.set(qid, values);
    }
  }
  return { perQuery, incomplete, fallbacks };
}

function significanceTable(
  spec: RichRagSpec,
  conditions: readonly RichRagCondition[],
  measures: string[],
  perQuery: PerQuery,
  queries: readonly string[],
  baseline: string | null,
): RichRagTable {
  const a = spec.analysis;
  const rows = conditions.map((c) => ({ ...c, queries: perQuery.get(c.condition)?.size ?? 0, cells: {} as RichRagTable['rows'][number]['cells'] }));
  for (const m of measures) {
    const valuesOf = (condition: string) => {
      const byQuery = perQuery.get(condition) ?? new Map();
      return new Map(
        queries
          .map((q) => [q, byQuery.get(q)?.[m]] as const)
          .filter((e): e is readonly [string, number] => typeof e[1] === 'number'),
      );
    };
    const base = baseline ? valuesOf(baseline) : null;
    const tested: { row: number; p: number }[] = [];
    rows.forEach((row, r) => {
      const own = valuesOf(row.condition);
      const cell = { mean: own.size > 0 ? mean([...own.values()]) : null, n: own.size, delta: null as number | null, pValue: null as number | null, pAdjusted: null as number | null, significant: false };
      if (base && row.condition !== baseline) {
        const shared = queries.filter((q) => own.has(q) && base.has(q));
        if (shared.length > 0) cell.delta = mean(shared.map((q) => own.get(q)! - base.get(q)!));
        if (shared.length >= 2) {
          const cmp = compareScores(
            shared.map((q) => base.get(q)!),
            shared.map((q) => own.get(q)!),
            { paired: true, test: a.test, seed: spec.seeds.sampling, alpha: a.alpha },
          );
          cell.pValue = cmp.pValue;
          tested.push({ row: r, p: cmp.pValue });
        }
      }
      row.cells[m] = cell;
    });
    const adjusted = adjustPValues(
      tested.map((t) => t.p),
      a.correction,
    );
    tested.forEach((t, i) => {
      const cell = rows[t.row]!.cells[m]!;
      cell.pAdjusted = adjusted[i]!;
      cell.significant = significantAt(adjusted[i]!, a.alpha);
    });
  }
  const test = a.test === 't' ? 'two-sided paired t-test over queries' : 'two-sided paired randomization test over queries';
  return { measures, baseline, test, correction: a.correction, alpha: a.alpha, rows };
}

function judgeSummary(spec: RichRagSpec, data: RichRagRunData, queries: readonly string[]): RichRagMetrics['judge'] {
  if (!spec.judge.enabled) return null;
  const rows = judgedSystems(spec).map((c) => {
    let wins = 0;
    let ties = 0;
    let losses = 0;
    for (const qid of queries) {
      const j = data.judgments.get(qid)?.get(c.condition);
      if (!j) continue;
      if (j.outcome === 'win') wins++;
      else if (j.outcome === 'loss') losses++;
      else ties++;
    }
    const n = wins + ties + losses;
    return { condition: c.condition, queries: n, wins, ties, losses, winRate: n > 0 ? wins / n : null };
  });
  return { baseline: judgeBaseline(spec), tieRule: `${TIE_RULE} Verdicts: ${JUDGE_OPTIONS.join(', ')}.`, rows };
}

function explorerSummary(data: RichRagRunData): RichRagMetrics['explorer'] {
  if (data.explorer.size === 0) return null;
  const counts = [...data.explorer.values()].map((e) => e.aspects.length);
  const golden = [...data.explorer.keys()].map((qid) => data.queries.get(qid)?.golden.length ?? 0);
  return {
    queries: data.explorer.size,
    meanPredicted: mean(counts),
    meanGolden: golden.length > 0 ? mean(golden) : null,
    empty: counts.filter((n) => n === 0).length,
    repaired: [...data.explorer.values()].filter((e) => e.repaired).length,
  };
}

function preferenceSummary(spec: RichRagSpec, data: RichRagRunData): RichRagMetrics['preferences'] {
  if (!spec.preferences.enabled) return null;
  const lists = [...data.preferences.values()].flat();
  const greedy = lists.filter((l) => l.greedy).map((l) => l.reward.reward);
  const sampled = lists.filter((l) => !l.greedy).map((l) => l.reward.reward);
  return {
    queries: data.preferences.size,
    lists: lists.length,
    mu: spec.preferences.mu,
    pairs: preferenceRecords(spec, data).length,
    meanRewardGreedy: greedy.length > 0 ? mean(greedy) : null,
    meanRewardSampled: sampled.length > 0 ? mean(sampled) : null,
  };
}

/** What the token budgets cut (promptBudget.ts), from what each stored generation and list recorded. */
export function budgetWarnings(data: RichRagRunData): string[] {
  let answers = 0;
  let answersCut = 0;
  let sourcesCut = 0;
  let estimatedAnswers = 0;
  let lists = 0;
  let listsCut = 0;
  let estimatedLists = 0;
  for (const byCondition of data.generations.values())
    for (const g of byCondition.values()) {
      if (!g.budget) continue;
      answers++;
      if (g.budget.documentsCut > 0) answersCut++;
      sourcesCut += g.budget.documentsCut;
      if (g.budget.estimated) estimatedAnswers++;
    }
  for (const byCondition of data.lists.values())
    for (const l of byCondition.values()) {
      if (!l.budget) continue;
      lists++;
      if (l.budget.windowsCut > 0) listsCut++;
      if (l.budget.estimated) estimatedLists++;
    }
  const out: string[] = [];
  if (answersCut > 0) out.push(`${answersCut} of ${answers} answer prompts had their sources' texts cut to fit the generator's token budget (${sourcesCut} sources in all; the question and sub-aspects were kept): see each generation's budget and the manifest's promptBudget`);
  if (listsCut > 0) out.push(`${listsCut} of ${lists} list-wise rankings showed the ranker candidates' texts cut to fit its token budget`);
  if (estimatedAnswers + estimatedLists > 0)
    out.push(`${estimatedAnswers + estimatedLists} prompts were budgeted by an estimate of their tokens (no tokenizer answered: an upper bound, so documents were cut more than needed)`);
  return out;
}
