import { z } from 'zod';
import { Empty, lazyMethods, method } from './define';
import { Job } from './jobs';

/** Hardware/engine settings of a local model (node-llama-cpp). Omitted fields use the defaults. */
export const ModelSettings = z
  .object({
    gpu: z.union([z.enum(['auto', 'cuda', 'metal', 'vulkan']), z.literal(false)]).optional(),
    gpuLayers: z.union([z.literal('auto'), z.number().int().min(0).max(1000)]).optional(),
    /** CPU threads; never more than this machine's cores. */
    threads: z.number().int().min(1).max(512).optional(),
    contextSize: z.number().int().min(64).max(1_048_576).optional(),
    batchSize: z.number().int().min(1).max(65_536).optional(),
    sequences: z.number().int().min(1).max(64).optional(),
  })
  .strict();
export type ModelSettings = z.infer<typeof ModelSettings>;

/**
 * The profile of a simulated reader (issue 14; engine/sim/profile.ts says what each field plants).
 * Stored as the model's settings; part of its cache identity.
 */
export const SimProfile = z
  .object({
    collection: z.string().trim().min(1).max(200),
    utility: z.enum(['labels', 'answer-in-document']).default('labels'),
    /** query id → document id → planted utility in [0, 1]; overrides `utility` for the pairs named. */
    utilities: z.record(z.string(), z.record(z.string(), z.number().min(0).max(1))).optional(),
    bias: z.union([z.enum(['uniform', 'primacy', 'recency', 'u-shaped']), z.array(z.number().min(0).max(1e6)).min(1).max(1000)]).default('u-shaped'),
    closedBookAccuracy: z.number().min(0).max(1).default(0.2),
    noise: z.number().min(0).max(1).default(0),
    seed: z.number().int().min(0).max(0xffffffff).default(0),
    /** Multiplies every planted utility and coverage: the planted effect of a power simulation (0 = null). */
    utilityScale: z.number().min(0).max(1).optional(),
    /** Strength of the position bias (default 1): 0 spreads the same total attention evenly over the positions (no order matters), 1 is `bias` itself; the planted effect of a MoI power simulation. */
    biasStrength: z.number().min(0).max(1).optional(),
    /** Lapse rate λ (default 0): the share of the documents' help the reader loses on every call, p = c + (1 − c)(1 − λ)·min(1, Σ ã u); λ > 0 keeps every answer random (no p = 1), a noisy null for calibrating a test. */
    lapse: z.number().min(0).max(1).optional(),
    /** query id → document id → a factor in [0, 1] on that document's sub-aspect coverage for that query (absent = 1); a RichRAG power simulation's planted effect. */
    coverages: z.record(z.string(), z.record(z.string(), z.number().min(0).max(1))).optional(),
  })
  .strict()
  .refine((p) => !Array.isArray(p.bias) || p.bias.some((v) => v > 0), { message: 'an explicit bias vector needs a positive value', path: ['bias'] });
export type SimProfile = z.infer<typeof SimProfile>;

/** One thread count's measurements (engine/local/threadTuning.ts ThreadMeasurement). */
export const ThreadMeasurement = z.object({
  threads: z.number().int(),
  trials: z.number().int(),
  promptTokensPerSecond: z.number(),
  decodeTokensPerSecond: z.number(),
  /** Median time of the reference call at this count, ms, and the range over the trials. */
  callMs: z.number(),
  callMsRange: z.tuple([z.number(), z.number()]),
});

/** A local model's threads (issue 19): the count in force, where it comes from, this machine's tuning. */
export const ModelThreads = z.object({
  threads: z.number().int(),
  /** The user's settings always win over a tuning; 'default' means physical cores until the first load tunes. */
  chosenBy: z.enum(['model setting', 'workspace setting', 'tuning', 'default']),
  /** Whether the count may drop while other processes hold cores. */
  adaptive: z.boolean(),
  tuning: z
    .object({
      threads: z.number().int(),
      tunedAt: z.string(),
      durationMs: z.number(),
      usableCores: z.number().int(),
      freeCores: z.number().int(),
      reference: z.object({ promptTokens: z.number().int(), decodeTokens: z.number().int() }),
      measurements: z.array(ThreadMeasurement),
    })
    .nullable(),
});

/** One cell of a power simulation (`simulate.power`, services/simulation/power.ts): power of the spec's test with its 95% Wilson interval. */
export const PowerRow = z.object({
  effect: z.number(),
  queries: z.number().int(),
  samples: z.number().int().nullable(),
  reps: z.number().int(),
  significant: z.number().int(),
  power: z.number(),
  low: z.number(),
  high: z.number(),
  /** Mean of the tested difference (condition − baseline) over the runs that had one. */
  meanDifference: z.number().nullable(),
  /** Runs whose tested cell had a raw p ≤ alpha (before the table's correction): the test's own level. */
  rawSignificant: z.number().int().optional(),
  /** Runs in which any cell of the tested family was significant after the correction (the family-wise rate). */
  familySignificant: z.number().int().optional(),
  /** Queries of the row that are replicates of the spec's own (a grid point beyond the spec's queries; services/simulation/power.ts). */
  replicated: z.number().int().optional(),
});
export type PowerRow = z.infer<typeof PowerRow>;

export const ModelInfo = z.object({
  id: z.number().int(),
  /** 'gguf': a GGUF file run by llama.cpp; 'sim': a simulated reader (planted outputs, not a language model). */
  kind: z.enum(['gguf', 'sim']).default('gguf'),
  name: z.string(),
  path: z.string(),
  size: z.number(),
  sha256: z.string().nullable(),
  status: z.enum(['pending', 'ready', 'failed', 'missing']),
  error: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  settings: ModelSettings,
  /** The settings in force (defaults filled in, threads clamped). */
  effectiveSettings: z.record(z.string(), z.unknown()),
  /** Local GGUF models: threads and their measurements on this machine; null for a simulated reader. */
  threads: ModelThreads.nullable().optional(),
  cachedCalls: z.number().int(),
  addedAt: z.string(),
});
export type ModelInfo = z.infer<typeof ModelInfo>;

/** One replica of a remote model's pool: its API root and its own concurrency limit. */
export const RemoteEndpoint = z.object({
  baseUrl: z.string().url().max(2000),
  maxConcurrency: z.number().int().min(1).max(256),
});

export const RemoteIdentity = z.object({
  source: z.enum(['reported', 'fingerprint', 'stated', 'none']),
  verified: z.boolean(),
  note: z.string().optional(),
});

const RemoteCapability = z.object({ value: z.enum(['yes', 'no', 'unknown']), detail: z.string().optional() });
export const RemoteCapabilities = z.object({
  probedAt: z.string(),
  endpoint: z.string(),
  completions: RemoteCapability,
  chat: RemoteCapability,
  /** Prompt log-probabilities through echo + logprobs: what scoring (MoI, the NLI judge's threshold) needs. */
  echoScoring: RemoteCapability,
  promptLogprobs: RemoteCapability,
  /** Constraint transports by `route.field` (e.g. `completions.json_schema`, `chat.response_format`). */
  constraints: z.record(z.string(), RemoteCapability),
});

export const RemoteEndpointInfo = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The first endpoint (the only one of a model added with one base URL). */
  baseUrl: z.string(),
  /**
   * Every endpoint of the pool, each with its limit; `effectiveConcurrency`: the requests it takes at
   * once (1 on a llama.cpp server with several slots unless `concurrentSlots`: reproducible greedy outputs).
   */
  endpoints: z.array(RemoteEndpoint.extend({ baseUrl: z.string(), effectiveConcurrency: z.number().int().min(1).optional() })),
  /** What the concurrency costs in reproducibility (llama.cpp slots), one sentence per endpoint; absent when nothing. */
  reproducibility: z.array(z.string()).optional(),
  model: z.string(),
  /** Which weights the model name stands for (reported by the servers or stated); part of the cache key. */
  revision: z.string().nullable(),
  /** Whether an API key is stored (the key itself is never sent back). */
  hasApiKey: z.boolean(),
  /**
   * How the weights are identified (issue 24): reported by the servers, a fingerprint of greedy
   * outputs, stated by the user, or nothing; `verified` false (with `note`) is shown as unverified.
   */
  identity: RemoteIdentity.optional(),
  /** What the server did when asked at `remote add` (services/remoteModels.ts); null: never asked. */
  capabilities: RemoteCapabilities.nullable().optional(),
  /** Per-request timeout (one HTTP attempt), milliseconds. */
  timeoutMs: z.number().int().optional(),
  /** How long an endpoint's weights stay trusted before it is checked again while serving, milliseconds. */
  recheckAfterMs: z.number().int().optional(),
  /** Things `remotes.add` could not check (e.g. a server that keeps no model list). */
  warnings: z.array(z.string()).optional(),
  settings: z.record(z.string(), z.unknown()),
  cachedCalls: z.number().int(),
  addedAt: z.string(),
});

/** Live counters of one endpoint of a pool (engine/remote/endpointPool.ts), since the engine started. */
export const RemoteEndpointStats = z.object({
  baseUrl: z.string(),
  limit: z.number().int(),
  inFlight: z.number().int(),
  state: z.enum(['healthy', 'backing-off', 'probing', 'excluded']),
  retryInMs: z.number(),
  consecutiveFailures: z.number().int(),
  attempts: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  retriedElsewhere: z.number().int(),
  /** Attempts sent here as a hedge for a call far slower elsewhere (issue 24 item 8). */
  hedged: z.number().int().optional(),
  meanLatencyMs: z.number().nullable(),
  /** Successful requests in the last minute. */
  perMinute: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
});

const RemoteEndpointInput = z.object({ baseUrl: z.string().url().max(2000), maxConcurrency: z.number().int().min(1).max(256).optional() }).strict();

export const TryRequest = z
  .object({
    prompt: z.string().min(1).max(100_000),
    maxTokens: z.number().int().min(1).max(4096).default(64),
    temperature: z.number().min(0).max(5).default(0),
    seed: z.number().int().min(0).optional(),
    chat: z.boolean().default(false),
    /** Stream the text as `models.tryText` events carrying this id (issue 17 item 4). */
    streamId: z.string().min(1).max(100).optional(),
  })
  .strict();

export const TryResult = z.object({
  text: z.string(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  finishReason: z.string(),
  fromCache: z.boolean(),
  durationMs: z.number(),
  /** Streaming only: time to the first token, and decoding speed after it. */
  ttftMs: z.number().nullable().optional(),
  tokensPerSecond: z.number().nullable().optional(),
});

/** Pushed while a streamed try runs: the text so far. */
export const TryText = z.object({ streamId: z.string(), text: z.string(), tokens: z.number().int() });

export const GeneratorRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('local'), modelId: z.number().int() }).strict(),
  z.object({ kind: z.literal('remote'), endpointId: z.number().int() }).strict(),
]);
export type GeneratorRef = z.infer<typeof GeneratorRef>;

const Id = z.object({ id: z.number().int() }).strict();

export const modelsContract = lazyMethods(() => ({
  'models.list': method(Empty, z.array(ModelInfo), 'The local GGUF models of the workspace.'),
  'models.add': method(
    z.object({ path: z.string().min(1).max(4096), name: z.string().min(1).max(200).optional() }).strict(),
    ModelInfo,
    'Register a GGUF file by path (header read now; SHA-256 computed in a background job).',
  ),
  'models.download': method(
    z
      .object({
        url: z.string().min(1).max(4000).refine((u) => /^(https?:\/\/|hf:)/.test(u), 'must be an https:// (or http://) URL or hf:<owner>/<repo>/<file>'),
        sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits').optional(),
        name: z.string().min(1).max(200).optional(),
      })
      .strict(),
    Job,
    'Download a GGUF into the models folder beside the workspace (resumable, checksummed) and add it to the library.',
  ),
  'models.addSim': method(
    z.object({ name: z.string().trim().min(1).max(200).optional(), profile: SimProfile }).strict(),
    ModelInfo,
    'Register a simulated reader (planted utility, position bias, closed-book accuracy, noise) over a collection of this workspace.',
  ),
  'simulate.power': method(
    z
      .object({
        experimentId: z.number().int(),
        /** Planted effects: utility scales in [0, 1]; 0 = the null effect. */
        effects: z.array(z.number().min(0).max(1)).min(1).max(10),
        reps: z.number().int().min(1).max(10_000),
        /** Numbers of queries to try (the first ones the spec selects); default all. */
        queries: z.array(z.number().int().min(1)).min(1).max(10).optional(),
        /** Fair RAG: samples N per arm to try. */
        samples: z.array(z.number().int().min(1).max(10_000)).min(1).max(10).optional(),
        noise: z.number().min(0).max(1).optional(),
        /** Reader lapse rate in [0, 1] (engine/sim/profile.ts): no answer is certain, a non-degenerate null. */
        lapse: z.number().min(0).max(1).optional(),
        seed: z.number().int().min(0).max(0xffffffff).optional(),
      })
      .strict(),
    Job,
    'Power of an experiment’s own significance test by simulation: its spec run reps times per cell on simulated readers with a planted effect (a job; the result is the report and its CSV).',
  ),
  'simulate.calibration': method(
    z
      .object({
        runId: z.number().int(),
        /** Simulated null runs (default 400: the level check). */
        runs: z.number().int().min(1).max(100_000).optional(),
        seed: z.number().int().min(0).max(0xffffffff).optional(),
      })
      .strict(),
    Job,
    "Check calibration: the measured null rejection rate of a Fair RAG run's Table 2 test, simulated from its spec at the planted null and stored once per spec (a job; the run's metrics, exports and manifest then carry it).",
  ),
  'models.remove': method(Id, z.object({ removed: z.boolean() }), 'Remove a model from the library (the file stays).'),
  'models.updateSettings': method(z.object({ id: z.number().int(), settings: ModelSettings }).strict(), ModelInfo, 'Change a model’s engine settings.'),
  'models.try': method(Id.extend({ request: TryRequest }).strict(), TryResult, 'Generate from a prompt with a model (greedy unless a temperature is given).'),
  'models.tune': method(
    Id,
    ModelInfo,
    'Measure prompt and generation speed of a local model at each thread count on this machine (a few seconds) and keep the best; a thread count set by the user still wins.',
  ),
  'models.clearCache': method(Id, z.object({ removed: z.number().int() }), 'Forget the cached LLM calls of a model.'),
  'remotes.list': method(Empty, z.array(RemoteEndpointInfo), 'OpenAI-compatible servers.'),
  'remotes.add': method(
    z
      .object({
        name: z.string().min(1).max(200),
        /** One server; or give `endpoints` for several replicas of the same model. */
        baseUrl: z.string().url().max(2000).optional(),
        endpoints: z.array(RemoteEndpointInput).min(1).max(64).optional(),
        model: z.string().min(1).max(500),
        apiKey: z.string().max(2000).optional(),
        /** Instead of a key: the name of an environment variable holding it (read when the server is used; nothing secret is stored). */
        apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'must be an environment variable name').optional(),
        serverKind: z.enum(['openai', 'vllm', 'llama.cpp']).default('openai'),
        /** Limit of each endpoint that names none. */
        maxConcurrency: z.number().int().min(1).max(256).default(4),
        /** The weights behind the name (a commit, a file hash); when absent, what the servers report. */
        revision: z.string().trim().min(1).max(500).optional(),
        /** Ask the endpoints which weights they serve (GET /models); false skips it (offline). */
        probe: z.boolean().default(true),
        /** Per-request timeout in seconds (one HTTP attempt); default 300. */
        timeoutSeconds: z.number().int().min(1).max(86_400).optional(),
        /**
         * llama.cpp: send up to the limit at once even to a server with several slots. Off by default: such a
         * server batches concurrent requests, which changes greedy outputs, so it gets one request at a time.
         */
        concurrentSlots: z.boolean().optional(),
      })
      .strict()
      .refine((r) => r.baseUrl !== undefined || r.endpoints !== undefined, { message: 'give baseUrl or endpoints', path: ['baseUrl'] }),
    RemoteEndpointInfo,
    'Register an OpenAI-compatible server (vLLM, llama.cpp server, Ollama, any /v1), or a pool of replicas serving one model.',
  ),
  'remotes.updateEndpoints': method(
    z.object({ id: z.number().int(), endpoints: z.array(RemoteEndpointInput).min(1).max(64) }).strict(),
    RemoteEndpointInfo,
    'Replace the endpoints of a served model (add or drop replicas, change limits); its cache identity stays.',
  ),
  'remotes.check': method(
    Id,
    RemoteEndpointInfo.extend({ changes: z.array(z.string()) }),
    'Ask a served model’s servers again (“Check again”): reachability, capabilities, context size and weights (checked, never changed); the stored probe is replaced and what changed is listed.',
  ),
  'remotes.updateSettings': method(
    z.object({ id: z.number().int(), timeoutSeconds: z.number().int().min(1).max(86_400).optional(), recheckAfterSeconds: z.number().min(0.1).max(86_400).optional() }).strict(),
    RemoteEndpointInfo,
    'Change a served model’s per-request timeout (seconds, one HTTP attempt) and/or how long its endpoints’ weights stay trusted before they are checked again while serving (seconds; default 60). Give at least one.',
  ),
  'remotes.stats': method(
    Id,
    z.object({ capacity: z.number().int(), endpoints: z.array(RemoteEndpointStats) }),
    'Per-endpoint load, health, throughput and errors of a served model since its engine started; capacity is the sum of the usable endpoints’ limits.',
  ),
  'remotes.remove': method(Id, z.object({ removed: z.boolean() }), 'Forget a server.'),
  'remotes.try': method(Id.extend({ request: TryRequest }).strict(), TryResult, 'Generate from a prompt on a server.'),
}));
