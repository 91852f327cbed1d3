/**
 * The services `fairground label …` needs over one existing workspace: jobs, settings, models and
 * labeling. Built by hand rather than with createAppServices so a CLI run never marks the jobs of
 * an app that has the same workspace open as interrupted.
 */
import { ApiFailure } from '../../api/router';
import { EventBus } from '../../services/eventBus';
import { JobRunner } from '../../services/jobRunner';
import { LabelingService } from '../../services/labeling/labelingService';
import { ModelService } from '../../services/modelService';
import { SettingsService } from '../../services/settingsService';
import { CollectionsRepo } from '../../store/collectionsRepo';
import { inspectWorkspace, openWorkspace } from '../../store/workspace';
import { CliError, type CliIo } from '../command';
import { resolveWorkspacePath } from '../workspaceOption';

export interface LabelServices {
  events: EventBus;
  jobs: JobRunner;
  models: ModelService;
  collections: CollectionsRepo;
  labeling: LabelingService;
}

export async function withLabelServices(io: CliIo, workspace: string | undefined, fn: (s: LabelServices) => Promise<number>): Promise<number> {
  const path = resolveWorkspacePath(workspace, io);
  if (!inspectWorkspace(path).exists) throw new CliError(`no workspace at ${path} (create one with 'fairground workspace init')`);
  const ws = openWorkspace(path);
  const events = new EventBus();
  const jobs = new JobRunner(ws.db, events);
  const models = new ModelService(ws.db, jobs, new SettingsService(ws.db));
  const collections = new CollectionsRepo(ws.db);
  const labeling = new LabelingService(ws.db, jobs, models, collections);
  try {
    return await fn({ events, jobs, models, collections, labeling });
  } catch (err) {
    if (err instanceof ApiFailure) throw new CliError(err.message);
    throw err;
  } finally {
    await jobs.shutdown();
    await models.close();
    ws.close();
  }
}

/** The collection's id by name, or a CliError. */
export function collectionIdByName(s: LabelServices, name: string): number {
  const c = s.collections.byName(name);
  if (!c) throw new CliError(`no collection named '${name}' in the workspace`);
  return c.id;
}
