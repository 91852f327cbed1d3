/**
 * Issue 17 item 2: validating a spec checks that the collection, the models and the queries it
 * names exist in this workspace and names each missing one; schema messages read as sentences.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { experimentExport, experimentList, experimentShow } from '../../src-main/cli/commands/experiment';
import { runCommand } from '../../src-main/cli/commands/run';
import { defaultExperimentRegistry } from '../../src-main/experiments/kinds';
import { validateSpec } from '../../src-main/experiments/specFile';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { runCliCaptured } from '../support/cli';

let dir: string;
let services: AppServices;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-specref-'));
  services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  await loadDemoCollection(services);
  services.collections.repo.create('Empty');
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

const demo = (name: string) => JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', `${name}.json`), 'utf8')) as Record<string, unknown>;
const issues = (spec: unknown) => {
  const v = services.experiments.validateSpec(spec);
  return v.ok ? [] : v.issues.map((i) => `${i.path}: ${i.message}`);
};

describe('spec references', () => {
  it('names a missing collection and lists the ones there are', () => {
    expect(issues({ ...demo('fair-rag'), collection: 'Nope', generator: { model: 'm1' } })).toEqual([
      "collection: no collection named 'Nope' in this workspace (it has 'Empty', 'Fairground demo')",
      "generator: no model named 'm1' in the library",
    ]);
  });

  it('names each missing query and model of a MoI spec (agent and generator)', () => {
    expect(issues({ ...demo('moi-gguf'), queries: ['head-u1', 'nope-1', 'nope-2'], agent: { remote: 'lab-vllm' } })).toEqual([
      "queries[1]: no query 'nope-1' in collection 'Fairground demo'",
      "queries[2]: no query 'nope-2' in collection 'Fairground demo'",
      "agent: no server named 'lab-vllm'",
      "generator: no model named 'fairground-tiny' in the library",
    ]);
  });

  it("a collection with no queries cannot run 'all' of them; RichRAG's stage generators are checked too", () => {
    const spec = demo('richrag-gguf');
    const found = issues({ ...spec, collection: 'Empty', explorer: { ...(spec.explorer as object), generator: { model: 'explorer-llm' } } });
    expect(found).toEqual([
      "queries: collection 'Empty' has no queries: import queries into it first",
      "generator: no model named 'fairground-tiny' in the library",
      "explorer.generator: no model named 'explorer-llm' in the library",
    ]);
  });

  it('fairground run lists every missing thing with the file', async () => {
    const file = join(dir, 'spec.json');
    writeFileSync(file, JSON.stringify({ ...demo('moi-gguf'), name: 'refs', collection: 'Empty', agent: { model: 'small' }, generator: { model: 'big' } }));
    const r = await runCliCaptured(['run', file, '--workspace', join(dir, 'w.fairground')], { cwd: dir, commands: [runCommand, experimentList, experimentShow, experimentExport] });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(
      "spec.json: queries: collection 'Empty' has no queries: import queries into it first; agent: no model named 'small' in the library; generator: no model named 'big' in the library",
    );
  });
});

describe('spec messages for people', () => {
  const registry = defaultExperimentRegistry();
  const base = { kind: 'fair-rag', name: 'x', collection: 'c', retrievers: [{ name: 'bm25', method: 'bm25' }], generator: { model: 'm' } };
  const msgs = (spec: unknown) => {
    const v = validateSpec(registry, spec);
    return v.ok ? [] : v.issues.map((i) => `${i.path}: ${i.message}`);
  };

  it('rewrites the schema library texts', () => {
    const { collection: _c, ...noCollection } = base;
    expect(msgs(noCollection)).toEqual(['collection: required (text)']);
    expect(msgs({ ...base, k: 2.5 })).toEqual(['k: must be a whole number']);
    expect(msgs({ ...base, samples: 'many' })).toEqual(['samples: must be a number, not text']);
    expect(msgs({ ...base, retrievers: [] })).toEqual(['retrievers: needs at least one entry']);
    expect(msgs({ ...base, sampels: 100 })).toEqual(["sampels: unknown field 'sampels' (check the spelling; fields are case-sensitive)"]);
    expect(msgs({ ...base, generator: { modle: 'm' } })[0]).toMatch(/^generator: is not in any of the accepted forms; closest: /);
    for (const m of [...msgs(noCollection), ...msgs({ ...base, k: 2.5 }), ...msgs({ ...base, sampels: 1 })]) expect(m).not.toMatch(/Invalid input|Too small|Unrecognized key/);
  });
});
