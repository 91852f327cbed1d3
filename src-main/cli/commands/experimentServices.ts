/**
 * What `fairground run` and `fairground experiment …` share: the services over one workspace, built
 * by hand (not createAppServices) so a CLI process never marks the jobs of an app that has the same
 * workspace open as interrupted — only runs whose process is gone are (ExperimentService), and a
 * summary table of a run's metrics.
 */
import type { ApiOutput } from '../../api/contract/index';
import { ApiFailure } from '../../api/apiFailure';
import type { ExperimentRegistry, RunSummary } from '../../experiments/registry';
import { CollectionsService } from '../../services/collectionsService';
import { EventBus } from '../../services/eventBus';
import { ExperimentService } from '../../services/experimentService';
import { JobRunner } from '../../services/jobRunner';
import { ModelService } from '../../services/modelService';
import { SettingsService } from '../../services/settingsService';
import { openWorkspace, type Workspace } from '../../store/workspace';
import { CliError, type CliIo } from '../command';
import { resolveWorkspacePath } from '../workspaceOption';

export interface ExperimentCliServices {
  workspace: Workspace;
  events: EventBus;
  jobs: JobRunner;
  settings: SettingsService;
  models: ModelService;
  collections: CollectionsService;
  experiments: ExperimentService;
}

export async function withExperimentServices(io: CliIo, workspace: string | undefined, fn: (s: ExperimentCliServices) => Promise<number>): Promise<number> {
  const ws = openWorkspace(resolveWorkspacePath(workspace, io));
  const events = new EventBus();
  const jobs = new JobRunner(ws.db, events);
  const settings = new SettingsService(ws.db);
  const models = new ModelService(ws.db, jobs, settings);
  const collections = new CollectionsService(ws.db, jobs);
  const experiments = new ExperimentService(ws.db, jobs, models, collections.repo);
  try {
    return await fn({ workspace: ws, events, jobs, settings, models, collections, experiments });
  } catch (err) {
    if (err instanceof ApiFailure) throw new CliError(err.message);
    throw err;
  } finally {
    await jobs.shutdown();
    await models.close();
    ws.close();
  }
}

/** Run id as given on the command line. */
export function runIdArg(text: string | undefined): number {
  const id = Number(text);
  if (text === undefined || !Number.isInteger(id) || id < 1) throw new CliError(`expected a run id (a positive integer), got '${text ?? ''}'`);
  return id;
}

/** A kind's own summary table (`ExperimentKind.summaryTable`), else a pointer to --json. */
export function summaryTable(result: ApiOutput<'runs.metrics'> | RunSummary, kinds: Pick<ExperimentRegistry, 'get'>): string {
  const table = kinds.get(result.kind)?.summaryTable;
  return table ? table(result as RunSummary) : `(metrics of a '${result.kind}' run: see 'fairground experiment show RUN --json')\n`;
}

/** The de-duplication and cache counters of a run: its kind's sentences (`ExperimentKind.describeStats`), else the counters as they are. */
export function describeStats(stats: Record<string, unknown>, kind: string, kinds: Pick<ExperimentRegistry, 'get'>): string {
  const described = kinds.get(kind)?.describeStats?.(stats);
  if (described !== undefined) return described;
  const parts = Object.entries(stats)
    .filter(([, v]) => typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean')
    .map(([k, v]) => (k === 'elapsedMs' ? `elapsed ${((v as number) / 1000).toFixed(1)} s` : `${k} ${String(v)}`));
  return parts.length ? `${parts.join('; ')}\n` : '';
}
