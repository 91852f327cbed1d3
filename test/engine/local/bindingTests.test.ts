/**
 * node-llama-cpp's binary self-test, run once per binary (worker/bindingTests.ts), against the real
 * node-llama-cpp and its prebuilt binary: each probe is a fresh Node process running getLlama, whose
 * forks of the test script are counted by a wrapper outside the code under test.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindingTestKey, bindingTestsFile, confirmSkipped, KNOWN_TEST_SCRIPTS, type BindingTestReport } from '../../../src-main/engine/local/worker/bindingTests';
import { LocalEngine, type LocalEngineState } from '../../../src-main/engine/local/localEngine';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../support/tinyModels';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const tsx = pathToFileURL(require.resolve('tsx')).href;
const probe = join(here, '..', 'support', 'bindingTestsProbe.ts');
const testScript = join(dirname(require.resolve('node-llama-cpp')), 'bindings', 'utils', 'testBindingBinary.js');

interface Probe {
  realForks: number;
  report: BindingTestReport;
  confirmed: boolean;
  gpu: string | false;
  buildType: string;
  release: string;
  forkRestored: boolean;
}

function runProbe(file: string, mode: 'cached' | 'always'): Probe {
  const r = spawnSync(process.execPath, ['--import', tsx, probe, mode], { env: { ...process.env, FAIRGROUND_BINDING_TESTS: file }, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`probe exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Probe;
}

const records = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as { version: number; passed: Record<string, { binary: string; at: string }> };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-bindtests-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('binding tests', () => {
  it("follows the installed node-llama-cpp's test-process protocol (its testBindingBinary.js is one this file was checked against)", () => {
    const sha = createHash('sha256').update(readFileSync(testScript)).digest('hex');
    expect(KNOWN_TEST_SCRIPTS).toContain(sha);
  });

  it('tests a binary once, then skips its test on the record and loads the same build; always runs it again', () => {
    const file = join(dir, 'once.json');
    const first = runProbe(file, 'cached');
    expect(first.realForks).toBe(1);
    expect(first.report.skipped).toEqual([]);
    expect(first.report.tested).toHaveLength(1);
    expect(first.report.tested[0]!.passed).toBe(true);
    expect(first.forkRestored).toBe(true);
    const binary = first.report.tested[0]!.binary;
    expect(binary).toMatch(/llama-addon\.node$/);
    const afterFirst = records(file);
    expect(Object.values(afterFirst.passed).map((r) => r.binary)).toEqual([binary]);

    const second = runProbe(file, 'cached');
    expect(second.realForks).toBe(0);
    expect(second.report.tested).toEqual([]);
    expect(second.report.skipped.map((s) => [s.binary, s.gpu])).toEqual([[binary, false]]);
    expect(second.report.last).toBe('skipped');
    expect(second.confirmed).toBe(true);
    expect([second.gpu, second.buildType, second.release]).toEqual([first.gpu, first.buildType, first.release]);
    // The record was taken out while the binary loaded and put back once it had.
    const afterSecond = records(file);
    expect(Object.keys(afterSecond.passed)).toEqual(Object.keys(afterFirst.passed));
    expect(Object.values(afterSecond.passed)[0]!.at >= Object.values(afterFirst.passed)[0]!.at).toBe(true);

    const always = runProbe(file, 'always');
    expect(always.realForks).toBe(1);
    expect(always.report.skipped).toEqual([]);
    expect(always.report.tested.map((t) => t.passed)).toEqual([true]);
  }, 180_000);

  it('reads a damaged records file as empty (the test runs) and writes a valid one; `off` runs every test and writes nothing', () => {
    const file = join(dir, 'damaged.json');
    writeFileSync(file, '{"version": 1, "passed": [');
    const p = runProbe(file, 'cached');
    expect(p.realForks).toBe(1);
    expect(Object.keys(records(file).passed)).toHaveLength(1);

    const off = spawnSync(process.execPath, ['--import', tsx, probe, 'cached'], { env: { ...process.env, FAIRGROUND_BINDING_TESTS: 'off' }, encoding: 'utf8', timeout: 120_000 });
    expect(off.status).toBe(0);
    const o = JSON.parse(off.stdout.trim().split('\n').pop()!) as Probe;
    expect(o.realForks).toBe(1);
    expect(o.report).toEqual({ skipped: [], tested: [] });
  }, 180_000);

  it("keys a record on the binary's size and modification time, the GPU type and the test script", () => {
    const bin = join(dir, 'fake-addon.node');
    writeFileSync(bin, 'x'.repeat(100));
    utimesSync(bin, 1_700_000_000, 1_700_000_000);
    const script = createHash('sha256').update('test script').digest('hex');
    const start = { type: 'start' as const, bindingBinaryPath: bin, gpu: false };
    const key = bindingTestKey(start, script);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(bindingTestKey({ ...start }, script)).toBe(key);
    expect(bindingTestKey({ ...start, gpu: 'cuda' }, script)).not.toBe(key);
    expect(bindingTestKey(start, createHash('sha256').update('other script').digest('hex'))).not.toBe(key);
    utimesSync(bin, 1_700_000_001, 1_700_000_001);
    expect(bindingTestKey(start, script)).not.toBe(key);
    writeFileSync(bin, 'x'.repeat(101));
    utimesSync(bin, 1_700_000_000, 1_700_000_000);
    expect(bindingTestKey(start, script)).not.toBe(key);
    expect(bindingTestKey({ ...start, bindingBinaryPath: join(dir, 'missing.node') }, script)).toBeNull();
  });

  it('puts a skipped record back only when the loaded binary reports the GPU type its test saw', () => {
    const file = join(dir, 'confirm.json');
    const report: BindingTestReport = { skipped: [{ binary: '/x/llama-addon.node', gpu: 'cuda', key: 'k1' }], tested: [], last: 'skipped' };
    expect(confirmSkipped(file, report, false)).toBe(false);
    expect(existsSync(file)).toBe(false);
    // The skipped binary failed to load and node-llama-cpp went on to one it tested: that one loaded, the skipped record stays out.
    expect(confirmSkipped(file, { ...report, tested: [{ binary: '/x/cpu/llama-addon.node', passed: true }], last: 'tested' }, false)).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(confirmSkipped(file, report, 'cuda')).toBe(true);
    expect(Object.keys(records(file).passed)).toEqual(['k1']);
    expect(confirmSkipped(file, { skipped: [], tested: [] }, false)).toBe(true);
    expect(confirmSkipped(null, report, false)).toBe(true);
  });

  it('uses the platform cache folder unless FAIRGROUND_BINDING_TESTS names a file or is off', () => {
    expect(bindingTestsFile({}, 'linux', '/home/u')).toBe('/home/u/.cache/fairground/llama-binding-tests.json');
    expect(bindingTestsFile({ XDG_CACHE_HOME: '/c' }, 'linux', '/home/u')).toBe('/c/fairground/llama-binding-tests.json');
    expect(bindingTestsFile({ XDG_CACHE_HOME: 'relative' }, 'linux', '/home/u')).toBe('/home/u/.cache/fairground/llama-binding-tests.json');
    expect(bindingTestsFile({}, 'darwin', '/Users/u')).toBe('/Users/u/Library/Caches/Fairground/llama-binding-tests.json');
    expect(bindingTestsFile({ FAIRGROUND_BINDING_TESTS: '/t/r.json' }, 'linux', '/home/u')).toBe('/t/r.json');
    expect(bindingTestsFile({ FAIRGROUND_BINDING_TESTS: 'off' }, 'linux', '/home/u')).toBeNull();
    expect(bindingTestsFile({ FAIRGROUND_BINDING_TESTS: '0' }, 'linux', '/home/u')).toBeNull();
  });
});

describe('a load that skipped the test and then died', () => {
  let models: TinyModels;
  const saved = process.env.FAIRGROUND_BINDING_TESTS;
  beforeAll(() => {
    models = tinyModels();
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.FAIRGROUND_BINDING_TESTS;
    else process.env.FAIRGROUND_BINDING_TESTS = saved;
    delete process.env.FAIRGROUND_TEST_CRASH_MARKER;
    models.cleanup();
  });

  it('is loaded again with the test run, and the engine serves as if nothing happened', async () => {
    const file = join(dir, 'engine.json');
    const marker = join(dir, 'killed.txt');
    process.env.FAIRGROUND_BINDING_TESTS = file;
    process.env.FAIRGROUND_TEST_CRASH_MARKER = marker;
    const modelPath = await models.model(3);
    const greedy = { prompt: 'the binary', maxTokens: 6, sampling: { temperature: 0 } };
    // A first engine tests the binary and records it.
    const plain = new LocalEngine({ modelPath, settings: TEST_SETTINGS });
    let expected;
    try {
      expected = await plain.generate(greedy);
    } finally {
      await plain.close();
    }
    expect(Object.keys(records(file).passed)).toHaveLength(1);

    // The next worker skips the test on that record and dies before the binary has loaded.
    const states: LocalEngineState['status'][] = [];
    const engine = new LocalEngine({
      modelPath,
      settings: TEST_SETTINGS,
      workerPath: join(here, '..', 'support', 'crashAfterSkipWorker.ts'),
      onStateChange: (s) => states.push(s.status),
    });
    try {
      await engine.load();
      // One worker skipped the test and was killed; the second ran the test (no skip, so it lived) and put the record back.
      expect(readFileSync(marker, 'utf8').trim().split('\n')).toHaveLength(1);
      expect(states).toEqual(['loading', 'ready']);
      expect(Object.keys(records(file).passed)).toHaveLength(1);
      expect(await engine.generate(greedy)).toEqual(expected);
    } finally {
      await engine.close();
    }
  }, 180_000);
});
