import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { DEMO_COLLECTION_NAME, loadDemoCollection } from '../../src-main/services/collectionsDemo';
import { DEMO_MODEL_NAME, ensureDemo } from '../../src-main/services/demoSetup';
import { resourcesDir } from '../../src-main/services/paths';

let dir: string;
let services: AppServices;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'fg-demo-'));
  services = createAppServices(join(dir, 'lab', 'w.fairground'), { transport: 'http' });
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ensureDemo', () => {
  it('gives a fresh workspace a generated tiny model and the demo collection, once', async () => {
    const logs: string[] = [];
    expect(await ensureDemo(services, (m) => logs.push(m))).toEqual({ model: 'created', collection: 'loaded', conversations: 'loaded' });
    // The tiny GGUF (real llama.cpp path) and, beside it, the demo's simulated reader (issue 14).
    // MoI's demo has its own reader (strong primacy, issue 23 item 6).
    const models = services.models.list().sort((x, y) => x.kind.localeCompare(y.kind) || x.name.localeCompare(y.name));
    expect(models.map((m) => [m.name, m.kind, m.status])).toEqual([
      [DEMO_MODEL_NAME, 'gguf', 'ready'],
      ['Simulated reader (lost in the middle)', 'sim', 'ready'],
      ['Simulated reader (strong primacy)', 'sim', 'ready'],
    ]);
    expect(models[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(logs.some((l) => l.startsWith("Registered the simulated reader 'Simulated reader (lost in the middle)'"))).toBe(true);
    expect(existsSync(join(dir, 'lab', 'models', `${DEMO_MODEL_NAME}.gguf`))).toBe(true);
    expect(logs.some((l) => l.startsWith('Generated a tiny test model'))).toBe(true);
    const counts = services.workspaceService.info().counts;
    expect(counts.collections).toBe(1);
    expect(counts.documents).toBeGreaterThan(20);
    expect(counts.queries).toBeGreaterThan(5);
    expect(counts.conversations).toBeGreaterThan(0);

    expect(await ensureDemo(services)).toEqual({ model: 'present', collection: 'present', conversations: 'present' });
    expect(services.models.list()).toHaveLength(3);
    expect(services.workspaceService.info().counts.documents).toBe(counts.documents);
  });
});

describe('ensureDemo without a conversations service (the run CLI)', () => {
  it('loads the model and collection and skips the conversations', async () => {
    const d = mkdtempSync(join(tmpdir(), 'fg-demo2-'));
    const s = createAppServices(join(d, 'w.fairground'), { transport: 'http' });
    try {
      const result = await ensureDemo({ workspace: s.workspace, models: s.models, collections: s.collections });
      expect(result).toEqual({ model: 'created', collection: 'loaded', conversations: 'skipped' });
      expect(s.workspaceService.info().counts.conversations).toBe(0);
    } finally {
      await s.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});

describe('the demo collection loads all or nothing (issue 15 item 1)', () => {
  it('a demo left incomplete by an older version is completed, and a loading collection of a dead process is removed', async () => {
    const d = mkdtempSync(join(tmpdir(), 'fg-demo3-'));
    const s = createAppServices(join(d, 'w.fairground'), { transport: 'http' });
    try {
      // What a kill between the old four transactions left: the documents, no queries.
      await s.collections.importFiles({ collectionName: DEMO_COLLECTION_NAME, kind: 'corpus', files: [join(resourcesDir(), 'demo', 'documents.jsonl')] });
      // A loading collection of a process that is gone (pid 2^22 + 1 is above Linux's pid_max default).
      await s.collections.importContents({ collectionName: `${DEMO_COLLECTION_NAME} (loading 4194305-1)` }, 'corpus', [{ name: 'x.jsonl', content: '{"id": "x", "text": "half"}\n' }]);
      expect(s.collections.byName(DEMO_COLLECTION_NAME)!.counts).toEqual({ documents: 48, queries: 0, judgments: 0 });
      const first = await loadDemoCollection(s);
      expect(first).toMatchObject({ changed: true, repaired: true });
      const repaired = s.collections.byName(DEMO_COLLECTION_NAME)!;
      expect(repaired.counts.documents).toBe(48);
      expect(repaired.counts.queries).toBe(12);
      expect(repaired.counts.judgments).toBeGreaterThan(0);
      expect(s.collections.list().map((c) => c.name)).toEqual([DEMO_COLLECTION_NAME]);
      expect(await loadDemoCollection(s)).toMatchObject({ changed: false, repaired: false });

      // The same content as a demo loaded in one go.
      const d2 = mkdtempSync(join(tmpdir(), 'fg-demo4-'));
      const fresh = createAppServices(join(d2, 'w.fairground'), { transport: 'http' });
      try {
        expect(await loadDemoCollection(fresh)).toMatchObject({ changed: true, repaired: false });
        expect(fresh.collections.byName(DEMO_COLLECTION_NAME)!.contentHash).toBe(repaired.contentHash);
      } finally {
        await fresh.close();
        rmSync(d2, { recursive: true, force: true });
      }
    } finally {
      await s.close();
      rmSync(d, { recursive: true, force: true });
    }
  });

  it('two loads at once in one workspace (two connections) end with one demo collection', async () => {
    const d = mkdtempSync(join(tmpdir(), 'fg-demo5-'));
    const a = createAppServices(join(d, 'w.fairground'), { transport: 'http' });
    const b = createAppServices(join(d, 'w.fairground'), { transport: 'http', markInterrupted: false });
    try {
      const [ra, rb] = await Promise.all([ensureDemo(a), ensureDemo(b)]);
      expect([ra.model, rb.model].sort()).toEqual(['created', 'present']);
      expect(a.collections.list().map((c) => [c.name, c.counts.documents, c.counts.queries])).toEqual([[DEMO_COLLECTION_NAME, 48, 12]]);
      // The tiny GGUF and the two simulated readers (lost in the middle; strong primacy, the MoI demo's).
      expect(a.models.list().map((m) => m.kind).sort()).toEqual(['gguf', 'sim', 'sim']);
    } finally {
      await a.close();
      await b.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});
