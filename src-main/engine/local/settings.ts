/**
 * Settings of the local llama.cpp engine and their defaults. Threads default to the machine's
 * physical cores: llama.cpp's own default (at least 4) oversubscribes small machines and was
 * 100-600x slower on 2 vCPUs (see the stack facts).
 */
import { availableParallelism } from 'node:os';
import { readFileSync, readdirSync } from 'node:fs';

export type GpuSetting = 'auto' | false | 'cuda' | 'metal' | 'vulkan';

export interface LocalEngineSettings {
  /** GPU backend: 'auto' picks the best available, false forces CPU. */
  gpu: GpuSetting;
  /** Layers to offload to the GPU: 'auto' fits what memory allows. */
  gpuLayers: 'auto' | number;
  /** CPU threads for evaluation; never more than the cores this process may use. */
  threads: number;
  /** Tokens per sequence (prompt plus output). */
  contextSize: number;
  /** Tokens evaluated per llama.cpp decode call. */
  batchSize: number;
  /** Parallel sequences: concurrent generations share decode batches. */
  sequences: number;
}

/** Physical cores (Linux: distinct core sibling sets), capped at what this process may use. */
export function physicalCores(): number {
  const usable = availableParallelism();
  try {
    const dir = '/sys/devices/system/cpu';
    const cores = new Set<string>();
    for (const name of readdirSync(dir)) {
      if (!/^cpu\d+$/.test(name)) continue;
      try {
        cores.add(readFileSync(`${dir}/${name}/topology/core_cpus_list`, 'utf8').trim());
      } catch {
        cores.add(readFileSync(`${dir}/${name}/topology/thread_siblings_list`, 'utf8').trim());
      }
    }
    if (cores.size > 0) return Math.max(1, Math.min(usable, cores.size));
  } catch {
    // Not Linux, or no sysfs: fall through.
  }
  // Elsewhere assume 2-way SMT on machines with many logical CPUs.
  return Math.max(1, usable >= 8 ? Math.floor(usable / 2) : usable);
}

export function defaultLocalEngineSettings(): LocalEngineSettings {
  return { gpu: 'auto', gpuLayers: 'auto', threads: physicalCores(), contextSize: 4096, batchSize: 512, sequences: 1 };
}

/** Fill in defaults and check ranges; threads are clamped to the usable cores. */
export function resolveLocalEngineSettings(partial: Partial<LocalEngineSettings> = {}): LocalEngineSettings {
  const s = { ...defaultLocalEngineSettings(), ...stripUndefined(partial) };
  const positiveInt = (name: keyof LocalEngineSettings, v: number): void => {
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`engine setting ${name} must be a positive integer, got ${v}`);
  };
  positiveInt('threads', s.threads);
  positiveInt('contextSize', s.contextSize);
  positiveInt('batchSize', s.batchSize);
  positiveInt('sequences', s.sequences);
  if (s.gpuLayers !== 'auto' && (!Number.isInteger(s.gpuLayers) || s.gpuLayers < 0)) {
    throw new RangeError(`engine setting gpuLayers must be 'auto' or a non-negative integer, got ${s.gpuLayers}`);
  }
  if (![false, 'auto', 'cuda', 'metal', 'vulkan'].includes(s.gpu)) throw new RangeError(`engine setting gpu: unknown backend ${String(s.gpu)}`);
  s.threads = Math.min(s.threads, availableParallelism());
  return s;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
