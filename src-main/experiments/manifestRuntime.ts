/**
 * The runtime part of a run's reproducibility manifest that every experiment kind shares: the
 * llama.cpp build, the GPU backend asked for, and the sampler (decoding plus the engine settings
 * that shape generation). Threads do not change outputs, but they explain a run's speed: the count,
 * who chose it (a user setting or this machine's tuning) and the tuning's medians go in too.
 */
import type { ManifestParts } from './registry';

export interface DecodingSettings {
  temperature: number;
  maxTokens: number;
  chat?: boolean | undefined;
  stop?: readonly string[] | undefined;
}

export function manifestRuntime(
  versions: Record<string, string>,
  engineSettings: Record<string, unknown>,
  decoding: DecodingSettings,
  extraSampler: Record<string, unknown> = {},
): Pick<ManifestParts, 'llamaCppBuild' | 'gpuBackend' | 'sampler'> {
  const s = engineSettings;
  return {
    ...(versions['llama.cpp'] ? { llamaCppBuild: versions['llama.cpp'] } : {}),
    ...(typeof s.gpu === 'string' || s.gpu === false ? { gpuBackend: String(s.gpu) } : {}),
    sampler: {
      temperature: decoding.temperature,
      maxTokens: decoding.maxTokens,
      chat: decoding.chat,
      ...(decoding.stop ? { stop: [...decoding.stop] } : {}),
      ...(typeof s.contextSize === 'number' ? { contextSize: s.contextSize } : {}),
      ...(typeof s.batchSize === 'number' ? { batchSize: s.batchSize } : {}),
      ...(typeof s.threads === 'number' ? { threads: s.threads } : {}),
      ...threadsRecord(s.threadsChosenBy, s.threadTuning),
      ...extraSampler,
    },
  };
}

/** `threadsChosenBy` and a compact `threadTuning` (count chosen, when, medians per count) when the settings carry them. */
function threadsRecord(chosenBy: unknown, tuning: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof chosenBy === 'string') out.threadsChosenBy = chosenBy;
  const t = tuning as { threads?: unknown; tunedAt?: unknown; measurements?: unknown } | null | undefined;
  if (t && typeof t.threads === 'number' && Array.isArray(t.measurements)) {
    out.threadTuning = {
      threads: t.threads,
      tunedAt: t.tunedAt,
      measurements: (t.measurements as Array<Record<string, unknown>>).map((m) => ({
        threads: m.threads,
        promptTokensPerSecond: round(m.promptTokensPerSecond),
        decodeTokensPerSecond: round(m.decodeTokensPerSecond),
        callMs: round(m.callMs),
      })),
    };
  }
  return out;
}

function round(v: unknown): unknown {
  return typeof v === 'number' ? Math.round(v * 100) / 100 : v;
}
