/**
 * Fair RAG Table 2's `calibration` field (issue 23 item 2): the measured null rejection rate of the test
 * that produced the table's stars, from the simulator, shown beside the table, in its exports and in
 * the run's manifest.
 *
 * - Measured by an explicit action ("Check calibration", the `simulate.calibration` job, with progress):
 *   the run's spec simulated `runs` times (default 400) at the planted null of `simulate power`
 *   (services/simulation/power.ts: effect 0, the deterministic arm and the α arms equal in
 *   distribution); the rate is the share of runs whose tested cell (the disparity interval with the
 *   most α runs of the first retriever) is starred after the table's correction, with its 95% Wilson
 *   interval.
 * - Stored once per calibration key, never recomputed on a view: the key is the SHA-256 of everything
 *   that decides the rate (the spec without its name, description and attribution judge, which Table 2
 *   does not use; the simulated reader's profile; the collection's content hash; the simulator's
 *   version; the number of runs and the seed), kept in the workspace's settings table under
 *   `table2Calibration:<key>`. A run's metrics read the newest stored calibration of their spec's key
 *   (any runs / seed); a changed spec, reader or collection has none until it is checked again.
 * - "When the spec can be simulated": its collection is in the workspace (the reader is the spec's own
 *   simulated reader when it names one, else the default profile; the source says which).
 *   Otherwise the field stays absent, which the table shows as "not simulated".
 */
import type { Database } from 'better-sqlite3';
import type { TestCalibration } from '../../api/contract/kindParts';
import { DataError } from '../../core/errors';
import { defaultExperimentRegistry } from '../../experiments/kinds';
import type { ExperimentRegistry } from '../../experiments/registry';
import { calibrationKey, writeCalibration } from './calibrationStore';
import { simulatePower, wilson, type PowerProgress } from './power';

export const DEFAULT_CALIBRATION_RUNS = 400;

export interface CalibrationRequest {
  runs?: number | undefined;
  seed?: number | undefined;
}

/**
 * Measure and store the null rejection rate of the spec's Table 2 test (module comment). Nothing is
 * stored when it is cancelled or fails. Returns what the table shows.
 */
export async function measureCalibration(db: Database, spec: Record<string, unknown>, req: CalibrationRequest = {}, progress: PowerProgress = () => {}, signal?: AbortSignal, kinds: ExperimentRegistry = defaultExperimentRegistry()): Promise<TestCalibration> {
  const calibration = kinds.get(String(spec.kind))?.calibration;
  if (!calibration) throw new DataError(noCalibration(String(spec.kind), kinds), { field: 'spec.kind' });
  const key = calibrationKey(db, spec, kinds);
  if (!key) throw new DataError(`the spec's collection '${String(spec.collection)}' is not in the workspace: it cannot be simulated`, { field: 'spec.collection' });
  const runs = req.runs ?? DEFAULT_CALIBRATION_RUNS;
  const seed = req.seed ?? 0;
  const report = await simulatePower(db, { spec: calibration.simulated(spec), effects: [0], reps: runs, seed, registry: kinds }, progress, signal);
  const row = report.rows[0]!;
  const ci = wilson(row.significant, row.reps);
  const gen = spec.generator as { model?: string } | undefined;
  const reader = gen?.model && /simulated reader/i.test(gen.model) ? `the spec's reader '${gen.model}'` : "the default simulated reader (the spec's generator is not a simulated reader)";
  const cal: TestCalibration = {
    nullRejectionRate: row.power,
    lo: ci.low,
    hi: ci.high,
    runs: row.reps,
    alpha: report.test.alpha,
    test: `${report.test.test}, ${report.test.correction}: ${report.test.description}`,
    seed,
    source: `simulate power at the planted null (effect 0) on ${reader}, ${runs} runs (seeds ${seed}…${seed + runs - 1}), ${new Date().toISOString().slice(0, 10)}`,
  };
  writeCalibration(db, key, cal);
  return cal;
}

/** Which kinds have a calibration, for the error of a kind without one. */
function noCalibration(kind: string, kinds: ExperimentRegistry): string {
  const have = kinds.list().filter((k) => kinds.get(k.kind)?.calibration).map((k) => `${k.kind} (${kinds.get(k.kind)!.calibration!.test})`);
  return `experiments of kind '${kind}' have no calibration check; it is for ${have.join(', ') || 'no kind of this version'}`;
}

export const CALIBRATION_JOB_KIND = 'simulate.calibration';

const registered = new WeakSet<object>();

/** `simulate.calibration` as a job (the run page's "Check calibration"): measures and stores the calibration of a run's spec. */
export function startCalibrationJob(
  s: { jobs: import('../jobRunner').JobRunner; experiments: import('../experimentService').ExperimentService; workspace: { db: Database } },
  input: { runId: number; runs?: number | undefined; seed?: number | undefined },
): import('../../api/contract/jobs').Job {
  const spec = s.experiments.getRun(input.runId).spec;
  const kinds = s.experiments.registry;
  const calibration = kinds.get(String(spec.kind))?.calibration;
  if (!calibration) throw new DataError(noCalibration(String(spec.kind), kinds), { field: 'runId' });
  if (!calibrationKey(s.workspace.db, spec, kinds)) throw new DataError(`the spec's collection '${String(spec.collection)}' is not in the workspace: it cannot be simulated`, { field: 'runId' });
  if (!registered.has(s.jobs)) {
    registered.add(s.jobs);
    s.jobs.registerKind<{ runId: number; runs?: number; seed?: number; spec: Record<string, unknown> }>(CALIBRATION_JOB_KIND, {
      title: (p) => `Calibration of ${kinds.get(String(p.spec.kind))?.calibration?.test ?? 'the test'}: ${String(p.spec.name)}`,
      run: async (p, ctx) => measureCalibration(s.workspace.db, p.spec, { runs: p.runs, seed: p.seed }, (done, total, message) => ctx.progress(done, total, message), ctx.signal, kinds),
    });
  }
  return s.jobs.startKind(CALIBRATION_JOB_KIND, { ...input, spec });
}
