/**
 * All metrics of a Fair RAG run as plain data (pure: stored items + spec → tables and figure data):
 * per query × arm, aggregates with 95% CIs, per-provider exposure, Table 1 (trade-off slope/AUC),
 * Table 2 (utility vs the deterministic baseline per disparity interval) and Fig. 3 (EE-D̄ per α).
 * The utility labels are those the run stored in its query items (a snapshot taken when it ran).
 */
import type { FairRagMetrics, FairRagSpec } from '../../api/contract/fairRag';
import type { ExperimentsRepo, RunItem } from '../../store/experimentsRepo';
import { aggregateArms, providerExposure } from './aggregates';
import { fig3 } from './fig3';
import { indexRunItems, indexRunItemTexts, type FairRagRunData } from './items';
import { armsOf } from './plan';
import { queryArmMetrics } from './queryMetrics';
import { table2Options, table2Settings, TABLE2_INTERVALS, table2 } from './table2';
import { tradeoffTable } from './tradeoff';
import { stripCitations } from './attribution';
import { hasLamp3LabelRange, outsideLabelRange } from './utility';
import type { TestCalibration } from '../../api/contract/kindParts';

export interface FairRagMetricsInput {
  runId: number;
  spec: FairRagSpec;
  items: readonly RunItem[];
  finished: boolean;
  /** Name of the generator for table rows. */
  generatorName: string;
  experimentName?: string;
  /** Table 2's measured calibration (stored by "Check calibration"; absent = not simulated). */
  calibration?: TestCalibration | undefined;
}

/**
 * What the summary reads: the run's items as `fairRagMetrics` does, or the store they are in (the
 * summary then indexes the raw rows itself, `indexRunItemTexts`: the same data without a RunItem per row).
 */
export type FairRagSummaryInput = Omit<FairRagMetricsInput, 'items'> & ({ items: readonly RunItem[] } | { repo: Pick<ExperimentsRepo, 'itemTexts'> });

/** The per-query × arm metrics and the warnings, which both the metrics and the summary start from. */
function armsAndWarnings(input: Omit<FairRagMetricsInput, 'items'>, data: FairRagRunData) {
  const { spec } = input;
  const order = armsOf(spec).map((a) => a.condition);
  const { arms, incomplete, warnings } = queryArmMetrics(spec, data, order);
  warnings.push(...promptBudgetWarnings(data));
  const outOfRange = outOfRangeAnswers(spec, data);
  if (outOfRange.count > 0) warnings.push(outOfRangeWarning(outOfRange));
  return { data, arms, warnings, outOfRange, incomplete: incomplete || !input.finished || data.queries.size === 0 };
}

/**
 * What the CLI's summary prints (`aggregates`, `warnings`, `incomplete`), exactly as fairRagMetrics
 * computes them, without Tables 1–2, Fig. 3 and the provider exposure (Table 2's randomization tests
 * are most of the metrics' time, and no summary shows them). Given the store instead of the items, it
 * reads the raw rows and parses each payload once (the demo's 11,216 sample items were a RunItem and
 * then a copied record each: a third of the summary's time).
 */
export function fairRagSummary(input: FairRagSummaryInput): Pick<FairRagMetrics, 'kind' | 'aggregates' | 'warnings' | 'incomplete'> {
  const data = 'items' in input ? indexRunItems(input.items) : indexRunItemTexts(input.repo.itemTexts(input.runId));
  const { arms, warnings, incomplete } = armsAndWarnings(input, data);
  return { kind: 'fair-rag', aggregates: aggregateArms(arms, euBounds(data)), warnings, incomplete };
}

export function fairRagMetrics(input: FairRagMetricsInput): FairRagMetrics {
  const { spec } = input;
  const { data, arms, warnings, outOfRange, incomplete } = armsAndWarnings(input, indexRunItems(input.items));
  const perQuery = arms.map((a) => a.metrics);
  const sampleUtilities = new Map(arms.map((a) => [a.metrics, a.utilities] as const));
  const retrievers = spec.retrievers.map((r) => r.name);
  return {
    kind: 'fair-rag',
    runId: input.runId,
    k: spec.k,
    samples: spec.samples,
    target: spec.target,
    generator: input.generatorName,
    perQuery,
    aggregates: aggregateArms(arms, euBounds(data)),
    providerExposure: providerExposure(arms, data),
    table1: tradeoffTable(perQuery, retrievers),
    table2: {
      intervals: TABLE2_INTERVALS.map(([a, b]) => [a, b] as [number, number]),
      ...table2Settings(spec),
      utility: "rows: raw EU per query × α arm on the metric's scale (higher is better; LaMP-3: 4 − MAE, as the paper's Table 2) minus the mean EU of the deterministic arm; normalizedRows: the same with EU̅ = EU / u_max (Eq. 30, in [0, 1])",
      rows: table2(perQuery, retrievers, input.generatorName, 'raw', { ...table2Options(spec), sampleUtilities }),
      normalizedRows: table2(perQuery, retrievers, input.generatorName, 'normalized', { ...table2Options(spec), sampleUtilities }),
      // The measured null rejection rate of this test, when "Check calibration" measured it for this spec (services/simulation/calibration.ts); absent = not simulated.
      ...(input.calibration ? { calibration: input.calibration } : {}),
    },
    fig3: fig3(perQuery, retrievers, spec.alphas),
    ...(outOfRange.answers > 0 ? { outOfRangeAnswers: { count: outOfRange.count, answers: outOfRange.answers } } : {}),
    warnings,
    incomplete,
  };
}

/** EU's range: [0, the largest utility scale of the run's queries] (1, or `worst` for lower-is-better metrics such as LaMP-3's 4). */
export function euBounds(data: FairRagRunData): { lower: number; upper: number } {
  let upper = 0;
  for (const q of data.queries.values()) upper = Math.max(upper, q.lowerIsBetter && q.worst !== null ? q.worst : 1);
  return { lower: 0, upper: upper || 1 };
}

/**
 * Distinct answers (stored generations) on LaMP-3's scale that are numbers outside the labels
 * 1..5, of all answers on that scale. They are scored by their real error, max(0, 4 − |p − g|)
 * (utility.ts), never clamped into the range; the count goes into the warnings, the Table 2 caption
 * and the manifest (issue 34 item 4).
 */
export function outOfRangeAnswers(spec: Pick<FairRagSpec, 'attribution'>, data: FairRagRunData): { count: number; answers: number } {
  let count = 0;
  let answers = 0;
  for (const [key, g] of data.generations) {
    const qid = (JSON.parse(key) as [string, string, string])[1];
    const q = data.queries.get(qid);
    if (!q || !hasLamp3LabelRange(q.metric, q.lowerIsBetter, q.worst)) continue;
    answers++;
    if (outsideLabelRange(spec.attribution.judge === 'citation' ? stripCitations(g.output) : g.output)) count++;
  }
  return { count, answers };
}

export function outOfRangeWarning(o: { count: number; answers: number }): string {
  return `${o.count} of ${o.answers} answers are ratings outside LaMP-3's labels 1–5; each is scored by its real error, max(0, 4 − |answer − gold|), never clamped into the range`;
}

/** What the prompt budget did to the stored prompts, said with the results (never a silent cut or estimate). */
export function promptBudgetWarnings(data: ReturnType<typeof indexRunItems>): string[] {
  let prompts = 0;
  let cut = 0;
  let docsCut = 0;
  let dropped = 0;
  let queries = 0;
  let estimated = 0;
  for (const g of data.generations.values()) {
    prompts++;
    if (g.budgetEstimated) estimated++;
    const c = g.budgetCuts;
    if (!c) continue;
    cut++;
    docsCut += c.documentsCut;
    dropped += c.documentsDropped;
    if (c.queryCut) queries++;
  }
  const out: string[] = [];
  if (cut > 0) {
    out.push(
      `the prompt budget cut ${cut} of ${prompts} prompts: ${docsCut} documents shortened, ${dropped} left out (from the end of the ranking)` +
        (queries > 0 ? `, the question cut in ${queries}` : ''),
    );
  }
  if (estimated > 0) out.push(`${estimated} of ${prompts} prompts were budgeted by an estimate of their tokens (no tokenizer answered): see the manifest's promptBudget`);
  return out;
}
