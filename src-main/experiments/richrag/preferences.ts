/**
 * Preference data for the ranker (RichRAG Sec. 3.4.2, US³) and SFT targets (Sec. 3.4.1).
 *
 * For every training query, on the pool of `preferences.setting`: sample 0 is the list-wise ranker's
 * greedy list (the same calls as the evaluation's `<setting>/listwise`, so the cache answers them),
 * samples 1..S are lists sampled from the same ranker at `preferences.temperature`, every step with
 * its own seed createRng(seeds.sampling).fork(`qid \0 sample \0 window \0 step`). Each list gets a
 * response r = G(q, L) from the generator (the evaluation's generation template and decoding) and the
 * reward ∇(L) = φ(r, a) + Σ_i δ_i φ(r, a_i) (Eq. 11, core/richrag/reward: mean pltrdy ROUGE-2/L, F
 * for the answer term and recall for the coverage term; with several answers the best answer term).
 *
 * Exports (JSONL, one record per line):
 *   preferences  {prompt, chosen, rejected}: pairs (greedy, sample) whose rewards differ by more than μ,
 *                the higher reward chosen; a sampled list equal to an earlier one is used once
 *                (core/richrag/trainingRecords us3PreferencePairs);
 *   sft          {prompt, completion}: the greedy coverage silver list of the same pool (for every query
 *                of the run when it makes no preference data).
 * prompt = the preference template with the whole pool as candidates (no window), fitted to the ranker's
 * token budget by the run's budget code and the ranker engine's tokenizer (promptBudget.ts
 * trainingBudget: only the candidates' texts are cut, to a common cap); a list is written as its pool
 * labels separated by spaces ("D3 D1 D7").
 */
import type { RichRagSetting, RichRagSpec } from '../../api/contract/richrag';
import { createRng } from '../../core/random/rng';
import { listReward, type Reward } from '../../core/richrag/reward';
import { sftRecords, us3PreferencePairs, type PreferenceRecord, type SftRecord } from '../../core/richrag/trainingRecords';
import type { SamplingOptions } from '../../engine/types';
import { docLabel, type DocumentsPayload, type PoolPayload, type QueryPayload, type RichRagRunData } from './items';
import { candidateBody, candidateLine, numberedAspects, type RankerCandidate } from './listwiseRanker';
import { trainingBudget, type PromptBudgetReport, type PromptFit, type RichRagBudget, type TokenizeFn } from './promptBudget';
import { coverageRanking, poolOf } from './rankers';
import { renderTemplate } from './templates';

export function preferenceSetting(spec: Pick<RichRagSpec, 'preferences' | 'settings'>): RichRagSetting {
  return spec.preferences.setting ?? spec.settings[0]!;
}

/** Decoding of a US³ list: sample 0 greedy, others seeded per step. */
export function preferenceSampling(spec: Pick<RichRagSpec, 'preferences' | 'seeds'>, queryId: string, sample: number): (window: number, step: number) => SamplingOptions {
  if (sample === 0) return () => ({ temperature: 0 });
  const root = createRng(spec.seeds.sampling);
  return (window, step) => ({ temperature: spec.preferences.temperature, seed: root.fork(`${queryId}\u0000${sample}\u0000${window}\u0000${step}`).nextUint32() });
}

export function rewardOf(response: string, answers: readonly string[], subAnswers: readonly string[]): Reward {
  const refs = answers.filter((a) => a.trim() !== '');
  let best: Reward | undefined;
  for (const a of refs.length > 0 ? refs : ['']) {
    const r = listReward(response, a, subAnswers);
    if (!best || r.reward > best.reward) best = r;
  }
  return best!;
}

/** The pool as ranker candidates, labelled D1..DM. */
export function rankerCandidates(docs: DocumentsPayload, pool: PoolPayload): RankerCandidate[] {
  return pool.pool.map((e, i) => {
    const d = docs.docs[e.id]!;
    return { id: e.id, label: docLabel(i), title: d.title, text: d.text, aspects: e.aspects };
  });
}

export function preferencePrompt(spec: Pick<RichRagSpec, 'preferences' | 'ranker' | 'k'>, query: QueryPayload, docs: DocumentsPayload, pool: PoolPayload, bodies?: readonly string[]): string {
  return renderTemplate(
    spec.preferences.template,
    {
      query: query.text,
      aspects: numberedAspects(pool.aspects),
      candidates: rankerCandidates(docs, pool)
        .map((c, i) => candidateLine(c, spec.ranker.docWords, pool.aspects, bodies ? bodies[i] : undefined))
        .join('\n'),
      k: String(spec.k),
    },
    'preferences.template',
  );
}

/**
 * A training query's prompt within the training budget (promptBudget.ts trainingBudget): the
 * candidates' texts are cut to a common cap, as the ranker's step prompts are (never the question,
 * the aspects, the ids or the template); without a budget, the prompt as preferencePrompt renders it.
 */
export async function preferencePromptWithin(
  spec: Pick<RichRagSpec, 'preferences' | 'ranker' | 'k'>,
  budget: RichRagBudget | undefined,
  queryId: string,
  query: QueryPayload,
  docs: DocumentsPayload,
  pool: PoolPayload,
  signal?: AbortSignal,
): Promise<PromptFit> {
  const bodies = rankerCandidates(docs, pool).map((c) => candidateBody(c, spec.ranker.docWords));
  const render = (b: readonly string[]) => preferencePrompt(spec, query, docs, pool, b);
  if (!budget) return { prompt: render(bodies), bodies, tokens: undefined, documentsCut: 0 };
  return budget.fit(render, bodies, `the training prompt of query '${queryId}'`, signal);
}

function labelRenderer(pool: PoolPayload): (ranking: readonly string[]) => string {
  const labels = new Map(pool.pool.map((e, i) => [e.id, docLabel(i)]));
  return (ranking) => ranking.map((id) => labels.get(id) ?? id).join(' ');
}

/** The training queries (every query when the run makes no preference data) with what the exports need. */
interface TrainingQuery {
  qid: string;
  query: QueryPayload;
  docs: DocumentsPayload;
  pool: PoolPayload;
}

function trainingQueries(spec: RichRagSpec, data: RichRagRunData): TrainingQuery[] {
  const setting = preferenceSetting(spec);
  const out: TrainingQuery[] = [];
  for (const [qid, query] of data.queries) {
    const docs = data.documents.get(qid);
    if ((spec.preferences.enabled && !query.roles.train) || !docs) continue;
    out.push({ qid, query, docs, pool: poolOf(docs, setting) });
  }
  return out;
}

/** The pairs of each training query, with `prompt` left for the caller to fill (preferencePromptWithin). */
function preferencePairs(spec: RichRagSpec, data: RichRagRunData): { t: TrainingQuery; records: PreferenceRecord[] }[] {
  const out: { t: TrainingQuery; records: PreferenceRecord[] }[] = [];
  for (const t of trainingQueries(spec, data)) {
    const lists = data.preferences.get(t.qid) ?? [];
    const greedy = lists.find((l) => l.greedy);
    if (!greedy) continue;
    const samples = lists.filter((l) => !l.greedy).map((l) => ({ ranking: l.ranking, reward: l.reward.reward }));
    const records = us3PreferencePairs([{ prompt: '', greedy: { ranking: greedy.ranking, reward: greedy.reward.reward }, samples }], { mu: spec.preferences.mu, render: labelRenderer(t.pool) });
    if (records.length > 0) out.push({ t, records });
  }
  return out;
}

function sftTargets(spec: RichRagSpec, data: RichRagRunData): { t: TrainingQuery; records: SftRecord[] }[] {
  return trainingQueries(spec, data).map((t) => ({ t, records: sftRecords([{ prompt: '', silver: coverageRanking(t.docs, t.pool, spec.k, spec.coverage.weights) }], labelRenderer(t.pool)) }));
}

/** Training records and the budget their prompts were fitted to (`budget` undefined: not counted). */
export interface TrainingExport<R> {
  records: R[];
  budget: PromptBudgetReport | undefined;
  /** Training queries (one prompt each). */
  prompts: number;
  /** Queries whose prompt had candidates' texts cut to fit. */
  promptsCut: number;
}

/**
 * Fill each query's records with its prompt fitted to the training budget, counted with `tokenize`
 * (the ranker engine's; absent: rendered uncut, as before budgets).
 */
async function withPrompts<R extends { prompt: string }>(
  spec: RichRagSpec,
  groups: { t: TrainingQuery; records: R[] }[],
  completions: (r: R) => string[],
  tokenize: TokenizeFn | undefined,
  signal?: AbortSignal,
): Promise<TrainingExport<R>> {
  const budget = tokenize ? await trainingBudget(spec, tokenize, groups.flatMap((g) => g.records.flatMap(completions))) : undefined;
  const records: R[] = [];
  let promptsCut = 0;
  for (const { t, records: rs } of groups) {
    const fit = await preferencePromptWithin(spec, budget, t.qid, t.query, t.docs, t.pool, signal);
    if (fit.documentsCut > 0) promptsCut++;
    for (const r of rs) records.push({ ...r, prompt: fit.prompt });
  }
  return { records, budget: budget?.report(), prompts: groups.length, promptsCut };
}

/** US³ DPO pairs {prompt, chosen, rejected}, prompts within the training budget (tokenize: the ranker's). */
export function preferenceExport(spec: RichRagSpec, data: RichRagRunData, tokenize?: TokenizeFn, signal?: AbortSignal): Promise<TrainingExport<PreferenceRecord>> {
  return withPrompts(spec, preferencePairs(spec, data), (r) => [r.chosen, r.rejected], tokenize, signal);
}

/** SFT records {prompt, completion} (the greedy coverage silver lists), prompts within the training budget. */
export function sftExport(spec: RichRagSpec, data: RichRagRunData, tokenize?: TokenizeFn, signal?: AbortSignal): Promise<TrainingExport<SftRecord>> {
  return withPrompts(spec, sftTargets(spec, data), (r) => [r.completion], tokenize, signal);
}

/** The pairs with their prompts uncut (no budget: what the count of pairs needs). */
export function preferenceRecords(spec: RichRagSpec, data: RichRagRunData): PreferenceRecord[] {
  return preferencePairs(spec, data).flatMap(({ t, records }) => records.map((r) => ({ ...r, prompt: preferencePrompt(spec, t.query, t.docs, t.pool) })));
}

export function jsonl(records: readonly object[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
}
