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

/**
 * A planted MoI power design (test/planted/power.test.ts, test/services/simulation/powerGrid.test.ts): `count`
 * cases of three notes each, the useful one (utility 1) last in candidate order and the middle one at
 * `middleUtility`, answered by a primacy reader with closed-book accuracy `closedBook`, so only an order that
 * moves the last note up answers surely. Returns the spec of MoI vs the candidate order on them (paired t, Holm).
 */
export function addPrimacyCases(s: AppServices, o: { collection: string; reader: string; count: number; middleUtility: number; closedBook: number }): Record<string, unknown> {
  const docs: DocumentInput[] = [];
  const queries: QueryInput[] = [];
  const utilities: Record<string, Record<string, number>> = {};
  for (let q = 0; q < o.count; q++) {
    const ids = [0, 1, 2].map((i) => `q${q}-d${i}`);
    ids.forEach((docId, i) => docs.push({ docId, text: `Note ${i} for case ${q}: the ${['red', 'green', 'blue'][i]} file of case number ${q} is here.` }));
    utilities[`q${q}`] = { [ids[0]!]: 0, [ids[1]!]: o.middleUtility, [ids[2]!]: 1 };
    queries.push({ queryId: `q${q}`, text: `Which colour closes case ${q}?`, answers: ['blue'], task: 'case', metric: 'accuracy', candidates: ids, attrs: { labels: ['red', 'green', 'blue'] } });
  }
  addCollection(s, o.collection, docs, queries);
  addSim(s, o.reader, { collection: o.collection, bias: 'primacy', utilities, closedBookAccuracy: o.closedBook, noise: 1 });
  return {
    kind: 'moi',
    name: `${o.collection} moi`,
    collection: o.collection,
    retriever: { method: 'candidate-order' },
    n: 3,
    permutations: { set: 'random3n', count: 4 },
    solver: { starts: 1 },
    generator: { model: o.reader },
    decoding: { maxTokens: 4 },
    baselines: [],
    significance: { test: 't', correction: 'holm', alpha: 0.05 },
  };
}
