/**
 * What a run did to its inputs is shown with its other warnings (issue 34 item 8b): texts a dense
 * retriever cut to the embedding model's context are stored in the run's stats
 * (`embeddingWarnings`, fair-rag/execute.ts); the run's metrics (the run page), its summary, the
 * metrics-json export and the manifest carry them, after the design warnings recorded with the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import { copyWorkspace, makeDemoWorkspace, tinySpec } from '../experiments/fixture';

const CUT = "dense retriever 'dense': 2 of 12 documents were cut to the embedding model's context of 256 tokens (e.g. 'd3' 400 → 254)";
let dir: string;
let s: AppServices;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-run-notes-'));
  const base = await makeDemoWorkspace(dir, 'base.fairground');
  s = createAppServices(copyWorkspace(base, join(dir, 'w.fairground')), { transport: 'http' });
}, 120_000);
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('notes stored with a run', () => {
  it('texts cut for embedding appear in metrics, summary, metrics-json and the manifest', async () => {
    const e = s.experiments.create(tinySpec({ name: 'notes' }));
    const done = await s.jobs.wait(s.experiments.startRun(e.id).id);
    expect(done.error ?? null).toBeNull();
    const runId = s.experiments.listRuns(e.id)[0]!.id;
    expect(s.experiments.metrics(runId).warnings ?? []).not.toContain(CUT);
    const run = s.experiments.repo.run(runId)!;
    s.experiments.repo.setRunStats(runId, { ...run.stats, embeddingWarnings: [CUT] });

    expect(s.experiments.metrics(runId).warnings).toContain(CUT);
    expect(s.experiments.summary(runId).warnings).toContain(CUT);
    const json = await s.experiments.export(runId, 'metrics-json');
    expect((JSON.parse(json.file.text) as { warnings: string[] }).warnings).toContain(CUT);
    // The manifest built from the stored stats (an export of a run stored without one builds it the same way).
    s.experiments.repo.setRunManifest(runId, null as never);
    const manifest = await s.experiments.export(runId, 'manifest');
    expect((manifest.manifest as { warnings: string[] }).warnings).toContain(CUT);
  }, 120_000);
});
