/**
 * `simulate.power` as a job (the API method behind the experiment page's power panel): the spec of an
 * experiment (or one given), simulated R times per cell by services/simulation/power.ts; the job's
 * result is the report plus its CSV. Not resumable: a power simulation that stops is started again.
 */
import type { Job } from '../../api/contract/jobs';
import type { ExperimentService } from '../experimentService';
import type { JobRunner } from '../jobRunner';
import { powerCsv, simulatePower, type PowerRequest } from './power';

export const POWER_JOB_KIND = 'simulate.power';

/** What the API asks for: an experiment (its current spec) instead of a spec. */
export type PowerJobInput = Omit<PowerRequest, 'spec'> & { experimentId: number };

const registered = new WeakSet<JobRunner>();

export function startPowerJob(s: { jobs: JobRunner; experiments: ExperimentService; workspace: { db: import('better-sqlite3').Database } }, input: PowerJobInput): Job {
  const spec = s.experiments.get(input.experimentId).spec;
  if (!registered.has(s.jobs)) {
    registered.add(s.jobs);
    s.jobs.registerKind<PowerRequest & { experimentId: number }>(POWER_JOB_KIND, {
      title: (p) => `Power by simulation: ${String(p.spec.name)}`,
      run: async (p, ctx) => {
        const report = await simulatePower(s.workspace.db, p, (done, total, message) => ctx.progress(done, total, message), ctx.signal);
        return { ...report, csv: powerCsv(report) };
      },
    });
  }
  return s.jobs.startKind(POWER_JOB_KIND, { ...input, spec });
}
