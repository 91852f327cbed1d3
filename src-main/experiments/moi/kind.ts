/**
 * Mixture-of-Intervention (Lee et al., NAACL Findings 2025) as an experiment kind: spec schema
 * (API contract, api/contract/moi.ts), execution, metrics, drill-down, exports, manifest and prompt
 * preview, served by the generic `runs.*` API (a drill-down item is one query's detail).
 */
import { MoiSpec, type MoiMetrics, type MoiQueryDetail } from '../../api/contract/moi';
import { DataError } from '../../core/errors';
import type { ModelRecord } from '../../io/manifest/manifest';
import type { ExperimentsRepo } from '../../store/experimentsRepo';
import { pageOfQueries } from '../itemsPage';
import type { ExperimentDeps, ExperimentKind, ItemsPage, ItemsQuery, ManifestParts } from '../registry';
import { loadMoiData } from './data';
import { executeMoi, generationRequest } from './execute';
import { exportMoi } from './exports';
import type { DesignWarning } from '../../api/contract/plans';
import { KEY_PREFIX } from './items';
import { moiMetrics } from './metrics';
import { moiModelNeeds } from './modelNeeds';
import { moiPower } from './power';
import { PromptLayout } from './promptLayout';
import { moiQueryDetail } from './queryDetail';
import { manifestRuntime } from '../manifestRuntime';
import { pairedSignificanceWarnings } from '../significanceWarnings';

export const moiKind: ExperimentKind<MoiSpec, MoiMetrics, MoiQueryDetail> = {
  kind: 'moi',
  title: 'Mixture-of-Intervention: debiased passage order from permuted prompts (Lee et al.)',
  schema: MoiSpec,
  jobTitle: (spec) => `MoI: ${spec.name}`,
  execute: executeMoi,
  metrics: (input) => moiMetrics(input),
  items: moiItems,
  exportFile: (input) => exportMoi(input, () => moiMetrics(input)),
  manifest: moiManifest,
  previewPrompt,
  modelNeeds: moiModelNeeds,
  power: moiPower,
  designWarnings: (spec, deps) => Promise.resolve([...moiDesignWarnings(spec), ...moiSignificanceWarnings(spec, deps)]),
};

/**
 * Designs that cannot identify what MoI reports (issue 23 item 5; notes §2.3): prompt sets with no more
 * distinct prompts than unknowns (cyclic, pruned, random with count < N + L − 1) have an exact-fit
 * manifold, so a is not learned; full-length prompts fit a bias curve and its mirror equally, so the
 * orientation rule, not the data, decides primacy vs recency (and the ranking's direction).
 */
export function moiDesignWarnings(spec: MoiSpec): DesignWarning[] {
  const out: DesignWarning[] = [];
  const n = spec.n;
  const p = spec.permutations;
  const fixed = spec.solver.fixedA !== undefined;
  const L = p.set === 'pruned' || p.set === 'random-pruned' ? Math.min(n, p.length ?? Math.ceil(n / 2)) : n;
  const prompts = p.set === 'random3n' || p.set === 'random-pruned' ? (p.count ?? 3 * n) : p.set === 'all' ? Infinity : n;
  const unknowns = n + L - 1;
  if (!fixed && prompts < unknowns) {
    out.push({
      code: 'moi-unidentified',
      message: `${p.set === 'random3n' || p.set === 'random-pruned' ? `${prompts} ${p.set === 'random-pruned' ? 'random pruned' : 'random'}` : p.set} prompts (${prompts}) for ${unknowns} unknowns (N + L − 1 with N = ${n}, L = ${L}): every a fits exactly (an exact-fit manifold), so the bias profile is not learned and u follows the solver's start`,
      fix: `use permutations.set 'random3n' (3N = ${3 * n} prompts), or hold a fixed from a random-3N calibration run (solver.fixedA.fromRun)`,
      field: 'permutations',
    });
  }
  if (!fixed && L === n && spec.solver.orientation !== 'none') {
    out.push({
      code: 'moi-orientation',
      message: `full-length prompts (L = N = ${n}) fit a bias curve and its mirror equally well: the orientation rule '${spec.solver.orientation}', not the data, decides primacy vs recency and the direction of MoI's ranking (results label it so)`,
      fix: "use prefix-pruned prompts: permutations.set 'random-pruned' (3N random L-prefixes, L < N: learns a and its orientation from the data), or 'pruned' with a bias profile from a random-3N calibration run (solver.fixedA.fromRun); or accept the rule (the paper finds decreasing a for every model)",
      field: 'permutations',
    });
  }
  return out;
}

/**
 * Table 1's test on this many queries (issue 23 items 1 and 5; experiments/significanceWarnings.ts): MoI and the
 * Table 1 baselines (not the reversed orders or gold positions) against the retriever order, corrected together.
 * Each of Table 1's columns is tested over the queries it covers (a query counts towards its own metric and the
 * extra metrics), so the check is made per column: the demo's 12 queries split into 8 scored by ROUGE-L and 4 by
 * accuracy, and a star in the ROUGE-L column is judged on 8 queries, not 12. One warning per kind of problem: the
 * column with the fewest queries, the others named beside it.
 */
export function moiSignificanceWarnings(spec: MoiSpec, deps: Pick<ExperimentDeps, 'collections' | 'retrievalRuns'>): DesignWarning[] {
  let columns: Map<string, number>;
  try {
    columns = new Map();
    for (const q of loadMoiData(spec, deps).queries) for (const m of q.scorer.names) columns.set(m, (columns.get(m) ?? 0) + 1);
  } catch {
    return []; // an unusable spec is refused by validation and by the run, with its own message
  }
  const compared = ['moi', ...spec.baselines.filter((b) => b !== 'gold-position' && !b.endsWith('-reversed'))];
  const { test, correction, alpha } = spec.significance;
  const design = { test, correction, alpha, comparisons: compared.length, baseline: 'retriever order', unit: 'methods' } as const;
  if (columns.size === 0) return pairedSignificanceWarnings({ ...design, queries: 0, tables: 'Table 1' });
  const several = columns.size > 1;
  const flagged = new Map<string, { n: number; measure: string; warning: DesignWarning }[]>();
  for (const [measure, n] of columns) {
    const tables = several ? `Table 1's ${measure} column` : 'Table 1';
    for (const warning of pairedSignificanceWarnings({ ...design, queries: n, tables })) {
      const list = flagged.get(warning.code) ?? [];
      list.push({ n, measure, warning });
      flagged.set(warning.code, list);
    }
  }
  return [...flagged.values()].map((list) => {
    list.sort((a, b) => a.n - b.n || a.measure.localeCompare(b.measure));
    const worst = list[0]!;
    const others = list.slice(1).map((x) => `${x.measure} (${x.n} ${x.n === 1 ? 'query' : 'queries'})`);
    const also = others.length > 0 ? ` The same holds for the column${others.length > 1 ? 's' : ''} ${others.join(', ')}.` : '';
    const fix = several ? worst.warning.fix.replace(/evaluation queries/, 'evaluation queries in each column of Table 1') : worst.warning.fix;
    return { ...worst.warning, message: worst.warning.message + also, fix };
  });
}

/** Drill-down items: one per query, its detail (with `condition`, only that method's row). */
function moiItems(runId: number, _spec: MoiSpec, repo: ExperimentsRepo, query: ItemsQuery): ItemsPage<MoiQueryDetail> {
  return pageOfQueries(repo, runId, KEY_PREFIX.query, query, (qid, items, method) => {
    const detail = moiQueryDetail(qid, items);
    return method === undefined ? detail : { ...detail, methods: detail.methods.filter((m) => m.method === method) };
  });
}

async function previewPrompt(spec: MoiSpec, deps: ExperimentDeps, queryId: string) {
  const data = loadMoiData({ ...spec, queries: [queryId], tasks: undefined }, deps);
  const q = data.queries[0];
  if (!q) throw new DataError(`query '${queryId}' cannot be used: ${data.skipped[0]?.reason ?? 'unknown reason'}`, { field: 'queryId' });
  return {
    queryId: q.queryId,
    retriever: spec.retriever.method,
    ranking: q.passages.map((p) => p.docId),
    prompt: new PromptLayout(spec.prompt).generationPrompt(q.passages, q.text),
  };
}

async function moiManifest(runId: number, spec: MoiSpec, deps: ExperimentDeps, stats: Record<string, unknown>): Promise<ManifestParts> {
  const models: ModelRecord[] = [];
  const described: Record<string, unknown>[] = [];
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
  const agentRef = spec.agent ? deps.resolveGenerator(spec.agent, 'agent') : genRef;
  addModel(spec.agent ? 'agent (intervention scoring)' : 'agent (intervention scoring) = generator', agentRef);
  let versions: Record<string, string> = {};
  try {
    versions = (await deps.engineFor(genRef).identity()).versions;
  } catch {
    // The manifest is still written; it just says less about the runtime.
  }
  const collection = deps.collections.byName(spec.collection);
  const settings = (gen.settings ?? {}) as Record<string, unknown>;
  const layout = new PromptLayout(spec.prompt);
  const example = [{ id: 'p1', title: '', text: '<passage 1>' }, { id: 'p2', title: '', text: '<passage 2>' }];
  const scoring = layout.scoring(example, '<question>');
  return {
    run: { tag: spec.name, description: spec.description ?? `MoI run ${runId}` },
    ...manifestRuntime(versions, settings, spec.decoding),
    models,
    seeds: { permutations: spec.seeds.permutations, generation: spec.seeds.generation, solverStarts: spec.solver.seed, randomizationTest: spec.seeds.test },
    parameters: {
      n: spec.n,
      permutations: spec.permutations,
      scoring: { ...spec.scoring, formula: 's_i = agg(log P(q tokens)) + w * agg(log P(passage tokens)), one teacher-forced pass (Eq. 3, log domain)' },
      solver: spec.solver,
      retriever: spec.retriever,
      queries: spec.queries,
      tasks: spec.tasks ?? null,
      baselines: spec.baselines,
      selfConsistency: { ...spec.selfConsistency, answerMatching: spec.selfConsistency.match === 'exact' ? 'SQuAD normalize_answer, exact match, ties to the earliest' : 'MBR: highest mean SQuAD token F1 to the other answers' },
      random: 'mean answer quality over the self-consistency answers (same K permutations)',
      qg: spec.qg,
      gold: spec.gold,
      prompt: spec.prompt,
      // How the prompts were fitted to the contexts (unit — 'estimated tokens' where no tokenizer answered —, contexts, passages cut once per query).
      promptBudget: stats.promptBudget ?? spec.promptBudget ?? null,
      metric: spec.metric,
      extraMetrics: spec.extraMetrics,
      scoringRequestExample: { prompt: scoring.prompt, continuation: scoring.continuation },
      generationRequestExample: generationRequest(spec, layout.generationPrompt(example, '<question>')),
    },
    data: { ...(collection ? { collection: { name: collection.name, sha256: collection.contentHash } } : {}) },
    evaluation: {
      measures: [...new Set([...(spec.metric.name ? [spec.metric.name] : ['each query’s own metric']), ...spec.extraMetrics, 'MRR (gold passage)'])],
      measureParameters: { rouge: spec.metric.impl ?? 'rouge-score', stem: spec.metric.stem ?? false },
      significance: { test: spec.significance.test === 't' ? 'paired-t' : 'paired-randomization', correction: spec.significance.correction, alpha: spec.significance.alpha, ...(spec.significance.test === 'randomization' ? { seed: spec.seeds.test } : {}) },
      baselines: ['retriever'],
    },
    extra: { runId, models: described, runtimeVersions: versions, stats },
  };
}
