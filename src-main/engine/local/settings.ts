/**
 * Settings of the local llama.cpp engine and their defaults. Threads: a count given by the user is
 * used as is (`adaptiveThreads: false`); otherwise the count comes from measurement (threadTuning.ts)
 * and adapts to the cores other processes leave free (`adaptiveThreads: true`), starting from the
 * machine's physical cores until a tuning says better. llama.cpp's own default (at least 4)
 * oversubscribes small machines and was 100-600x slower on 2 vCPUs (see the stack facts).
 */
import { arch, availableParallelism, cpus, platform } from 'node:os';
import { readFileSync, readdirSync } from 'node:fs';

export type GpuSetting = 'auto' | false | 'cuda' | 'metal' | 'vulkan';

export interface LocalEngineSettings {
  /** GPU backend: 'auto' picks the best available, false forces CPU. */
  gpu: GpuSetting;
  /** Layers to offload to the GPU: 'auto' fits what memory allows. */
  gpuLayers: 'auto' | number;
  /** CPU threads for evaluation (adaptive: the most to use); never more than the cores this process may use. */
  threads: number;
  /**
   * False: exactly `threads`, always (the user chose it). True: at most `threads`, fewer while
   * other processes hold cores (see worker/threads.ts). Default: true unless `threads` is given.
   */
  adaptiveThreads: boolean;
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
  return { gpu: 'auto', gpuLayers: 'auto', threads: physicalCores(), adaptiveThreads: true, contextSize: 4096, batchSize: 512, sequences: 1 };
}

/**
 * The context size a local model runs with: the configured size, capped by the context the model
 * was trained with (its GGUF `<arch>.context_length`; 0 or absent: no cap). The worker creates its
 * contexts with this size, and manifests and label records report it (issue 34 item 8c).
 */
export function effectiveContextSize(configured: number, trained: number | undefined): number {
  return trained !== undefined && Number.isInteger(trained) && trained > 0 ? Math.min(configured, trained) : configured;
}

/**
 * What thread measurements belong to: the OS, the CPU model and the logical CPUs this process may
 * use. A tuning from another machine (a workspace copied to a laptop) is not applied.
 */
export function machineKey(): string {
  return `${platform()}-${arch()}|${cpus()[0]?.model.trim() ?? 'cpu'}|${availableParallelism()}`;
}

/** Fill in defaults and check ranges; threads are clamped to the usable cores. */
export function resolveLocalEngineSettings(partial: Partial<LocalEngineSettings> = {}): LocalEngineSettings {
  const given = stripUndefined(partial);
  const s = { ...defaultLocalEngineSettings(), ...given };
  // A thread count the caller chose is used as is, unless it says the count may adapt.
  if (given.adaptiveThreads === undefined) s.adaptiveThreads = given.threads === undefined;
  if (typeof s.adaptiveThreads !== 'boolean') throw new RangeError(`engine setting adaptiveThreads must be true or false, got ${String(s.adaptiveThreads)}`);
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
