import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { DEMO_MODEL_NAME, ensureDemo } from '../../src-main/services/demoSetup';

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
    const models = services.models.list();
    expect(models.map((m) => [m.name, m.status])).toEqual([[DEMO_MODEL_NAME, 'ready']]);
    expect(models[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(existsSync(join(dir, 'lab', 'models', `${DEMO_MODEL_NAME}.gguf`))).toBe(true);
    expect(logs.some((l) => l.startsWith('Generated a tiny test model'))).toBe(true);
    const counts = services.workspaceService.info().counts;
    expect(counts.collections).toBe(1);
    expect(counts.documents).toBeGreaterThan(20);
    expect(counts.queries).toBeGreaterThan(5);
    expect(counts.conversations).toBeGreaterThan(0);

    expect(await ensureDemo(services)).toEqual({ model: 'present', collection: 'present', conversations: 'present' });
    expect(services.models.list()).toHaveLength(1);
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
