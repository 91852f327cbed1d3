/**
 * The runtime part of a run's reproducibility manifest that every experiment kind shares: the
 * llama.cpp build, the GPU backend asked for, and the sampler (decoding plus the engine settings
 * that shape generation).
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
      ...extraSampler,
    },
  };
}
