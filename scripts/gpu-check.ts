/**
 * `npm run gpu-check` (issue 24 item 9, issue 35 item 9): on a machine with CUDA, loads the bench
 * model (the project's 110M-parameter Q8_0 GGUF, written with make-tiny's code) with every layer
 * offloaded and checks three things:
 *
 * 1. **Backend and identity:** the backend llama.cpp actually used, and the cache identity it gives
 *    (the backend is part of a local model's identity, so GPU and CPU results are cached apart).
 * 2. **Greedy parity:** the same greedy texts on the GPU as on the CPU, over `--prompts` prompts;
 *    each text that differs is named with the character where the two part.
 * 3. **Throughput:** generation tok/s on the GPU against the CPU and with 1, 4 and 16 parallel
 *    sequences, and against llama.cpp's own `llama-bench` on the same file and offload, when one
 *    is given (`--llama-bench PATH` or FAIRGROUND_LLAMA_BENCH; build it with
 *    `FAIRGROUND_LLAMA_TARGETS=llama-bench FAIRGROUND_LLAMA_CUDA=1 bash scripts/build-llama-server.sh`).
 *
 * Without a CUDA device it says "no CUDA device" and exits 0 (nothing to check). `--backend cpu`
 * rehearses every step with the CPU standing in for the device (the device side then runs with 1
 * thread, the CPU side with all cores), so the script itself is checked on a machine without a GPU.
 * Options: --tokens N (per sequence, default 64), --prompts N (default 16), --model FILE.gguf
 * (default: the bench model), --json FILE (the report as JSON, e.g. under the device tool's $OUT).
 * Exit status 1 when the backend or identity is wrong or a greedy text differs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel } from 'node-llama-cpp';
import { TINY_PRESETS, writeTinyGguf } from '../src-main/engine/gguf/tinyModel';
import { LocalEngine } from '../src-main/engine/local/localEngine';
import { physicalCores, type LocalEngineSettings } from '../src-main/engine/local/settings';
import { compareGreedyTexts, readLlamaBenchGeneration, type LlamaBenchGeneration } from './gpuCheckReport';

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

const prompt = (i: number) => `Passage ${i}: the lamp on the table is`;

async function withEngine<T>(modelPath: string, settings: Partial<LocalEngineSettings>, sequences: number, use: (engine: LocalEngine) => Promise<T>): Promise<T> {
  const engine = new LocalEngine({ modelPath, settings: { contextSize: 2048, batchSize: 512, ...settings, sequences }, modelName: 'gpu-check' });
  try {
    return await use(engine);
  } finally {
    await engine.close();
  }
}

async function measure(modelPath: string, settings: Partial<LocalEngineSettings>, sequences: number, tokens: number): Promise<Measured> {
  return withEngine(modelPath, settings, sequences, async (engine) => {
    const loaded = await engine.load();
    const identity = (await engine.identity()).outputAffectingSettings;
    const request = (i: number) => ({ prompt: prompt(i), maxTokens: tokens, sampling: { temperature: 0 } });
    await engine.generate({ ...request(0), maxTokens: 4 }); // warm-up
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: sequences }, (_, i) => engine.generate(request(i + 1))));
    const seconds = (performance.now() - started) / 1000;
    const generated = results.reduce((s, r) => s + r.completionTokens, 0);
    return { backend: loaded.gpu || 'cpu', gpuLayers: loaded.gpuLayers, identity, tokensPerSecond: generated / seconds, tokens: generated, seconds };
  });
}

/** Greedy texts of `count` prompts, one at a time (one sequence, so batching cannot move them). */
async function greedyTexts(modelPath: string, settings: Partial<LocalEngineSettings>, count: number, tokens: number): Promise<string[]> {
  return withEngine(modelPath, settings, 1, async (engine) => {
    const texts: string[] = [];
    for (let i = 0; i < count; i++) texts.push((await engine.generate({ prompt: prompt(100 + i), maxTokens: tokens, sampling: { temperature: 0 } })).text);
    return texts;
  });
}

function llamaBench(binary: string, modelPath: string, gpuLayers: number, threads: number, tokens: number): LlamaBenchGeneration {
  // -p 0: generation only, as measured above; -r 3 repetitions, llama-bench reports their mean and spread.
  const out = execFileSync(binary, ['-m', modelPath, '-ngl', String(gpuLayers), '-t', String(threads), '-p', '0', '-n', String(tokens), '-r', '3', '-o', 'json'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 16 * 1024 * 1024,
  });
  return readLlamaBenchGeneration(out, `${binary} -o json`);
}

async function main(): Promise<void> {
  const rehearsal = option('--backend') === 'cpu';
  if (!rehearsal && option('--backend') !== undefined && option('--backend') !== 'cuda') throw new Error(`--backend must be cuda or cpu, got ${option('--backend')}`);
  const devices = rehearsal ? ['(rehearsal: the CPU stands in for the device)'] : await cudaDevices();
  if (typeof devices === 'string') {
    console.log(`gpu-check: no CUDA device (${devices}). Nothing to check on this machine.`);
    return;
  }
  console.log(`gpu-check: CUDA device(s): ${devices.join(', ')}`);
  const tokens = Number(option('--tokens') ?? 64);
  const promptCount = Number(option('--prompts') ?? 16);
  const benchBinary = option('--llama-bench') ?? process.env.FAIRGROUND_LLAMA_BENCH;
  const jsonOut = option('--json');
  let dir: string | undefined;
  let modelPath = option('--model');
  if (!modelPath) {
    dir = mkdtempSync(join(tmpdir(), 'fg-gpu-check-'));
    modelPath = join(dir, 'bench.gguf');
    const written = await writeTinyGguf(modelPath, { preset: 'bench', seed: 1 });
    console.log(`bench model: ${(written.parameters / 1e6).toFixed(0)}M parameters, ${(written.bytes / 1e6).toFixed(0)} MB Q8_0`);
  }
  const failures: string[] = [];
  try {
    const allLayers = TINY_PRESETS.bench.layers + 1;
    const cpuSettings: Partial<LocalEngineSettings> = { gpu: false, threads: physicalCores() };
    const deviceSettings: Partial<LocalEngineSettings> = rehearsal ? { gpu: false, threads: 1 } : { gpu: 'cuda', gpuLayers: allLayers, threads: 1 };
    const deviceName = rehearsal ? 'device stand-in (CPU, 1 thread)' : 'CUDA';

    const cpu = await measure(modelPath, cpuSettings, 1, tokens);
    console.log(`CPU (${physicalCores()} threads): ${cpu.tokensPerSecond.toFixed(1)} tok/s, 1 sequence`);
    const rows: Array<[number, Measured]> = [];
    for (const sequences of [1, 4, 16]) {
      const m = await measure(modelPath, deviceSettings, sequences, tokens);
      rows.push([sequences, m]);
      console.log(`${deviceName}, ${sequences} parallel sequence(s): ${m.tokensPerSecond.toFixed(1)} tok/s (${m.tokens} tokens in ${m.seconds.toFixed(2)} s)`);
    }
    const gpu = rows[0]![1];
    console.log(`backend used: ${gpu.backend}, ${gpu.gpuLayers} layers offloaded`);
    console.log(`cache identity (outputAffectingSettings): ${JSON.stringify(gpu.identity)} vs CPU ${JSON.stringify(cpu.identity)}`);
    const wantBackend = rehearsal ? 'cpu' : 'cuda';
    if (gpu.backend !== wantBackend) failures.push(`${wantBackend} was asked for but llama.cpp used ${gpu.backend}`);
    else if (!rehearsal && gpu.identity.backend !== 'cuda') failures.push('the cache identity does not name the CUDA backend');
    console.log(`device vs CPU (1 sequence): ${(gpu.tokensPerSecond / cpu.tokensPerSecond).toFixed(2)}x; 16 vs 1 sequences: ${(rows[2]![1].tokensPerSecond / gpu.tokensPerSecond).toFixed(2)}x`);

    const cpuTexts = await greedyTexts(modelPath, cpuSettings, promptCount, tokens);
    const deviceTexts = await greedyTexts(modelPath, deviceSettings, promptCount, tokens);
    const parity = compareGreedyTexts(cpuTexts, deviceTexts);
    console.log(`greedy parity, ${deviceName} vs CPU: ${parity.identical} of ${parity.total} texts identical (${tokens} tokens each)`);
    for (const d of parity.differing) console.log(`  prompt ${d.index}: the texts part at character ${d.partsAt} (CPU ${JSON.stringify(d.left)} / ${deviceName} ${JSON.stringify(d.right)})`);
    if (parity.differing.length > 0) failures.push(`${parity.differing.length} of ${parity.total} greedy texts differ from the CPU's`);

    let bench: (LlamaBenchGeneration & { ratio: number }) | undefined;
    if (benchBinary) {
      const measured = llamaBench(benchBinary, modelPath, rehearsal ? 0 : allLayers, 1, tokens);
      bench = { ...measured, ratio: gpu.tokensPerSecond / measured.tokensPerSecond };
      console.log(
        `llama-bench (${measured.backends}, ${measured.gpuLayers} layers, ${measured.threads} thread(s), tg${measured.tokens}): ${measured.tokensPerSecond.toFixed(1)} ± ${measured.stddev.toFixed(1)} tok/s; ` +
          `Fairground's 1 sequence: ${gpu.tokensPerSecond.toFixed(1)} tok/s = ${bench.ratio.toFixed(2)}x llama-bench`,
      );
    } else {
      console.log('llama-bench: not given (--llama-bench PATH or FAIRGROUND_LLAMA_BENCH; build it with FAIRGROUND_LLAMA_TARGETS=llama-bench FAIRGROUND_LLAMA_CUDA=1 bash scripts/build-llama-server.sh)');
    }
    if (jsonOut) {
      const report = { rehearsal, devices, tokens, cpu, device: rows.map(([sequences, m]) => ({ sequences, ...m })), parity, llamaBench: bench ?? null, failures };
      writeFileSync(jsonOut, `${JSON.stringify(report, null, 2)}\n`);
      console.log(`report: ${jsonOut}`);
    }
    for (const f of failures) console.log(`gpu-check: FAILED — ${f}`);
    if (failures.length > 0) process.exitCode = 1;
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`gpu-check: ${(err as Error).message}`);
  process.exitCode = 1;
});
