/**
 * What the weights-swap tests (issue 35 item 1) share: a tiny Fair RAG run on the remote model
 * 'pool', awaited, with its items in key order (without where their answers came from).
 */
import { expect } from 'vitest';
import type { AppServices } from '../../src-main/services/appServices';
import { tinySpec } from '../experiments/fixture';

export async function runTinyOnPool(s: AppServices): Promise<{ status: string; stats: Record<string, unknown>; items: unknown[]; warnings: string[] }> {
  const e = s.experiments.create(tinySpec({ generator: { remote: 'pool' } }));
  const job = s.experiments.startRun(e.id);
  const done = await s.jobs.wait(job.id);
  const run = s.experiments.getRun(s.experiments.listRuns(e.id)[0]!.id);
  const items = s.experiments.repo
    .items(run.id)
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map((it) => JSON.parse(JSON.stringify(it), (k, v: unknown) => (k === 'fromCache' ? undefined : v)) as unknown);
  expect(done.error ?? null).toBeNull();
  return { status: run.status, stats: run.stats, items, warnings: (run.manifest as { warnings: string[] } | null)?.warnings ?? [] };
}
