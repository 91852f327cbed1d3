/**
 * Per query × arm metrics of Fair RAG from a run's stored items (pure), through core/exposure:
 *   EE-D, EE-R, EE-L and their normalisations (Sec. 3.3.1, App. C.1–C.2; target per spec),
 *   EU (Eq. 7) and EU̅ = EU / u_max (Eq. 29–30), EAR, EAE-D, EAE-D̄ (Eq. 8–11).
 *
 * u_max of a query and retriever is the maximum per-sample utility over every arm of that retriever
 * (its α arms and its deterministic baseline) and the oracle arm (the same generator; Eq. 29, "not
 * pooled across retrievers"). Eq. 29 lists the α runs and the oracle only, but then the
 * deterministic arm's EU̅ exceeded 1 whenever its own output beat them, against Eq. 30's EU̅ ∈
 * [0, 1]; with every arm in the maximum, EU ≤ u_max for each arm (#16.7). The oracle's own EU̅ is
 * not defined (null). Utilities are on the higher-is-better scale (lower-is-better metrics converted as
 * worst − u, App. C.3); `euRaw` is the metric's own mean.
 *
 * An arm whose generations (or judgments) are not all stored yet is left out (or has null
 * attribution) and the result is flagged incomplete.
 */
import type { FairRagSpec } from '../../api/contract/fairRag';
import { expectedAttribution, type AttributedSample } from '../../core/exposure/attribution';
import { expectedExposure } from '../../core/exposure/expectedExposure';
import { normalizedExpectedUtility } from '../../core/exposure/expectedUtility';
import { generationKey, judgmentKey, type FairRagRunData, type GenerationPayload, type Policy, type QueryPayload, type SampleRecord } from './items';
import { lowerIsBetterUtility } from './utility';

export interface QueryArmMetrics {
  queryId: string;
  retriever: string | null;
  condition: string;
  policy: Policy;
  alpha: number | null;
  n: number;
  m: number;
  samples: number;
  distinctRankings: number;
  eeD: number;
  eeR: number;
  eeL: number;
  eeDNorm: number;
  eeRNorm: number;
  eeLNorm: number;
  eu: number;
  euRaw: number;
  uMax: number | null;
  euNorm: number | null;
  ear: number | null;
  eaeD: number | null;
  eaeDNorm: number | null;
}

/** An arm's metrics plus the vectors provider exposure needs. */
export interface ArmDetail {
  metrics: QueryArmMetrics;
  utilities: number[];
  /** ε aligned with the query's candidates. */
  exposure: number[];
  /** ε^a aligned with the query's candidates (null without attribution). */
  attributedExposure: number[] | null;
}

export type MetricsSpec = Pick<FairRagSpec, 'k' | 'target' | 'attribution' | 'uMaxZero'>;

export interface QueryMetricsResult {
  arms: ArmDetail[];
  incomplete: boolean;
  warnings: string[];
}

/** Metrics of every arm of every query, in query order and the stored arm order. */
export function queryArmMetrics(spec: MetricsSpec, data: FairRagRunData, conditionOrder: readonly string[]): QueryMetricsResult {
  const arms: ArmDetail[] = [];
  const warnings: string[] = [];
  let incomplete = false;
  const rank = new Map(conditionOrder.map((c, i) => [c, i]));
  const queryIds = [...data.queries.keys()].sort();
  for (const qid of queryIds) {
    const q = data.queries.get(qid)!;
    const byCondition = data.samples.get(qid) ?? new Map<string, SampleRecord[]>();
    const conditions = [...byCondition.keys()].sort((a, b) => (rank.get(a) ?? 1e9) - (rank.get(b) ?? 1e9) || (a < b ? -1 : a > b ? 1 : 0));
    const details: ArmDetail[] = [];
    for (const condition of conditions) {
      const detail = armMetrics(spec, data, qid, q, condition, byCondition.get(condition)!);
      if (detail === 'incomplete') incomplete = true;
      else {
        if (detail.attributedExposure === null && spec.attribution.judge !== 'none') incomplete = true;
        details.push(detail);
      }
    }
    normalizeUtility(details, warnings, qid, spec.uMaxZero);
    if (q.candidates.every((c) => !c.useful)) warnings.push(`query '${qid}' has no useful candidate (m = 0): EE-R is 0 by definition`);
    if (q.candidates.length < spec.k) warnings.push(`query '${qid}' has ${q.candidates.length} candidates, fewer than k = ${spec.k}: rankings are shorter and EE-D̄ ≤ n/k`);
    arms.push(...details);
  }
  return { arms, incomplete, warnings };
}

function armMetrics(spec: MetricsSpec, data: FairRagRunData, qid: string, q: QueryPayload, condition: string, samples: readonly SampleRecord[]): ArmDetail | 'incomplete' {
  const first = samples[0]!;
  const items = q.candidates.map((c) => ({ id: c.docId, useful: c.useful }));
  const rankings = samples.map((s) => s.ranking);
  // N samples share few distinct prompts: each generation is looked up once per prompt (its key
  // string built once), not once per sample.
  const gens: GenerationPayload[] = [];
  const byPrompt = new Map<string, GenerationPayload | undefined>();
  for (const s of samples) {
    let g = byPrompt.get(s.promptHash);
    if (g === undefined && !byPrompt.has(s.promptHash)) byPrompt.set(s.promptHash, (g = data.generations.get(generationKey(qid, s.promptHash))));
    if (!g) return 'incomplete';
    gens.push(g);
  }
  const ee = expectedExposure({ items, rankings, k: spec.k, target: spec.target });
  const utilities = gens.map((g) => generationUtility(q, g));
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const attributed = attributionOf(spec, data, qid, samples, gens);
  const ea =
    attributed &&
    expectedAttribution(
      items.map((it) => it.id),
      attributed,
      spec.k,
    );
  return {
    metrics: {
      queryId: qid,
      retriever: first.retriever,
      condition,
      policy: first.policy,
      alpha: first.alpha,
      n: ee.n,
      m: ee.m,
      samples: samples.length,
      distinctRankings: new Set(rankings.map((r) => r.join('\u0000'))).size,
      eeD: ee.eeD,
      eeR: ee.eeR,
      eeL: ee.eeL,
      eeDNorm: ee.eeDNorm,
      eeRNorm: ee.eeRNorm,
      eeLNorm: ee.eeLNorm,
      eu: mean(utilities),
      euRaw: mean(gens.map((g) => g.utilityRaw)),
      uMax: null,
      euNorm: null,
      ear: ea ? ea.ear : null,
      eaeD: ea ? ea.eaeD : null,
      eaeDNorm: ea ? ea.eaeDNorm : null,
    },
    utilities,
    exposure: ee.exposure,
    attributedExposure: ea ? ea.attributedExposure : null,
  };
}

/** NLI(d, ŷ_π) for the top k of every sample, or null when attribution is off or not complete. */
function attributionOf(spec: MetricsSpec, data: FairRagRunData, qid: string, samples: readonly SampleRecord[], gens: readonly GenerationPayload[]): AttributedSample[] | null {
  const judge = spec.attribution.judge;
  if (judge === 'none') return null;
  const out: AttributedSample[] = [];
  /** outputHash → docId → the stored judgment's verdict (undefined: not stored): each looked up once. */
  const verdicts = new Map<string, Map<string, boolean | undefined>>();
  for (let i = 0; i < samples.length; i++) {
    const top = samples[i]!.ranking.slice(0, spec.k);
    const g = gens[i]!;
    if (judge === 'citation') {
      const cited = new Set(g.citations ?? []);
      out.push({ ranking: top, entails: top.map((_, pos) => cited.has(pos + 1)) });
      continue;
    }
    let ofOutput = verdicts.get(g.outputHash);
    if (!ofOutput) verdicts.set(g.outputHash, (ofOutput = new Map()));
    const entails: boolean[] = [];
    for (const docId of top) {
      let entailed = ofOutput.get(docId);
      if (entailed === undefined && !ofOutput.has(docId)) ofOutput.set(docId, (entailed = data.judgments.get(judgmentKey(qid, g.outputHash, docId))?.entails));
      if (entailed === undefined) return null;
      entails.push(entailed);
    }
    out.push({ ranking: top, entails });
  }
  return out;
}

/**
 * A generation's utility on the higher-is-better scale. Lower-is-better: max(0, worst − raw error)
 * from the stored raw error, so a run stored while LaMP-3 predictions were clamped to 1..5 (which
 * scored "9" for gold 5 as perfect) is scored, exported and shown by the current rule too (issue 34
 * item 4); otherwise the stored utility.
 */
export function generationUtility(q: Pick<QueryPayload, 'lowerIsBetter' | 'worst'>, g: Pick<GenerationPayload, 'utility' | 'utilityRaw'>): number {
  return q.lowerIsBetter && q.worst !== null ? lowerIsBetterUtility(g.utilityRaw, q.worst) : g.utility;
}

/** u_max per retriever (every arm of it + the oracle; Eq. 29) and EU̅ = EU / u_max (Eq. 30), so EU̅ ≤ 1. */
function normalizeUtility(details: ArmDetail[], warnings: string[], qid: string, zeroMax: MetricsSpec['uMaxZero']): void {
  const oracle = details.find((d) => d.metrics.policy === 'oracle');
  const retrievers = new Set(details.map((d) => d.metrics.retriever).filter((r): r is string => r !== null));
  for (const r of retrievers) {
    const pool = details.filter((d) => d.metrics.retriever === r && d.metrics.policy !== 'oracle');
    if (pool.length === 0) continue;
    let uMax = -Infinity;
    let negative = 0;
    for (const d of [...pool, ...(oracle ? [oracle] : [])]) {
      for (const u of d.utilities) {
        if (u > uMax) uMax = u;
        if (u < 0) negative++;
      }
    }
    // Utilities are ≥ 0 on every Fair RAG scale (accuracy, ROUGE, max(0, worst − error)); a negative one
    // can only come from a stored item of another scale: EU̅ then leaves [0, 1] and the run says so.
    if (negative > 0)
      warnings.push(
        `query '${qid}', retriever '${r}': ${negative} sample utilit${negative === 1 ? 'y is' : 'ies are'} below 0: EU and EU̅ leave their range${uMax < 0 ? `, and u_max = ${uMax} < 0 makes EU̅ > 1` : ''}`,
      );
    if (uMax === 0) warnings.push(zeroMax === 'code' ? `query '${qid}', retriever '${r}': u_max = 0, so EU̅ = 1 for every arm (Fair-RAG's convention, uMaxZero 'code')` : `query '${qid}', retriever '${r}': u_max = 0 (no sample scored above 0), so EU̅ = 0 for every arm (uMaxZero 'zero'; Fair-RAG's code gives 1)`);
    for (const d of details) {
      if (d.metrics.retriever !== r) continue;
      d.metrics.uMax = uMax;
      d.metrics.euNorm = normalizedExpectedUtility(d.metrics.eu, uMax, zeroMax);
    }
  }
}
