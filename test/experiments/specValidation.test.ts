/** Fair RAG specs: defaults, and every error naming its field path (and the file, for spec files). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { UtilityMetricName } from '../../src-main/api/contract/kindParts';
import { createApiRouter } from '../../src-main/handlers/index';
import { experimentExport, experimentList, experimentShow } from '../../src-main/cli/commands/experiment';
import { runCommand } from '../../src-main/cli/commands/run';
import { TEXT_METRIC_NAMES } from '../../src-main/core/text/textMetrics';
import { defaultExperimentRegistry } from '../../src-main/experiments/kinds';
import { readSpecFile, requireValidSpec, validateSpec } from '../../src-main/experiments/specFile';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { runCliCaptured } from '../support/cli';

const FIX = join(process.cwd(), 'test', 'fixtures', 'experiments');
const registry = defaultExperimentRegistry();
const valid = {
  kind: 'fair-rag',
  name: 'x',
  collection: 'c',
  retrievers: [{ name: 'bm25', method: 'bm25' }],
  generator: { model: 'm' },
};

let dir: string;
let services: AppServices;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-spec-'));
  services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Fair RAG spec', () => {
  it('fills in the paper defaults', () => {
    const spec = FairRagSpec.parse(valid);
    expect(spec).toMatchObject({
      queries: 'all',
      k: 5,
      samples: 100,
      alphas: [1, 2, 4, 8],
      oracle: true,
      deterministic: true,
      normalization: 'paper',
      target: 'paper',
      minUseful: 0,
      decoding: { maxTokens: 32, temperature: 0, chat: false },
      attribution: { judge: 'none', format: 'json', maxTokens: 32 },
      seeds: { sampling: 42, generation: 0 },
      retrievers: [{ name: 'bm25', method: 'bm25', params: { k1: 1.5, b: 0.75, idf: 'rank_bm25', epsilon: 0.25, tokenizer: 'whitespace' } }],
    });
    expect(UtilityMetricName.options).toEqual([...TEXT_METRIC_NAMES]);
  });

  it('reports every problem with its field path', () => {
    const v = validateSpec(registry, {
      ...valid,
      k: 0,
      alphas: [1, 1],
      retrievers: [
        { name: 'bm25', method: 'bm25', params: { k1: -2 } },
        { name: 'bm25', method: 'splade' },
        { name: 'fused', method: 'rrf', params: { fuse: ['bm25', 'nope'] } },
      ],
      attribution: { judge: 'none', threshold: 0.5 },
      extra: true,
    });
    expect(v.ok).toBe(false);
    const paths = v.ok ? [] : v.issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['k', 'retrievers[0].params.k1', 'retrievers[1].method', 'extra']));
    // Cross-field rules run once the shape is right.
    const v2 = validateSpec(registry, {
      ...valid,
      alphas: [1, 1],
      retrievers: [
        { name: 'bm25', method: 'bm25' },
        { name: 'bm25', method: 'bm25' },
        { name: 'fused', method: 'rrf', params: { fuse: ['bm25', 'nope'] } },
      ],
      attribution: { judge: 'none', threshold: 0.5 },
    });
    expect(v2.ok ? [] : v2.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      "retrievers[1].name: retriever name 'bm25' is used twice",
      "retrievers[2].params.fuse[1]: no retriever named 'nope' in this spec",
      'alphas[1]: alpha 1 is listed twice',
      "attribution.threshold: only used with judge 'nli-llm'",
    ]);
    expect(validateSpec(registry, { ...valid, kind: 'no-such-kind' })).toMatchObject({ ok: false, issues: [{ path: 'kind', message: expect.stringContaining("unknown experiment kind 'no-such-kind'") }] });
  });

  it('reads YAML spec files and names the file and the field', () => {
    const minimal = requireValidSpec(registry, readSpecFile(join(FIX, 'minimal-spec.yaml')), 'minimal-spec.yaml');
    expect(minimal.spec).toMatchObject({ name: 'minimal', k: 5, samples: 100 });
    expect(() => requireValidSpec(registry, readSpecFile(join(FIX, 'bad-spec.yaml'), 'bad-spec.yaml'), 'bad-spec.yaml')).toThrow(
      /^bad-spec\.yaml: retrievers\[0\]\.params\.k1: must be at least 0 \(and 1 more: alphas\[2\]\)$/,
    );
    expect(() => readSpecFile(join(FIX, 'missing.yaml'), 'missing.yaml')).toThrow(/^missing\.yaml: cannot read file \(ENOENT\)/);
  });

  it('validates through the API with field paths prefixed by spec', async () => {
    const router = createApiRouter(services);
    const checked = await router.call('experiments.validateSpec', { spec: { ...valid, samples: -1 } });
    expect(checked).toMatchObject({ ok: true, data: { ok: false, issues: [{ path: 'samples' }], spec: null } });
    const created = await router.call('experiments.create', { spec: { ...valid, retrievers: [{ name: 'a b', method: 'bm25' }] } });
    expect(created).toMatchObject({ ok: false, error: { code: 'validation', field: 'spec.retrievers[0].name' } });
    const ok = await router.call('experiments.create', { spec: valid });
    expect(ok).toMatchObject({ ok: true, data: { name: 'x', version: 1, spec: { k: 5 } } });
    const id = (ok as { data: { id: number } }).data.id;
    const same = await router.call('experiments.update', { id, spec: { ...valid } });
    expect(same).toMatchObject({ ok: true, data: { version: 1, changed: false } });
    const edited = await router.call('experiments.update', { id, spec: { ...valid, k: 3 } });
    expect(edited).toMatchObject({ ok: true, data: { version: 2, changed: true } });
    const got = await router.call('experiments.get', { id });
    expect((got as { data: { versions: { version: number; spec: { k: number } }[] } }).data.versions.map((v) => [v.version, v.spec.k])).toEqual([
      [1, 5],
      [2, 3],
    ]);
    expect(await router.call('experiments.create', { spec: valid })).toMatchObject({ ok: false, error: { code: 'conflict', field: 'spec.name' } });
  });

  it('fairground run refuses an invalid spec before touching a workspace', async () => {
    const r = await runCliCaptured(['run', join(FIX, 'bad-spec.yaml'), '--workspace', join(dir, 'never.fairground')], { cwd: FIX, commands: [runCommand, experimentList, experimentShow, experimentExport] });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('bad-spec.yaml: retrievers[0].params.k1: must be at least 0');
  });
});
