/**
 * Fair RAG (Kim & Diaz, "Towards Fair RAG") as an experiment kind: spec schema (API contract),
 * execution, metrics, drill-down, exports, manifest and prompt preview.
 */
import { createHash } from 'node:crypto';
import { FairRagSpec, type FairRagMetrics, type RunItemRow } from '../../api/contract/fairRag';
import { FAIR_RAG_MEASURE_NAMES } from '../../api/contract/fairRag';
import { DataError } from '../../core/errors';
import { deterministicTopK } from '../../core/sampling/deterministicTopK';
import type { ModelRecord } from '../../io/manifest/manifest';
import type { ExperimentDeps, ExperimentKind, ManifestParts } from '../registry';
import { DEFAULT_NLI_TEMPLATE } from './attribution';
import { fairRagDesignWarnings } from './designWarnings';
import { fairRagModelNeeds } from './modelNeeds';
import { fairRagPower } from './power';
import { fairRagCalibration } from './calibration';
import { fairRagDescribeStats, fairRagSummaryTable } from './summaryTable';
import { fairRagSpecContent } from './specContent';
import { loadFairRagData } from './data';
import { executeFairRag, generationRequest, generatorTokens } from './execute';
import { exportFairRag, utilityQrels } from './exports';
import { indexRunItems, KEY_PREFIX } from './items';
import { fairRagItems } from './itemsView';
import { fairRagMetrics, fairRagSummary, outOfRangeAnswers } from './metrics';
import { promptRenderer, templateFor } from './prompt';
import { scoreRetrievers } from './retrievers';
import { table2ManifestSignificance } from './table2';
import { manifestRuntime } from '../manifestRuntime';

/** The measures a run's manifest lists (EU_raw, EU in the metric's own units, is a column of the exports, not a measure of the paper). */
export const FAIR_RAG_MEASURES = FAIR_RAG_MEASURE_NAMES.filter((n) => n !== 'EU_raw');

export const fairRagKind: ExperimentKind<FairRagSpec, FairRagMetrics, RunItemRow> = {
  kind: 'fair-rag',
  title: 'Fair RAG: fairness of stochastic retrieval for RAG (Kim & Diaz)',
  schema: FairRagSpec,
  jobTitle: (spec) => `Fair RAG: ${spec.name}`,
  execute: executeFairRag,
  metrics: fairRagMetrics,
  summary: fairRagSummary,
  items: fairRagItems,
  exportFile: (input) => exportFairRag(input, () => fairRagMetrics(input)),
  manifest: fairRagManifest,
  designWarnings: fairRagDesignWarnings,
  modelNeeds: fairRagModelNeeds,
  power: fairRagPower,
  calibration: fairRagCalibration,
  summaryTable: fairRagSummaryTable,
  describeStats: fairRagDescribeStats,
  checkContent: fairRagSpecContent,
  previewPrompt,
};

async function previewPrompt(spec: FairRagSpec, deps: ExperimentDeps, queryId: string, retriever?: string) {
  const r = retriever === undefined ? spec.retrievers[0]! : spec.retrievers.find((x) => x.name === retriever);
  if (!r) throw new DataError(`no retriever named '${retriever}' in the spec`, { field: 'retriever' });
  const data = loadFairRagData({ ...spec, queries: [queryId], tasks: undefined, minUseful: 0 }, deps.collections);
  const q = data.queries[0];
  if (!q) throw new DataError(`query '${queryId}' cannot be used: ${data.skipped[0]?.reason ?? 'unknown reason'}`, { field: 'queryId' });
  // Scores of the chosen retriever and of what it fuses.
  const needed = new Set([r.name, ...(r.method === 'rrf' ? r.params.fuse : [])]);
  const { scores } = await scoreRetrievers({ retrievers: spec.retrievers.filter((x) => needed.has(x.name)) }, [q], deps);
  const s = scores.get(r.name)!.get(q.queryId)!;
  const ranking = deterministicTopK(
    q.candidates.map((c, i) => ({ id: c.docId, score: s[i]! })),
    spec.k,
  );
  const tokens = await generatorTokens(spec, deps.engineFor(deps.resolveGenerator(spec.generator, 'generator')));
  const render = promptRenderer(spec, tokens);
  const prompt = tokens ? await tokens.settle(() => render(q, ranking)) : render(q, ranking);
  return { queryId: q.queryId, retriever: r.name, ranking, prompt };
}

async function fairRagManifest(runId: number, spec: FairRagSpec, deps: ExperimentDeps, stats: Record<string, unknown>): Promise<ManifestParts> {
  const models: ModelRecord[] = [];
  const described: Record<string, unknown>[] = [];
  let versions: Record<string, string> = {};
  const addModel = (role: string, ref: ReturnType<ExperimentDeps['resolveGenerator']>) => {
    const d = deps.describeModel(ref);
    described.push({ role, ...d });
    if (d.kind === 'local' && typeof d.sha256 === 'string') {
      models.push({ role, file: String(d.file), sha256: d.sha256, ...(typeof d.quantization === 'string' ? { quantization: d.quantization } : {}) });
    }
    return d;
  };
  const genRef = deps.resolveGenerator(spec.generator, 'generator');
  const gen = addModel('generator', genRef);
  try {
    versions = (await deps.engineFor(genRef).identity()).versions;
  } catch {
    // The manifest is still written; it just says less about the runtime.
  }
  if (spec.attribution.judge === 'nli-llm') addModel('attribution judge', deps.resolveGenerator(spec.attribution.generator ?? spec.generator, 'attribution.generator'));
  spec.retrievers.forEach((r, i) => {
    if (r.method === 'dense') addModel(`embedding (${r.name})`, deps.resolveGenerator({ model: r.params.model }, `retrievers[${i}].params.model`));
  });
  const collection = deps.collections.byName(spec.collection);
  const queryItems = deps.experiments.items(runId, { keyPrefix: KEY_PREFIX.query });
  const qrelsText = utilityQrels(indexRunItems(queryItems));
  // LaMP-3 answers outside the labels 1–5, scored by their real error (issue 34 item 4).
  const outOfRange = outOfRangeAnswers(spec, indexRunItems([...queryItems, ...deps.experiments.items(runId, { keyPrefix: KEY_PREFIX.generation })]));
  const settings = (gen.settings ?? {}) as Record<string, unknown>;
  return {
    run: { tag: spec.name, description: spec.description ?? `Fair RAG run ${runId}` },
    ...manifestRuntime(versions, settings, spec.decoding),
    models,
    seeds: { plSampling: spec.seeds.sampling, generation: spec.seeds.generation },
    parameters: {
      k: spec.k,
      samples: spec.samples,
      alphas: spec.alphas,
      oracle: spec.oracle,
      deterministic: spec.deterministic,
      normalization: spec.normalization,
      target: spec.target,
      retrievers: spec.retrievers,
      retrievalQuery: spec.retrievalQuery,
      queries: spec.queries,
      tasks: spec.tasks ?? null,
      minUseful: spec.minUseful,
      utilityMetric: spec.utilityMetric ?? 'the query metric (ROUGE: pltrdy)',
      promptTemplate: spec.promptTemplate ?? `default per task (core/prompts), e.g. ${JSON.stringify(templateFor(spec, null))}`,
      // The budget as the run applied it (unit — 'estimated tokens' where no tokenizer answered —, total and
      // its origin, truncation, what was cut); the spec's own when the run recorded none.
      promptBudget: (stats.promptBudget as { total?: unknown } | undefined)?.total != null || spec.promptBudget ? (stats.promptBudget ?? spec.promptBudget) : null,
      attribution: {
        ...spec.attribution,
        ...(spec.attribution.judge === 'nli-llm' && !spec.attribution.template ? { template: DEFAULT_NLI_TEMPLATE } : {}),
        // The judge prompt's budget as the run applied it (premises cut first, the hypothesis never).
        ...(stats.judgeBudget ? { promptBudget: stats.judgeBudget } : {}),
      },
      generationRequestExample: generationRequest(spec, '<prompt>'),
    },
    data: {
      ...(collection ? { collection: { name: collection.name, sha256: collection.contentHash } } : {}),
      qrels: { name: 'utility labels (snapshot stored with the run)', sha256: createHash('sha256').update(qrelsText, 'utf8').digest('hex') },
    },
    evaluation: {
      measures: FAIR_RAG_MEASURES,
      measureParameters: {
        userModel: 'step: MU(i) = 1[i ≤ k]',
        k: spec.k,
        target: spec.target,
        uMax: 'max over every arm of the retriever (α arms and deterministic) and the oracle',
        ...(outOfRange.answers > 0
          ? { lowerIsBetterUtility: 'max(0, worst − error); the prediction is never clamped into the label range', outOfRangeAnswers: { count: outOfRange.count, of: outOfRange.answers, labels: '1–5' } }
          : {}),
      },
      significance: table2ManifestSignificance(spec),
    },
    extra: { runId, models: described, runtimeVersions: versions, stats },
  };
}
