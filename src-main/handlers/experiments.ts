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
    'experiments.run': ({ id }) => e.startOrJoinRun(id),
    'runs.list': ({ experimentId }) => e.listRuns(experimentId),
    'runs.get': ({ runId }) => e.getRun(runId),
    'runs.delete': ({ runId }) => e.deleteRun(runId),
    'runs.metrics': ({ runId }) => e.metrics(runId),
    'runs.items': ({ runId, queryId, condition, offset, limit }) => e.items(runId, { queryId, condition, offset, limit }),
    'runs.export': ({ runId, format, condition }) => e.export(runId, format, condition),
  };
}
