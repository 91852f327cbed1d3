import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collectEnvironment, gitState, type EnvironmentInfo } from '../../../src-main/io/manifest/environment';
import { manifestToIrMetadata } from '../../../src-main/io/manifest/irMetadata';
import { buildManifest, REPRODUCIBILITY_WARNING, type ManifestInput } from '../../../src-main/io/manifest/manifest';
import { REDACTED } from '../../../src-main/io/manifest/redactSecrets';
import { manifestPathFor, writeManifestBeside } from '../../../src-main/io/manifest/writeManifest';
import { formatIrMetadataHeader, parseIrMetadataHeader } from '../../../src-main/io/trec/irMetadata';

const repoRoot = path.resolve(__dirname, '../../..');
const HASH_A = 'a'.repeat(64);
const HASH_Q = '0123456789abcdef'.repeat(4);
// SHA-256("abc"), FIPS 180-2 appendix B.1
const SHA256_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

const env: EnvironmentInfo = {
  app: { name: 'fairground', version: '0.1.0', gitCommit: 'f'.repeat(40), gitDirty: false },
  runtime: { node: '20.19.0', v8: '11.3', electron: '39.8.9', chromium: '142.0' },
  host: { platform: 'linux', arch: 'x64', osType: 'Linux', osRelease: '6.8.0', osVersion: '#1 SMP', cpuModel: 'Test CPU', cpuCores: 8, memoryBytes: 16 * 2 ** 30, gpu: 'NVIDIA H200' },
  nodeLlamaCpp: '3.21.1',
};

const input: ManifestInput = {
  environment: env,
  createdAt: new Date('2026-01-02T03:04:05.000Z'),
  run: { tag: 'fair-pl-a2', command: 'fairground sample --seed 42' },
  llamaCppBuild: 'b6000',
  gpuBackend: 'cuda',
  models: [{ role: 'generator', file: 'tiny.gguf', sha256: HASH_A, quantization: 'Q4_K_M' }],
  sampler: { temperature: 0.7, topP: 0.9, maxTokens: 256 },
  seeds: { plSampling: 42, generation: 7 },
  parameters: { samples: 100, alpha: 2, remote: { baseUrl: 'http://localhost:8080', apiKey: 'sk-should-not-appear' } },
  data: { collection: { name: 'lamp-4', sha256: HASH_A }, qrels: { name: 'utility qrels', sha256: HASH_Q } },
  evaluation: { measures: ['EE-D', 'nDCG@10'], significance: { test: 'paired-t', correction: 'holm', alpha: 0.05 }, baselines: ['bm25'] },
  extra: { note: 'x', password: 'pw' },
};

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const tmp = () => {
  const d = mkdtempSync(path.join(os.tmpdir(), 'fg-manifest-'));
  dirs.push(d);
  return d;
};

describe('buildManifest', () => {
  it('records environment, models, seeds, data hashes and evaluation; redacts secrets', () => {
    const m = buildManifest(input);
    expect(m.manifestVersion).toBe(1);
    expect(m.createdAt).toBe('2026-01-02T03:04:05.000Z');
    expect(m.app.gitCommit).toBe('f'.repeat(40));
    expect(m.runtime.electron).toBe('39.8.9');
    expect(m.llm).toEqual({
      nodeLlamaCpp: '3.21.1',
      llamaCppBuild: 'b6000',
      gpuBackend: 'cuda',
      models: [{ role: 'generator', file: 'tiny.gguf', sha256: HASH_A, quantization: 'Q4_K_M' }],
      sampler: { temperature: 0.7, topP: 0.9, maxTokens: 256 },
    });
    expect(m.seeds).toEqual({ plSampling: 42, generation: 7 });
    expect(m.data.qrels).toEqual({ name: 'utility qrels', sha256: HASH_Q });
    expect(m.evaluation?.significance).toEqual({ test: 'paired-t', correction: 'holm', alpha: 0.05 });
    expect((m.parameters.remote as Record<string, unknown>).apiKey).toBe(REDACTED);
    expect(m.extra).toEqual({ note: 'x', password: REDACTED });
    expect(JSON.stringify(m)).not.toContain('sk-should-not-appear');
    expect(m.warnings).toEqual([REPRODUCIBILITY_WARNING]);
  });

  it('fills absent parts with null or empty values', () => {
    const m = buildManifest({ environment: env });
    expect(m.run).toEqual({ tag: null, command: null, description: null });
    expect(m.llm.models).toEqual([]);
    expect(m.data).toEqual({ collection: null, qrels: null, topics: null, other: [] });
    expect(m.evaluation).toBeNull();
    expect(m.extra).toBeUndefined();
  });

  it('rejects malformed hashes', () => {
    expect(() => buildManifest({ environment: env, models: [{ role: 'g', file: 'x.gguf', sha256: 'ABC' }] })).toThrow(/sha256/);
    expect(() => buildManifest({ environment: env, data: { qrels: { sha256: 'A'.repeat(64) } } })).toThrow(/sha256/);
  });
});

describe('collectEnvironment', () => {
  it('reads the app version, git commit, runtime and node-llama-cpp version of this checkout', () => {
    const e = collectEnvironment({ appRoot: repoRoot, gpu: 'test GPU' });
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
    expect(e.app.version).toBe(pkg.version);
    let head: string | null = null;
    try {
      head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      head = null;
    }
    expect(e.app.gitCommit).toBe(head);
    const nlc = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules/node-llama-cpp/package.json'), 'utf8')) as { version: string };
    expect(e.nodeLlamaCpp).toBe(nlc.version);
    expect(e.runtime.node).toBe(process.versions.node);
    expect(e.runtime.electron).toBeNull();
    expect(e.host.cpuCores).toBeGreaterThan(0);
    expect(e.host.gpu).toBe('test GPU');
  });

  it('finds the app root from its own location by default', () => {
    expect(collectEnvironment({ git: false }).app.name).toBe('fairground');
  });

  it('tolerates a folder with no package.json, no git and no node_modules', () => {
    const e = collectEnvironment({ appRoot: tmp() });
    expect(e.app).toEqual({ name: 'fairground', version: null, gitCommit: null, gitDirty: null });
    expect(e.nodeLlamaCpp).toBeNull();
  });
});

describe('gitState (one git process)', () => {
  it('a repository before its first commit, a clean one, a changed tracked file, an untracked file, no repository', () => {
    const dir = tmp();
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    expect(gitState(dir)).toBeNull();
    git('init', '-q');
    expect(gitState(dir)).toBeNull();
    writeFileSync(path.join(dir, 'a.txt'), 'one\n');
    git('add', 'a.txt');
    git('commit', '-q', '-m', 'first');
    const head = git('rev-parse', 'HEAD');
    expect(gitState(dir)).toEqual({ commit: head, dirty: false });
    writeFileSync(path.join(dir, 'b.txt'), 'untracked\n');
    expect(gitState(dir)).toEqual({ commit: head, dirty: false });
    writeFileSync(path.join(dir, 'a.txt'), 'two\n');
    expect(gitState(dir)).toEqual({ commit: head, dirty: true });
    git('add', 'a.txt');
    expect(gitState(dir)).toEqual({ commit: head, dirty: true });
    git('commit', '-q', '-m', 'second');
    expect(gitState(dir)).toEqual({ commit: git('rev-parse', 'HEAD'), dirty: false });
  });
});

describe('writeManifestBeside', () => {
  it('writes <export>.manifest.json atomically with the export hash, leaving no temp file', async () => {
    const dir = tmp();
    const exportPath = path.join(dir, 'results.tex');
    writeFileSync(exportPath, 'abc');
    const written = await writeManifestBeside(exportPath, buildManifest(input));
    expect(written).toBe(manifestPathFor(exportPath));
    expect(written).toBe(`${exportPath}.manifest.json`);
    const parsed = JSON.parse(readFileSync(written, 'utf8')) as Record<string, unknown>;
    expect(parsed.export).toEqual({ file: 'results.tex', sha256: SHA256_ABC, bytes: 3 });
    expect(parsed.seeds).toEqual({ plSampling: 42, generation: 7 });
    expect(readdirSync(dir).sort()).toEqual(['results.tex', 'results.tex.manifest.json']);
  });

  it('redacts secrets even in a manifest built by hand, and replaces an older manifest', async () => {
    const dir = tmp();
    const exportPath = path.join(dir, 'run.trec');
    writeFileSync(exportPath, 'q1 Q0 d1 1 1.0 tag\n');
    writeFileSync(manifestPathFor(exportPath), 'old');
    const m = { ...buildManifest({ environment: env }), extra: { token: 'tok-secret' } };
    await writeManifestBeside(exportPath, m);
    const text = readFileSync(manifestPathFor(exportPath), 'utf8');
    expect(text).not.toContain('tok-secret');
    expect(text).not.toBe('old');
    expect(text.endsWith('}\n')).toBe(true);
  });

  it('fails without writing when the export does not exist', async () => {
    const dir = tmp();
    await expect(writeManifestBeside(path.join(dir, 'missing.csv'), buildManifest({ environment: env }))).rejects.toThrow();
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('manifestToIrMetadata', () => {
  it('maps the manifest onto the PRIMAD sections', () => {
    const meta = manifestToIrMetadata(buildManifest({ ...input, actor: { name: 'A. Researcher', role: 'experimenter' } }), { runVersion: 1 });
    expect(meta).toEqual({
      'schema-version': 0.1,
      'run-version': 1,
      tag: 'fair-pl-a2',
      platform: {
        hardware: { cpu: { model: 'Test CPU', architecture: 'x64', 'number of cores': 8 }, gpu: { architecture: 'NVIDIA H200', backend: 'cuda' }, ram: '16 GB' },
        'operating system': { kernel: 'Linux 6.8.0', distribution: '#1 SMP' },
        software: {
          libraries: { javascript: ['node==20.19.0', 'electron==39.8.9', 'chromium==142.0', 'node-llama-cpp==3.21.1'], 'c++': ['llama.cpp==b6000'] },
          'retrieval toolkit': ['fairground==0.1.0'],
        },
      },
      'research goal': {
        evaluation: {
          'reported measures': ['EE-D', 'nDCG@10'],
          baseline: ['bm25'],
          'significance test': [{ name: 'paired-t', 'correction method': 'holm', alpha: 0.05 }],
        },
      },
      implementation: { executable: { cmd: 'fairground sample --seed 42' }, source: { lang: ['typescript'], commit: 'f'.repeat(40) } },
      method: {
        automatic: true,
        models: [{ role: 'generator', file: 'tiny.gguf', sha256: HASH_A, quantization: 'Q4_K_M' }],
        sampler: { temperature: 0.7, topP: 0.9, maxTokens: 256 },
        seeds: { plSampling: 42, generation: 7 },
      },
      actor: { name: 'A. Researcher', role: 'experimenter' },
      data: { 'test collection': { name: 'lamp-4', sha256: HASH_A, qrels: { name: 'utility qrels', sha256: HASH_Q } } },
    });
  });

  it('survives the run-file header round trip and leaves out empty sections', () => {
    const meta = manifestToIrMetadata(buildManifest(input));
    expect(parseIrMetadataHeader(formatIrMetadataHeader(meta))).toEqual(meta);
    const bare = manifestToIrMetadata(buildManifest({ environment: { ...env, host: { ...env.host, gpu: null } } }));
    expect(bare.actor).toBeUndefined();
    expect(bare.data).toBeUndefined();
    expect(bare['research goal']).toBeUndefined();
    expect((bare.platform as { hardware: Record<string, unknown> }).hardware.gpu).toBeUndefined();
  });
});
