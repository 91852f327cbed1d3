/**
 * The services of one open workspace, wired together once and shared by every transport
 * (Electron IPC, HTTP/WebSocket) and the CLI.
 */
import { openWorkspace, type OpenOptions, type Workspace } from '../store/workspace';
import { CollectionsService } from './collectionsService';
import { ConversationsService } from './conversations/conversationsService';
import { EventBus } from './eventBus';
import { ExperimentService } from './experimentService';
import { JobRunner } from './jobRunner';
import { LabelingService } from './labeling/labelingService';
import { ModelService } from './modelService';
import { localEngineOpener, RetrievalService } from './retrievalService';
import { SettingsService } from './settingsService';
import { WorkspaceService } from './workspaceService';

export interface AppServices {
  readonly workspace: Workspace;
  readonly events: EventBus;
  readonly jobs: JobRunner;
  readonly settings: SettingsService;
  readonly workspaceService: WorkspaceService;
  readonly models: ModelService;
  readonly collections: CollectionsService;
  readonly conversations: ConversationsService;
  readonly retrieval: RetrievalService;
  readonly labeling: LabelingService;
  readonly experiments: ExperimentService;
  readonly transport: 'electron' | 'http';
  close(): Promise<void>;
}

export interface AppServicesOptions extends OpenOptions {
  transport: 'electron' | 'http';
  /** Mark jobs left running by a dead process as interrupted (default true; false for CLI commands). */
  markInterrupted?: boolean;
}

export function createAppServices(workspacePath: string, options: AppServicesOptions): AppServices {
  const workspace = openWorkspace(workspacePath, options);
  const events = new EventBus();
  const jobs = new JobRunner(workspace.db, events);
  // The app marks jobs a dead process left running as interrupted; a CLI command sharing the
  // workspace with a running app must not touch the app's jobs.
  if (options.markInterrupted !== false) jobs.markInterrupted();
  const settings = new SettingsService(workspace.db);
  const workspaceService = new WorkspaceService(workspace);
  jobs.registerKind<{ full: boolean }>('workspace.check', {
    title: () => 'Check workspace integrity',
    run: (p, ctx) => workspaceService.check(ctx, p.full),
  });
  const models = new ModelService(workspace.db, jobs, settings, workspace.path);
  const collections = new CollectionsService(workspace.db, jobs);
  const conversations = new ConversationsService(workspace.db);
  // Embedding models: a library name or a GGUF path; llama.cpp threads follow the setting (0 = physical cores).
  const retrieval = new RetrievalService(workspace.db, jobs, { openEngine: localEngineOpener(workspace.db, () => ({ threads: settings.get().threads })) });
  const labeling = new LabelingService(workspace.db, jobs, models, collections.repo);
  const experiments = new ExperimentService(workspace.db, jobs, models, collections.repo);
  let closed = false;
  return {
    workspace,
    events,
    jobs,
    settings,
    workspaceService,
    models,
    collections,
    conversations,
    retrieval,
    labeling,
    experiments,
    transport: options.transport,
    async close() {
      if (closed) return;
      closed = true;
      await jobs.shutdown();
      await models.close();
      await retrieval.close();
      workspace.close();
    },
  };
}
