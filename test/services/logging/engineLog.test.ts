/**
 * The local engine's diagnostics reach the rotating log file (issue 17 item 7): a real worker
 * process on the project's tiny GGUF writes its start and load lines (`engine`), llama.cpp's logger
 * writes `llama.cpp` lines (at info level, which FAIRGROUND_LLAMA_LOG_LEVEL selects; the default,
 * warn, is silent for a sound model), and a GGUF that aborts llama.cpp leaves the worker's stderr
 * (`engine-worker`: the GGML_ASSERT line) and the exit.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineLog, LineSplitter, logLevelOf, setEngineLogSink } from '../../../src-main/engine/local/engineLog';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { attachEngineLog } from '../../../src-main/services/logging/engineLogBridge';
import { RotatingLog } from '../../../src-main/services/logging/rotatingLog';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../../engine/support/tinyModels';

const dir = mkdtempSync(join(tmpdir(), 'fg-englog-'));
let models: TinyModels;
let log: RotatingLog;
let detach: () => void;

beforeAll(() => {
  models = tinyModels();
  log = new RotatingLog(join(dir, 'logs'));
  detach = attachEngineLog(log);
});
afterAll(() => {
  detach?.();
  models?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const lines = () => readFileSync(log.file, 'utf8').split('\n').filter(Boolean);
const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO|WARN|ERROR) ([\w.-]+): (.*)$/;

describe('engine log forwarding', () => {
  it('logs the worker start (with its pid), the model load and the clean exit of a real engine', async () => {
    const path = await models.model(1);
    const engine = new LocalEngine({ modelPath: path, modelName: 'tiny-one', settings: TEST_SETTINGS });
    try {
      await engine.generate({ prompt: 'hello', maxTokens: 2, sampling: { temperature: 0 } });
      const pid = engine.workerPid!;
      expect(pid).toBeGreaterThan(0);
      const engineLines = lines().filter((l) => LINE.exec(l)?.[2] === 'engine');
      expect(engineLines[0]).toMatch(new RegExp(`INFO engine: tiny-one: worker pid ${pid} started for ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      expect(engineLines[1]).toMatch(/INFO engine: tiny-one: model loaded \(backend cpu, llama\.cpp \S+, 1 threads, context \d+\)$/);
    } finally {
      await engine.close();
    }
    // The exit is reported when the process has gone.
    await new Promise((r) => setTimeout(r, 200));
    expect(lines().filter((l) => l.includes('tiny-one:')).at(-1)).toMatch(/INFO engine: tiny-one: the engine process exited with code 0$/);
    for (const l of lines()) expect(l).toMatch(LINE);
  });

  it("logs llama.cpp's own lines tagged llama.cpp (at FAIRGROUND_LLAMA_LOG_LEVEL=info: the model's metadata on load)", async () => {
    const path = await models.model(2);
    const before = process.env.FAIRGROUND_LLAMA_LOG_LEVEL;
    process.env.FAIRGROUND_LLAMA_LOG_LEVEL = 'info'; // the worker inherits the environment when it is forked
    const engine = new LocalEngine({ modelPath: path, modelName: 'tiny-two', settings: TEST_SETTINGS });
    try {
      await engine.load();
    } finally {
      if (before === undefined) delete process.env.FAIRGROUND_LLAMA_LOG_LEVEL;
      else process.env.FAIRGROUND_LLAMA_LOG_LEVEL = before;
      await engine.close();
    }
    const llama = lines().filter((l) => / llama\.cpp: tiny-two: /.test(l));
    expect(llama.length).toBeGreaterThan(5);
    for (const l of llama) expect(l).toMatch(LINE);
    // llama.cpp names the model's architecture (our tiny GGUF is a llama) while loading it.
    expect(llama.some((l) => /INFO llama\.cpp: tiny-two: .*\bllama\b/.test(l))).toBe(true);
  });

  it("logs what a crashing worker wrote to stderr (llama.cpp's GGML_ASSERT) as engine-worker lines, and the crash", async () => {
    // Without feed_forward_length llama.cpp hits GGML_ASSERT and aborts the worker (SIGABRT).
    const path = await models.broken('no-ffn', (spec) => spec.kv.delete('llama.feed_forward_length'));
    const engine = new LocalEngine({ modelPath: path, modelName: 'broken-ffn', settings: TEST_SETTINGS });
    try {
      const err = await engine.load().catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(Error);
    } finally {
      await engine.close();
    }
    const mine = lines().filter((l) => l.includes('broken-ffn:'));
    expect(mine[0]).toMatch(/INFO engine: broken-ffn: worker pid \d+ started for /);
    expect(mine.some((l) => /WARN engine-worker: broken-ffn: .*GGML_ASSERT/.test(l))).toBe(true);
    expect(mine.some((l) => /ERROR engine: broken-ffn: the engine process was killed by SIGABRT while loading the model: .*GGML_ASSERT/.test(l))).toBe(true);
    // llama.cpp's own logger lines (warnings and errors at the engine's log level), if it emitted any, carry their tag.
    for (const l of mine.filter((x) => x.includes(' llama.cpp: '))) expect(l).toMatch(/ (WARN|ERROR) llama\.cpp: broken-ffn: /);
  });

  it('maps node-llama-cpp levels, splits streamed output into lines, and is silent without a sink', () => {
    expect(['fatal', 'error', 'warn', 'info', 'log', 'debug'].map(logLevelOf)).toEqual(['error', 'error', 'warn', 'info', 'info', 'info']);
    const s = new LineSplitter();
    expect(s.push('first li')).toEqual([]);
    expect(s.push('ne\r\nsecond\n\nthi')).toEqual(['first line', 'second']);
    expect(s.flush()).toEqual(['thi']);
    expect(s.flush()).toEqual([]);

    const got: string[] = [];
    const previous = setEngineLogSink((level, source, message) => got.push(`${level} ${source} ${message}`));
    engineLog('warn', 'llama.cpp', 'x');
    setEngineLogSink(null);
    engineLog('warn', 'llama.cpp', 'dropped');
    setEngineLogSink(previous);
    expect(got).toEqual(['warn llama.cpp x']);
  });
});
