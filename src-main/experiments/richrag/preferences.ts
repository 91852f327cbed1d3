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
 * prompt = the preference template with the whole pool as candidates (no window); a list is written as
 * its pool labels separated by spaces ("D3 D1 D7").
 */
import type { RichRagSetting, RichRagSpec } from '../../api/contract/richrag';
import { createRng } from '../../core/random/rng';
import { listReward, type Reward } from '../../core/richrag/reward';
import { sftRecords, us3PreferencePairs, type PreferenceRecord, type SftRecord } from '../../core/richrag/trainingRecords';
import type { SamplingOptions } from '../../engine/types';
import { docLabel, type DocumentsPayload, type PoolPayload, type QueryPayload, type RichRagRunData } from './items';
import { candidateLine, numberedAspects, type RankerCandidate } from './listwiseRanker';
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

export function preferencePrompt(spec: Pick<RichRagSpec, 'preferences' | 'ranker' | 'k'>, query: QueryPayload, docs: DocumentsPayload, pool: PoolPayload): string {
  return renderTemplate(
    spec.preferences.template,
    {
      query: query.text,
      aspects: numberedAspects(pool.aspects),
      candidates: rankerCandidates(docs, pool)
        .map((c) => candidateLine(c, spec.ranker.docWords, pool.aspects))
        .join('\n'),
      k: String(spec.k),
    },
    'preferences.template',
  );
}

function labelRenderer(pool: PoolPayload): (ranking: readonly string[]) => string {
  const labels = new Map(pool.pool.map((e, i) => [e.id, docLabel(i)]));
  return (ranking) => ranking.map((id) => labels.get(id) ?? id).join(' ');
}

/** The training queries (every query when the run makes no preference data) with what the exports need. */
function trainingQueries(spec: RichRagSpec, data: RichRagRunData): { qid: string; query: QueryPayload; docs: DocumentsPayload; pool: PoolPayload }[] {
  const setting = preferenceSetting(spec);
  const out = [];
  for (const [qid, query] of data.queries) {
    const docs = data.documents.get(qid);
    if ((spec.preferences.enabled && !query.roles.train) || !docs) continue;
    out.push({ qid, query, docs, pool: poolOf(docs, setting) });
  }
  return out;
}

export function preferenceRecords(spec: RichRagSpec, data: RichRagRunData): PreferenceRecord[] {
  const records: PreferenceRecord[] = [];
  for (const t of trainingQueries(spec, data)) {
    const lists = data.preferences.get(t.qid) ?? [];
    const greedy = lists.find((l) => l.greedy);
    if (!greedy) continue;
    const samples = lists.filter((l) => !l.greedy).map((l) => ({ ranking: l.ranking, reward: l.reward.reward }));
    records.push(
      ...us3PreferencePairs([{ prompt: preferencePrompt(spec, t.query, t.docs, t.pool), greedy: { ranking: greedy.ranking, reward: greedy.reward.reward }, samples }], {
        mu: spec.preferences.mu,
        render: labelRenderer(t.pool),
      }),
    );
  }
  return records;
}

export function sftTrainingRecords(spec: RichRagSpec, data: RichRagRunData): SftRecord[] {
  const out: SftRecord[] = [];
  for (const t of trainingQueries(spec, data)) {
    const silver = coverageRanking(t.docs, t.pool, spec.k, spec.coverage.weights);
    out.push(...sftRecords([{ prompt: preferencePrompt(spec, t.query, t.docs, t.pool), silver }], labelRenderer(t.pool)));
  }
  return out;
}

export function jsonl(records: readonly object[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
}
