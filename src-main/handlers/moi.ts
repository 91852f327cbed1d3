/** The `moi.*` methods: a MoI run's tables, drill-down and exports (runs are started with `experiments.*`). */
import type { MoiSpec } from '../api/contract/moi';
import { MoiSpec as MoiSpecSchema } from '../api/contract/moi';
import { moiMetrics } from '../experiments/moi/metrics';
import { moiQueryDetail } from '../experiments/moi/queryDetail';
import type { AppServices } from '../services/appServices';
import type { RunRow } from '../store/experimentsRepo';
import { ApiFailure, type Handlers } from '../api/router';

type MoiHandlers = Pick<Handlers, 'moi.metrics' | 'moi.query' | 'moi.export'>;

export function moiHandlers(s: AppServices): MoiHandlers {
  const requireRun = (runId: number): { run: RunRow; spec: MoiSpec } => {
    const run = s.experiments.repo.run(runId);
    if (!run) throw new ApiFailure('not-found', `no run with id ${runId}`);
    if (run.kind !== 'moi') throw new ApiFailure('validation', `run ${runId} is a '${run.kind}' run, not a MoI run`, 'runId');
    return { run, spec: MoiSpecSchema.parse(run.spec) };
  };
  const modelName = (spec: MoiSpec): string => {
    const g = spec.generator;
    if ('model' in g) return g.model;
    if ('remote' in g) return g.remote;
    try {
      return String(s.models.describe(g).name ?? 'generator');
    } catch {
      return 'generator';
    }
  };
  return {
    'moi.metrics': ({ runId }) => {
      const { run, spec } = requireRun(runId);
      const skipped = Array.isArray(run.stats.skippedQueries) ? (run.stats.skippedQueries as { queryId: string; reason: string }[]) : [];
      return moiMetrics({ runId, spec, items: s.experiments.repo.items(runId), finished: run.status === 'succeeded', generatorName: modelName(spec), experimentName: run.experimentName, skipped });
    },
    'moi.query': ({ runId, queryId }) => {
      requireRun(runId);
      return moiQueryDetail(queryId, s.experiments.repo.items(runId, { queryId }));
    },
    'moi.export': ({ runId, format }) => {
      requireRun(runId);
      return s.experiments.export(runId, format);
    },
  };
}
