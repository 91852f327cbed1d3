/**
 * Shared set-up of the planted-truth recovery tests (issue 14): a real workspace on disk with the real
 * services (the ones `fairground run` uses), a collection, a simulated reader registered in the model
 * library, and a spec run from validation through the job runner to the stored metrics.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ModelInfo } from '../../src-main/api/contract/models';
import { createAppServices, type AppServices } from '../../src-main/services/appServices';
import type { DocumentInput, JudgmentInput, QueryInput } from '../../src-main/store/collectionTypes';

export interface Workbench {
  dir: string;
  services: AppServices;
  close(): Promise<void>;
}

export function openWorkbench(prefix: string): Workbench {
  const dir = mkdtempSync(join(tmpdir(), `fg-planted-${prefix}-`));
  const services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  return {
    dir,
    services,
    async close() {
      await services.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function addCollection(s: AppServices, name: string, docs: DocumentInput[], queries: QueryInput[], judgments: JudgmentInput[] = []): number {
  const repo = s.collections.repo;
  const c = repo.create(name);
  repo.addDocuments(c.id, docs);
  repo.addQueries(c.id, queries);
  if (judgments.length > 0) repo.addJudgments(c.id, judgments);
  return c.id;
}

export function addSim(s: AppServices, name: string, profile: Record<string, unknown>): ModelInfo {
  return s.models.addSim({ name, profile });
}

/** Create or update the experiment of `spec`, run it to the end, and return the run id. */
export async function runSpec(s: AppServices, spec: Record<string, unknown>): Promise<number> {
  const { experiment } = s.experiments.upsert(spec);
  const { run } = s.experiments.runToContinue(experiment.id, true);
  const job = await s.jobs.wait(s.experiments.launch(run).id);
  expect(job.error).toBeNull();
  expect(job.status).toBe('succeeded');
  return run.id;
}

/** All permutations of `items`. */
export function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  return items.flatMap((x, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [x, ...rest]));
}

/** Kendall tau-a between two score vectors over the same items (no ties expected). */
export function kendallTau(x: readonly number[], y: readonly number[]): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      s += Math.sign(x[i]! - x[j]!) * Math.sign(y[i]! - y[j]!);
      n++;
    }
  return s / n;
}
