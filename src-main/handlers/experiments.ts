import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';

type ExperimentHandlers = Pick<
  Handlers,
  | 'experiments.kinds'
  | 'experiments.list'
  | 'experiments.get'
  | 'experiments.create'
  | 'experiments.update'
  | 'experiments.delete'
  | 'experiments.validateSpec'
  | 'experiments.previewPrompt'
  | 'experiments.run'
  | 'runs.list'
  | 'runs.get'
  | 'runs.delete'
  | 'runs.metrics'
  | 'runs.items'
  | 'runs.export'
>;

export function experimentHandlers(s: AppServices): ExperimentHandlers {
  const e = s.experiments;
  return {
    'experiments.kinds': () => e.kinds(),
    'experiments.list': () => e.list(),
    'experiments.get': ({ id }) => e.get(id),
    'experiments.create': ({ spec }) => e.create(spec),
    'experiments.update': ({ id, spec }) => e.update(id, spec),
    'experiments.delete': ({ id }) => e.delete(id),
    'experiments.validateSpec': ({ spec }) => e.validateSpec(spec),
    'experiments.previewPrompt': ({ spec, queryId, retriever }) => e.previewPrompt(spec, queryId, retriever),
    'experiments.run': ({ id }) => startRunOnce(s, id),
    'runs.list': ({ experimentId }) => e.listRuns(experimentId),
    'runs.get': ({ runId }) => e.getRun(runId),
    'runs.delete': ({ runId }) => e.deleteRun(runId),
    'runs.metrics': ({ runId }) => e.metrics(runId),
    'runs.items': ({ runId, queryId, condition, offset, limit }) => e.items(runId, { queryId, condition, offset, limit }),
    'runs.export': ({ runId, format, condition }) => e.export(runId, format, condition),
  };
}

/**
 * Start a run of an experiment's current spec, once (issue 26 item 1): while a run of this spec version
 * is pending or running in this process, a second start (a double click, five rapid clicks, a retried
 * request) returns that run's job instead of starting another run of the same spec. Once the run has
 * finished, failed or been cancelled, a start makes a new run.
 */
function startRunOnce(s: AppServices, id: number) {
  const e = s.experiments;
  const experiment = e.repo.experiment(id);
  if (experiment) {
    const live = e.repo.runs(id).find((r) => r.specVersion === experiment.version && (r.status === 'pending' || r.status === 'running') && r.jobId !== null && s.jobs.isLive(r.jobId));
    if (live?.jobId) return s.jobs.get(live.jobId);
  }
  return e.startRun(id);
}
