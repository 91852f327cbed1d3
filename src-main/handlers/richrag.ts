/** RichRAG's own API methods: metrics, the per-query view and exports of runs of kind 'richrag'. */
import { RichRagSpec } from '../api/contract/richrag';
import { richRagMetrics } from '../experiments/richrag/metrics';
import { richRagQueryView } from '../experiments/richrag/queryView';
import type { AppServices } from '../services/appServices';
import type { RunRow } from '../store/experimentsRepo';
import { ApiFailure, type Handlers } from '../api/router';

type RichRagHandlers = Pick<Handlers, 'richrag.metrics' | 'richrag.query' | 'richrag.export'>;

export function richragHandlers(s: AppServices): RichRagHandlers {
  const repo = () => s.experiments.repo;
  const requireRun = (runId: number): { run: RunRow; spec: RichRagSpec } => {
    const run = repo().run(runId);
    if (!run) throw new ApiFailure('not-found', `no run with id ${runId}`);
    if (run.kind !== 'richrag') throw new ApiFailure('validation', `run ${runId} is of kind '${run.kind}', not 'richrag'`, 'runId');
    return { run, spec: RichRagSpec.parse(run.spec) };
  };
  return {
    'richrag.metrics': ({ runId }) => {
      const { run, spec } = requireRun(runId);
      const generatorName = 'model' in spec.generator ? spec.generator.model : 'remote' in spec.generator ? spec.generator.remote : String(s.models.describe(spec.generator).name ?? 'generator');
      return richRagMetrics({ runId, spec, items: repo().items(runId), finished: run.status === 'succeeded', generatorName });
    },
    'richrag.query': ({ runId, queryId }) => {
      const { spec } = requireRun(runId);
      return richRagQueryView(spec, repo().items(runId, { queryId }), queryId);
    },
    'richrag.export': async ({ runId, format }) => {
      requireRun(runId);
      return s.experiments.export(runId, format);
    },
  };
}
