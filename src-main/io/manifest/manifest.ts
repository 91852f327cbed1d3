/**
 * The reproducibility manifest written beside every export (conventions.md §4 "Reproducibility
 * manifest"): app version and commit; Electron, Node and Chromium; OS, CPU and GPU; node-llama-cpp
 * and the llama.cpp build and GPU backend; each GGUF file with its SHA-256 and quantization; the
 * sampler settings; every seed; numbers of samples and permutations and other parameters; content
 * hashes of the collection and qrels; the measures with their parameters; and the significance
 * test, correction and α.
 *
 * `buildManifest` is pure: the environment is collected separately (environment.ts) and passed in,
 * so tests and re-exports can pin it. Secrets are redacted from the whole result (redactSecrets.ts),
 * whatever the caller put into `parameters` or `extra`.
 */
import type { Correction } from '../../core/stats/multipleComparisons';
import type { EnvironmentInfo } from './environment';
import { redactSecrets } from './redactSecrets';

export const MANIFEST_VERSION = 1;

/** Seeds may not reproduce outputs across GPU backends or library versions (LM Studio #19, #2399). */
export const REPRODUCIBILITY_WARNING =
  'Identical seeds reproduce sampled rankings, permutations and randomization tests exactly, but LLM outputs may differ across GPU backends, llama.cpp builds and model files.';

export interface ModelRecord {
  /** What the model does in the run, e.g. `generator`, `embedding`, `judge`. */
  role: string;
  /** File name (not the full path, which would leak the user's folders). */
  file: string;
  /** Lower-case hex SHA-256 of the GGUF file. */
  sha256: string;
  /** e.g. `Q4_K_M`. */
  quantization?: string;
  sizeBytes?: number;
}

/** A content hash of an input (collection, qrels, topics, run). */
export interface DataHash {
  name?: string;
  /** Where it came from, e.g. an ir_datasets id or a file name. */
  source?: string;
  sha256: string;
}

export interface SamplerSettings {
  temperature?: number;
  topP?: number;
  topK?: number;
  minP?: number;
  repeatPenalty?: number;
  contextSize?: number;
  batchSize?: number;
  threads?: number;
  maxTokens?: number;
  [key: string]: unknown;
}

export interface SignificanceSettings {
  /** e.g. `paired-t`, `paired-randomization`. */
  test: string;
  correction: Correction;
  alpha: number;
  alternative?: string;
  permutations?: number;
  seed?: number | string;
  /** Which comparisons the correction spans (e.g. each row's intervals). */
  correctionScope?: string;
  /** A departure from the reproduced paper's test or correction, in words. */
  departure?: string;
  /** A measured null rejection rate of the test (planted-null simulation). */
  calibration?: { nullRejectionRate: number; lo: number; hi: number; runs: number; alpha: number; seed?: number | string };
}

export interface EvaluationSettings {
  /** ir_measures names, e.g. `nDCG@10`. */
  measures: string[];
  /** e.g. `{ gain: 'linear', judgedOnly: false, missingQueries: 'zero' }` (trec_eval -c). */
  measureParameters?: Record<string, unknown>;
  significance?: SignificanceSettings;
  /** Run tags of baselines. */
  baselines?: string[];
}

export interface ManifestInput {
  environment: EnvironmentInfo;
  /** Default: now. */
  createdAt?: Date;
  run?: { tag?: string; command?: string; description?: string };
  llamaCppBuild?: string;
  gpuBackend?: string;
  models?: ModelRecord[];
  sampler?: SamplerSettings;
  /** Every seed, by what it drives: `{ plSampling: 42, permutationOrder: 7, generation: 1 }`. */
  seeds?: Record<string, number | string>;
  /** Numbers of samples and permutations and any other method parameters. */
  parameters?: Record<string, unknown>;
  data?: { collection?: DataHash; qrels?: DataHash; topics?: DataHash; other?: DataHash[] };
  evaluation?: EvaluationSettings;
  /** ir_metadata `actor` (name, orcid, team, role…), only when the user filled it in. */
  actor?: Record<string, unknown>;
  /** ir_metadata `research goal` (venue, publication…), only when the user filled it in. */
  researchGoal?: Record<string, unknown>;
  /** ir_metadata `method` details (indexing, retrieval pipeline). */
  method?: Record<string, unknown>;
  extra?: Record<string, unknown>;
}

export interface ReproducibilityManifest {
  manifestVersion: typeof MANIFEST_VERSION;
  createdAt: string;
  run: { tag: string | null; command: string | null; description: string | null };
  app: EnvironmentInfo['app'];
  runtime: EnvironmentInfo['runtime'];
  host: EnvironmentInfo['host'];
  llm: { nodeLlamaCpp: string | null; llamaCppBuild: string | null; gpuBackend: string | null; models: ModelRecord[]; sampler: SamplerSettings | null };
  seeds: Record<string, number | string>;
  parameters: Record<string, unknown>;
  data: { collection: DataHash | null; qrels: DataHash | null; topics: DataHash | null; other: DataHash[] };
  evaluation: EvaluationSettings | null;
  actor: Record<string, unknown> | null;
  researchGoal: Record<string, unknown> | null;
  method: Record<string, unknown> | null;
  warnings: string[];
  /** Set by `writeManifestBeside`: the export this manifest describes (and what the kind says about it, e.g. `promptBudget`). */
  export?: { file: string; sha256: string; bytes: number; [about: string]: unknown };
  extra?: Record<string, unknown>;
}

const SHA256 = /^[0-9a-f]{64}$/;

export function buildManifest(input: ManifestInput): ReproducibilityManifest {
  for (const m of input.models ?? []) {
    if (!SHA256.test(m.sha256)) throw new RangeError(`model ${m.file}: sha256 must be 64 lower-case hex digits`);
  }
  const hashes = [input.data?.collection, input.data?.qrels, input.data?.topics, ...(input.data?.other ?? [])];
  for (const h of hashes) {
    if (h && !SHA256.test(h.sha256)) throw new RangeError(`${h.name ?? h.source ?? 'data'}: sha256 must be 64 lower-case hex digits`);
  }
  const manifest: ReproducibilityManifest = {
    manifestVersion: MANIFEST_VERSION,
    createdAt: (input.createdAt ?? new Date()).toISOString(),
    run: { tag: input.run?.tag ?? null, command: input.run?.command ?? null, description: input.run?.description ?? null },
    app: input.environment.app,
    runtime: input.environment.runtime,
    host: input.environment.host,
    llm: {
      nodeLlamaCpp: input.environment.nodeLlamaCpp,
      llamaCppBuild: input.llamaCppBuild ?? null,
      gpuBackend: input.gpuBackend ?? null,
      models: input.models ?? [],
      sampler: input.sampler ?? null,
    },
    seeds: input.seeds ?? {},
    parameters: input.parameters ?? {},
    data: {
      collection: input.data?.collection ?? null,
      qrels: input.data?.qrels ?? null,
      topics: input.data?.topics ?? null,
      other: input.data?.other ?? [],
    },
    evaluation: input.evaluation ?? null,
    actor: input.actor ?? null,
    researchGoal: input.researchGoal ?? null,
    method: input.method ?? null,
    warnings: [REPRODUCIBILITY_WARNING],
    ...(input.extra ? { extra: input.extra } : {}),
  };
  return redactSecrets(manifest);
}
