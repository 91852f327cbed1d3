/**
 * Study design by simulation (issue 14): "will this study detect the effect I expect?". A spec is run
 * R times on simulated readers with a planted effect, and the power of the spec's own significance
 * test is the share of runs in which that test is significant.
 *
 * - The planted effect e is a difference between exactly the conditions the spec's test compares
 *   (issue 23 item 3), so e = 0 is the null of that test and the power rises with e. What is planted,
 *   and where the test is in the metrics, is the kind's own (`ExperimentKind.power`, in the kind's
 *   folder: fair-rag/power.ts, moi/power.ts, richrag/power.ts). At e = 0 a calibrated test is
 *   significant in a share α of the runs: that row is the test's null rejection rate.
 * - More queries than the spec selects (a grid point beyond the collection): the scratch collection gets
 *   replicates of the selected queries, in order (query `q` → `q~r2`, `q~r3`, …, with the same answers,
 *   candidates, sub-aspects, judgments and planted utilities, and the text followed by ` ⟨replicateK⟩`, a
 *   word no document contains, so retrieval scores do not change and the reader draws independent
 *   answers): the design "a collection like this one with that many queries". Such rows say how many of
 *   their queries are replicates.
 * - Replications differ in the reader's seed and the spec's own seeds (sampling, permutations,
 *   generation); answers are random (noise 1 by default: "p ≥ τ" with τ uniform is a Bernoulli(p) draw).
 * - The test is the spec's own, as its metrics report it (the kind's `power.primaryTest`).
 * - Power grows with the number of queries (the first q queries the spec selects) and, for a kind
 *   with samples per arm (`power.samples`), the samples N per arm: each (effect, q, N) cell has R runs; power with a 95% Wilson interval.
 *
 * Everything runs in a scratch in-memory workspace holding a copy of the spec's collection, so the
 * researcher's workspace gets no experiments, models or cache entries from it.
 */
import type { Database } from 'better-sqlite3';
import type { PowerRow } from '../../api/contract/models';
import { DataError } from '../../core/errors';
import type { SimProfile } from '../../engine/sim/profile';
import { defaultExperimentRegistry } from '../../experiments/kinds';
import { withGenerator } from '../../experiments/readerSpec';
import type { ExperimentRegistry, KindPower, PowerScratch, PowerTestOutcome } from '../../experiments/registry';
import { CollectionsRepo } from '../../store/collectionsRepo';
import type { JudgmentInput } from '../../store/collectionTypes';
import { createAppServices, type AppServices } from '../appServices';
import { specReaderProfile } from './calibrationStore';
import { measuredDemoPower, type MeasuredDemoPower } from './demoPower';

export interface PowerRequest {
  spec: Record<string, unknown>;
  /** Planted effects (utility scales in [0, 1]); 0 = null. */
  effects: number[];
  reps: number;
  /** Query counts to try (default: all the spec selects). */
  queries?: number[] | undefined;
  /** Fair RAG: samples N per arm to try (default: the spec's). */
  samples?: number[] | undefined;
  /** Noise of the simulated reader (default 1: Bernoulli answers). */
  noise?: number | undefined;
  seed?: number | undefined;
  /**
   * The reader's lapse rate λ at every effect (engine/sim/profile.ts; default: the spec's reader's, else 0):
   * λ > 0 keeps every answer random, the exchangeable noise of a non-degenerate null.
   */
  lapse?: number | undefined;
  /**
   * Called with each simulated run's metrics and `reanalyse(patch)`, the same run's metrics under a changed
   * analysis (e.g. another test): diagnostics, and the level of several tests on the same runs.
   */
  /** The kinds (default: every kind of this version); a kind without `power` has no simulation. */
  registry?: ExperimentRegistry | undefined;
  inspect?: ((metrics: Record<string, unknown>, cell: { effect: number; queries: number; samples: number | null; rep: number }, reanalyse: (patch: Record<string, unknown>) => Record<string, unknown>) => void) | undefined;
}


export type { PowerRow };

export interface PowerReport {
  kind: string;
  specName: string;
  simulatedReader: true;
  test: { description: string; alpha: number; test: string; correction: string };
  profile: Omit<SimProfile, 'seed' | 'utilityScale' | 'biasStrength'>;
  rows: PowerRow[];
  /** What the planted effect is, in words. */
  effect: string;
  note: string;
  /** Per planted effect > 0: the first grid point whose power reaches 0.8 (powerTargets), or none in this grid. */
  targets: PowerTarget[];
  /** The spec is a bundled demo spec: where its power was measured to reach 0.8 (demoPower.ts). */
  measured: MeasuredDemoPower | null;
}

export interface PowerTarget {
  effect: number;
  target: number;
  /** The fewest queries, then the fewest samples, whose power estimate is ≥ the target; null: none in the grid. */
  reached: PowerRow | null;
  /** The grid's largest point for this effect (most queries, then samples): how far it got. */
  largest: PowerRow;
}

/** For each planted effect > 0, the first grid point (fewest queries, then samples) whose power is ≥ `target`. */
export function powerTargets(rows: readonly PowerRow[], target = 0.8): PowerTarget[] {
  const effects = [...new Set(rows.filter((r) => r.effect > 0).map((r) => r.effect))].sort((a, b) => a - b);
  return effects.map((effect) => {
    const grid = rows.filter((r) => r.effect === effect).sort((a, b) => a.queries - b.queries || (a.samples ?? 0) - (b.samples ?? 0));
    return { effect, target, reached: grid.find((r) => r.power >= target) ?? null, largest: grid[grid.length - 1]! };
  });
}

/** A grid point in words: '240 queries', '8 queries × N = 20'. */
export function gridPoint(r: Pick<PowerRow, 'queries' | 'samples'>): string {
  return `${r.queries} ${r.queries === 1 ? 'query' : 'queries'}${r.samples !== null ? ` × N = ${r.samples}` : ''}`;
}

type Metrics = Record<string, unknown>;

/** The power simulation of a kind, or a DataError naming `spec.kind`. */
function kindPower(kind: string, registry: ExperimentRegistry = defaultExperimentRegistry()): KindPower {
  const power = registry.get(kind)?.power;
  if (!power) throw new DataError(`no power simulation for experiments of kind '${kind}'`, { field: 'spec.kind' });
  return power;
}

/** The spec's own significance test in a run's metrics (its kind's `power.primaryTest`). */
export function primaryTest(kind: string, metrics: Metrics, registry?: ExperimentRegistry): PowerTestOutcome {
  return kindPower(kind, registry).primaryTest(metrics);
}

/** What a kind's power simulation may use of the scratch workspace. */
function scratchPort(scratch: AppServices): PowerScratch {
  return {
    collections: scratch.collections.repo,
    addSim: (name, profile) => void scratch.models.addSim({ name, profile }),
    previewPrompt: (spec, queryId) => scratch.experiments.previewPrompt(spec, queryId),
    async runToEnd(spec) {
      const { experiment } = scratch.experiments.upsert(spec);
      const run = scratch.experiments.runToContinue(experiment.id, true).run;
      await scratch.experiments.executeRun(run.id, { signal: new AbortController().signal, progress: () => {} });
      return run.id;
    },
    metrics: (runId) => scratch.experiments.metrics(runId) as Metrics,
    items: (runId, condition) =>
      (scratch.workspace.db.prepare(`SELECT query_id AS q, payload FROM run_items WHERE run_id = ? AND condition = ?`).all(runId, condition) as { q: string; payload: string }[]).map((r) => ({
        queryId: r.q,
        payload: JSON.parse(r.payload) as Record<string, unknown>,
      })),
  };
}

/** 95% Wilson score interval. */
export function wilson(successes: number, n: number): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 };
  const z = 1.959963984540054;
  const p = successes / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** The id and text suffix of replicate k (≥ 2) of a query (module comment). */
export function replicateId(queryId: string, k: number): string {
  return `${queryId}~r${k}`;
}
export function replicateSuffix(k: number): string {
  return ` ⟨replicate${k}⟩`;
}

/**
 * Copy a collection (documents, queries, judgments) into another workspace; `replicate` (query id → the
 * replicate numbers k ≥ 2 to add) adds copies of those queries (module comment).
 */
function copyCollection(from: Database, to: AppServices, name: string, replicate: ReadonlyMap<string, number[]> = new Map()): void {
  const src = new CollectionsRepo(from);
  const c = src.byName(name);
  if (!c) throw new DataError(`no collection named '${name}' in the workspace`, { field: 'spec.collection' });
  const dst = to.collections.repo;
  const id = dst.create(name, c.description).id;
  const ALL = 1_000_000_000;
  dst.addDocuments(
    id,
    src.listDocuments(c.id, { limit: ALL }).items.map((d) => ({ docId: d.docId, title: d.title, text: d.text, attrs: d.attrs })),
  );
  const queries = src.listQueries(c.id, { limit: ALL }).items;
  const copies = (queryId: string, text: string) => [{ queryId, text }, ...(replicate.get(queryId) ?? []).map((k) => ({ queryId: replicateId(queryId, k), text: `${text}${replicateSuffix(k)}` }))];
  dst.addQueries(
    id,
    queries.flatMap((q) => copies(q.queryId, q.text).map((r) => ({ queryId: r.queryId, text: r.text, answers: q.answers, task: q.task, metric: q.metric, subaspects: q.subaspects, candidates: q.candidates, attrs: q.attrs }))),
  );
  const judgments = from.prepare(`SELECT query_id AS queryId, doc_id AS docId, kind, label FROM judgments WHERE collection_id = ?`).all(c.id) as JudgmentInput[];
  const all = judgments.flatMap((j) => copies(j.queryId, '').map((r) => ({ ...j, queryId: r.queryId })));
  if (all.length > 0) dst.addJudgments(id, all);
}

/** The reader a power simulation plants: the spec's own simulated reader's profile, else the defaults. */
export const baseProfile = specReaderProfile;

function reseed(spec: Record<string, unknown>, seed: number): Record<string, unknown> {
  const seeds = (spec.seeds as Record<string, unknown> | undefined) ?? {};
  return { ...spec, seeds: Object.fromEntries([...Object.keys(seeds), 'generation'].map((k) => [k, (seed * 7919 + k.length) % 0xffffffff])) };
}

export interface PowerProgress {
  (done: number, total: number, message: string): void;
}

export async function simulatePower(db: Database, req: PowerRequest, progress: PowerProgress = () => {}, signal?: AbortSignal): Promise<PowerReport> {
  const kind = String(req.spec.kind);
  const power = kindPower(kind, req.registry);
  if (req.reps < 1) throw new DataError('reps must be at least 1', { field: 'reps' });
  if (req.effects.length === 0 || req.effects.some((e) => !(e >= 0 && e <= 1))) throw new DataError('effects must be numbers in [0, 1] (the planted utility scale; 0 = null)', { field: 'effect' });
  if (req.lapse !== undefined && !(req.lapse >= 0 && req.lapse <= 1)) throw new DataError('lapse must be a number in [0, 1] (the share of the documents\' help the reader loses)', { field: 'lapse' });
  const own = baseProfile(db, req.spec);
  const base = req.lapse !== undefined ? { ...own, lapse: req.lapse } : own;
  const scratch = createAppServices(':memory:', { transport: 'http', markInterrupted: false, ...(req.registry ? { registry: req.registry } : {}) });
  try {
    // Which queries the spec selects (read from the researcher's workspace).
    const source = new CollectionsRepo(db);
    const collection = source.byName(String(req.spec.collection));
    if (!collection) throw new DataError(`no collection named '${String(req.spec.collection)}' in the workspace`, { field: 'spec.collection' });
    const tasks = req.spec.tasks as string[] | undefined;
    const listed = req.spec.queries;
    const all = source
      .listQueries(collection.id, { limit: 1_000_000_000 })
      .items.filter((q) => (tasks ? tasks.includes(q.task ?? '') : true))
      .map((q) => q.queryId);
    const own = Array.isArray(listed) ? (listed as string[]) : all;
    const queryCounts = req.queries ?? [own.length];
    if (queryCounts.some((q) => !(Number.isInteger(q) && q >= 1))) throw new DataError('queries must be whole numbers ≥ 1', { field: 'queries' });
    if (own.length === 0) throw new DataError('the spec selects no queries', { field: 'spec.queries' });
    // Grid points beyond the spec's queries: replicates, round-robin over the spec's queries in order.
    const selected = [...own];
    const replicate = new Map<string, number[]>();
    for (let i = own.length; i < Math.max(...queryCounts); i++) {
      const qid = own[i % own.length]!;
      const k = Math.floor(i / own.length) + 1;
      replicate.set(qid, [...(replicate.get(qid) ?? []), k]);
      selected.push(replicateId(qid, k));
    }
    copyCollection(db, scratch, String(req.spec.collection), replicate);
    const sampleCounts: (number | null)[] = power.samples ? (req.samples ?? [power.samples(req.spec)]) : [null];
    const plant = await power.plant(scratchPort(scratch), base, req.spec, selected);
    const cells = req.effects.flatMap((effect) => queryCounts.flatMap((queries) => sampleCounts.map((samples) => ({ effect, queries, samples }))));
    const total = cells.length * req.reps;
    let done = 0;
    let described: PowerTestOutcome | null = null;
    const rows: PowerRow[] = [];
    for (const cell of cells) {
      let significant = 0;
      let rawSignificant = 0;
      let familySignificant = 0;
      const diffs: number[] = [];
      for (let rep = 0; rep < req.reps; rep++) {
        signal?.throwIfAborted();
        const seed = (req.seed ?? 0) + rep;
        const name = `Simulated reader (power ${done})`;
        const profile: SimProfile = { ...base, noise: req.noise ?? 1, seed, ...plant(cell.effect) };
        scratch.models.addSim({ name, profile });
        let spec = withGenerator(reseed(req.spec, seed), name) as Record<string, unknown>;
        spec = { ...spec, name: `power ${done}`, queries: selected.slice(0, cell.queries), ...(cell.samples !== null ? { samples: cell.samples } : {}) };
        delete spec.tasks;
        const { experiment } = scratch.experiments.upsert(spec);
        const run = scratch.experiments.runToContinue(experiment.id, true).run;
        await scratch.experiments.executeRun(run.id, { signal: signal ?? new AbortController().signal, progress: () => {} });
        const metrics = scratch.experiments.metrics(run.id) as Metrics;
        req.inspect?.(metrics, { ...cell, rep }, (patch) => scratch.experiments.metricsWith(run.id, patch) as Metrics);
        const outcome = power.primaryTest(metrics);
        described ??= outcome;
        if (outcome.significant) significant++;
        if (outcome.pValue !== null && outcome.pValue <= outcome.alpha) rawSignificant++;
        if (outcome.familySignificant) familySignificant++;
        if (outcome.difference !== null && Number.isFinite(outcome.difference)) diffs.push(outcome.difference);
        done++;
        progress(done, total, `effect ${cell.effect}, ${cell.queries} queries${cell.samples !== null ? `, N = ${cell.samples}` : ''}: run ${rep + 1} of ${req.reps}`);
      }
      rows.push({
        ...cell,
        ...(cell.queries > own.length ? { replicated: cell.queries - own.length } : {}),
        reps: req.reps,
        significant,
        power: significant / req.reps,
        ...wilson(significant, req.reps),
        rawSignificant,
        familySignificant,
        meanDifference: diffs.length > 0 ? diffs.reduce((a, b) => a + b, 0) / diffs.length : null,
      });
    }
    const t = described!;
    const effectText = power.effect;
    const replicatedNote = rows.some((r) => r.replicated) ? `; rows with more queries than the spec's ${own.length} add replicates of its queries (same documents and planted truth, independent answers)` : '';
    return {
      kind,
      specName: String(req.spec.name),
      simulatedReader: true,
      test: { description: t.description, alpha: t.alpha, test: t.test, correction: t.correction },
      profile: base,
      rows,
      effect: effectText,
      targets: powerTargets(rows),
      measured: measuredDemoPower(req.spec),
      note: `simulated reader: power from runs on planted truth, not from a language model; effect: ${effectText}; the row at effect 0 is the test's null rejection rate (a calibrated test: about alpha)${replicatedNote}${base.lapse ? `; the reader's lapse rate is ${base.lapse} (it loses that share of the documents' help on every call, so no answer is certain: the exchangeable noise of a non-degenerate null)` : ''}`,
    };
  } finally {
    await scratch.close();
  }
}

/** The rows as CSV (one line per effect × queries × samples). */
export function powerCsv(report: PowerReport): string {
  const head = 'effect,queries,samples,reps,significant,power,low,high,meanDifference';
  // Replicated queries (module comment) in a trailing column, only when a row has them, so the columns of a plain grid stay as they were.
  const extra = report.rows.some((r) => r.replicated) ? ',replicatedQueries' : '';
  const lines = report.rows.map((r) => [r.effect, r.queries, r.samples ?? '', r.reps, r.significant, r.power, r.low, r.high, r.meanDifference ?? '', ...(extra ? [r.replicated ?? 0] : [])].join(','));
  return `# ${report.note}\n# test: ${report.test.description}; ${report.test.test}, correction ${report.test.correction}, alpha ${report.test.alpha}\n${head}${extra}\n${lines.join('\n')}\n`;
}
