/**
 * `npm run gpu-check` (issue 24 item 9): on a machine with CUDA, loads the bench model (the
 * project's 110M-parameter Q8_0 GGUF, written with make-tiny's code) with every layer offloaded,
 * reports the backend llama.cpp actually used and the cache identity it gives (the backend is part
 * of a local model's identity, so GPU and CPU results are cached apart), and prints generation
 * throughput on the GPU against the CPU, and with 1, 4 and 16 parallel sequences.
 *
 * Without a CUDA device it says "no CUDA device" and exits 0 (nothing to check).
 * Options: --tokens N (per sequence, default 64), --model FILE.gguf (default: the bench model).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel } from 'node-llama-cpp';
import { TINY_PRESETS, writeTinyGguf } from '../src-main/engine/gguf/tinyModel';
import { LocalEngine } from '../src-main/engine/local/localEngine';
import { physicalCores, type LocalEngineSettings } from '../src-main/engine/local/settings';

function option(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function cudaDevices(): Promise<string[] | string> {
  try {
    const llama = await getLlama({ gpu: 'cuda', build: 'never', logLevel: LlamaLogLevel.error });
    const names = llama.gpu === 'cuda' ? await llama.getGpuDeviceNames() : [];
    await llama.dispose();
    return names.length > 0 ? names : 'the CUDA backend loaded but lists no device';
  } catch (err) {
    return (err as Error).message.split('\n')[0] ?? String(err);
  }
}

interface Measured {
  backend: string;
  gpuLayers: number;
  identity: Record<string, unknown>;
  tokensPerSecond: number;
  tokens: number;
  seconds: number;
}

async function measure(modelPath: string, settings: Partial<LocalEngineSettings>, sequences: number, tokens: number): Promise<Measured> {
  const engine = new LocalEngine({ modelPath, settings: { contextSize: 2048, batchSize: 512, ...settings, sequences }, modelName: 'gpu-check' });
  try {
    const loaded = await engine.load();
    const identity = (await engine.identity()).outputAffectingSettings;
    const request = (i: number) => ({ prompt: `Passage ${i}: the lamp on the table is`, maxTokens: tokens, sampling: { temperature: 0 } });
    await engine.generate({ ...request(0), maxTokens: 4 }); // warm-up
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: sequences }, (_, i) => engine.generate(request(i + 1))));
    const seconds = (performance.now() - started) / 1000;
    const generated = results.reduce((s, r) => s + r.completionTokens, 0);
    return { backend: loaded.gpu || 'cpu', gpuLayers: loaded.gpuLayers, identity, tokensPerSecond: generated / seconds, tokens: generated, seconds };
  } finally {
    await engine.close();
  }
}

async function main(): Promise<void> {
  const devices = await cudaDevices();
  if (typeof devices === 'string') {
    console.log(`gpu-check: no CUDA device (${devices}). Nothing to check on this machine.`);
    return;
  }
  console.log(`gpu-check: CUDA device(s): ${devices.join(', ')}`);
  const tokens = Number(option('--tokens') ?? 64);
  let dir: string | undefined;
  let modelPath = option('--model');
  if (!modelPath) {
    dir = mkdtempSync(join(tmpdir(), 'fg-gpu-check-'));
    modelPath = join(dir, 'bench.gguf');
    const written = await writeTinyGguf(modelPath, { preset: 'bench', seed: 1 });
    console.log(`bench model: ${(written.parameters / 1e6).toFixed(0)}M parameters, ${(written.bytes / 1e6).toFixed(0)} MB Q8_0`);
  }
  try {
    const allLayers = TINY_PRESETS.bench.layers + 1;
    const cpu = await measure(modelPath, { gpu: false, threads: physicalCores() }, 1, tokens);
    console.log(`CPU (${physicalCores()} threads): ${cpu.tokensPerSecond.toFixed(1)} tok/s, 1 sequence`);
    const rows: Array<[number, Measured]> = [];
    for (const sequences of [1, 4, 16]) {
      const m = await measure(modelPath, { gpu: 'cuda', gpuLayers: allLayers, threads: 1 }, sequences, tokens);
      rows.push([sequences, m]);
      console.log(`CUDA, ${sequences} parallel sequence(s): ${m.tokensPerSecond.toFixed(1)} tok/s (${m.tokens} tokens in ${m.seconds.toFixed(2)} s)`);
    }
    const gpu = rows[0]![1];
    console.log(`backend used: ${gpu.backend}, ${gpu.gpuLayers} layers offloaded`);
    console.log(`cache identity (outputAffectingSettings): ${JSON.stringify(gpu.identity)} vs CPU ${JSON.stringify(cpu.identity)}`);
    if (gpu.backend !== 'cuda') {
      console.log('gpu-check: FAILED — CUDA was asked for but llama.cpp used another backend');
      process.exitCode = 1;
    } else if (gpu.identity.backend !== 'cuda') {
      console.log('gpu-check: FAILED — the cache identity does not name the CUDA backend');
      process.exitCode = 1;
    }
    console.log(`GPU vs CPU (1 sequence): ${(gpu.tokensPerSecond / cpu.tokensPerSecond).toFixed(2)}x; 16 vs 1 sequences: ${(rows[2]![1].tokensPerSecond / gpu.tokensPerSecond).toFixed(2)}x`);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`gpu-check: ${(err as Error).message}`);
  process.exitCode = 1;
});
