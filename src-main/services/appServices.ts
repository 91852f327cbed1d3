/**
 * The services of one open workspace, wired together once and shared by every transport
 * (Electron IPC, HTTP/WebSocket) and the CLI.
 */
import type { ExperimentRegistry } from '../experiments/registry';
import { dirname, resolve } from 'node:path';
import type { Database } from 'better-sqlite3';
import { openWorkspace, type OpenOptions, type Workspace } from '../store/workspace';
import { CollectionsService } from './collectionsService';
import { removeAbandonedImports } from './collectionsImport';
import { ConversationsService } from './conversations/conversationsService';
import { EventBus } from './eventBus';
import { BatchPlanService } from './batchPlans';
import { ExperimentService } from './experimentService';
import { JobRunner } from './jobRunner';
import { LabelingService } from './labeling/labelingService';
import { ModelService } from './modelService';
import { PathAccess, type PathAccessMode, type PathAccessStore } from './paths';
import { SecretStore } from './secrets';
import { localEngineOpener, RetrievalService } from './retrievalService';
import { RecentWorkspaces } from './workspaces/recentWorkspaces';
import { userFoldersStore } from './workspaces/userFolders';
import { SettingsService } from './settingsService';
import { WorkspaceService } from './workspaceService';
import type { RotatingLog } from './logging/rotatingLog';
import { attachEngineLog } from './logging/engineLogBridge';

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
  /** Batch plans, cache import/merge, cost estimates (issue 13). */
  readonly plans: BatchPlanService;
  readonly transport: 'electron' | 'http';
  /** Which files API requests may name (issue 15 item 3): grants in Electron, allowed folders in browser mode. */
  readonly paths: PathAccess;
  /** The app's log file (issue 17 item 7): null for CLI commands and tests that give none. */
  readonly log: RotatingLog | null;
  close(): Promise<void>;
}

export interface AppServicesOptions extends OpenOptions {
  transport: 'electron' | 'http';
  /** Mark jobs left running by a dead process as interrupted (default true; false for CLI commands). */
  markInterrupted?: boolean;
  /** Path policy for API requests (default: 'grants' for electron, 'folders' for http). */
  pathAccess?: PathAccessMode;
  /** How remote API keys are sealed (Electron: with safeStorage); default: a per-user key file. */
  secrets?: SecretStore;
  /** Log job outcomes (and what transports report) to this file. */
  log?: RotatingLog;
  /**
   * The user's allowed folders in this file of the app's config folder (the app and `serve`:
   * they follow the user across workspaces, issue 26 item 3); without it, the workspace's settings.
   */
  userFoldersFile?: string;
  /** The experiment kinds this workspace serves (default: every kind of this version, experiments/kinds.ts). */
  registry?: ExperimentRegistry;
}

export function createAppServices(workspacePath: string, options: AppServicesOptions): AppServices {
  const workspace = openWorkspace(workspacePath, options);
  const events = new EventBus();
  const jobs = new JobRunner(workspace.db, events);
  const log = options.log ?? null;
  // Engine start/load/exit lines, the worker's stderr and llama.cpp warnings go to the log too (issue 17 item 7).
  const detachEngineLog = log ? attachEngineLog(log) : () => {};
  if (log) {
    log.write('info', 'app', `opened workspace ${workspace.path} (${options.transport})`);
    events.subscribe((e) => {
      if (e.event !== 'job.updated') return;
      const j = e.payload;
      if (j.status === 'failed') log.write('error', 'job', `${j.title} failed: ${j.error ?? ''}`);
      else if (j.status === 'succeeded' || j.status === 'cancelled' || j.status === 'interrupted') log.write('info', 'job', `${j.title} ${j.status}${j.message ? `: ${j.message}` : ''}`);
    });
  }
  // The app marks jobs a dead process left running as interrupted; a CLI command sharing the
  // workspace with a running app must not touch the app's jobs.
  if (options.markInterrupted !== false) jobs.markInterrupted();
  const settings = new SettingsService(workspace.db);
  const paths = new PathAccess(
    options.pathAccess ?? (options.transport === 'electron' ? 'grants' : 'folders'),
    workspace.path === ':memory:' ? null : dirname(workspace.path),
    options.userFoldersFile !== undefined ? userFoldersStore(options.userFoldersFile, adoptableFolders(options.userFoldersFile, workspace)) : allowedFoldersStore(workspace.db),
    undefined,
    undefined,
    { workspaceFile: workspace.path === ':memory:' ? null : workspace.path },
  );
  const workspaceService = new WorkspaceService(workspace);
  jobs.registerKind<{ full: boolean }>('workspace.check', {
    title: () => 'Check workspace integrity',
    run: (p, ctx) => workspaceService.check(ctx, p.full),
  });
  const secrets = options.secrets ?? new SecretStore();
  const models = new ModelService(workspace.db, jobs, settings, workspace.path, paths, secrets);
  // Keys stored as plain text by an older version are sealed now (issue 17 item 8).
  secrets.migratePlainKeys(workspace.db);
  const collections = new CollectionsService(workspace.db, jobs, paths);
  // Rows of an import whose process was killed stay hidden in the file until removed: the app
  // removes them as it opens the workspace (as it marks a dead process's jobs interrupted).
  const abandonedImports =
    options.markInterrupted !== false && workspace.path !== ':memory:'
      ? removeAbandonedImports(collections.repo, undefined).catch((err: unknown) => log?.write('warn', 'import', `could not remove an interrupted import: ${String(err)}`))
      : Promise.resolve();
  const conversations = new ConversationsService(workspace.db);
  // Embedding models: a library name or a GGUF path; llama.cpp threads follow the setting (0 = physical cores).
  // A GGUF path (rather than a library name) from a request is a path like any other: checked.
  const openLocal = localEngineOpener(workspace.db, () => ({ threads: settings.get().threads }));
  const retrieval = new RetrievalService(workspace.db, jobs, {
    openEngine: (model) => openLocal(models.models.getByName(model) ? model : paths.checkFile(model, 'model')),
  });
  const labeling = new LabelingService(workspace.db, jobs, models, collections.repo);
  const experiments = new ExperimentService(workspace.db, jobs, models, collections.repo, options.registry ? { registry: options.registry } : {});
  const plans = new BatchPlanService(workspace.db, experiments, models.cache);
  let closed = false;
  return {
    workspace,
    events,
    jobs,
    log,
    settings,
    workspaceService,
    models,
    collections,
    conversations,
    retrieval,
    labeling,
    experiments,
    plans,
    transport: options.transport,
    paths,
    async close() {
      if (closed) return;
      closed = true;
      await jobs.shutdown();
      await models.close();
      await retrieval.close();
      await abandonedImports;
      workspace.close();
      detachEngineLog();
    },
  };
}

/** The user's allowed folders: one row of the workspace's settings table (key `allowedFolders`). */
function allowedFoldersStore(db: Database): PathAccessStore {
  return {
    load() {
      const row = db.prepare(`SELECT value FROM settings WHERE key = 'allowedFolders'`).get() as { value: string } | undefined;
      try {
        const v = row ? (JSON.parse(row.value) as unknown) : [];
        return Array.isArray(v) ? v.filter((f): f is string => typeof f === 'string') : [];
      } catch {
        return [];
      }
    },
    save(folders) {
      db.prepare(
        `INSERT INTO settings(key, value, updated_at) VALUES ('allowedFolders', ?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at`,
      ).run(JSON.stringify(folders), new Date().toISOString());
    },
  };
}

/**
 * The workspace's own (pre-issue-26) folder list, offered for the one-time adoption only when this
 * user opened the workspace before (it is in the user's Recent list, read before this open is
 * recorded): a workspace file received from someone else must not grant its author's folders on a
 * machine that has no `allowed-folders.json` yet.
 */
function adoptableFolders(userFoldersFile: string, workspace: Workspace): PathAccessStore | undefined {
  if (workspace.path === ':memory:') return undefined;
  const own = resolve(workspace.path);
  const known = new RecentWorkspaces(dirname(userFoldersFile)).list().some((r) => r.path === own);
  return known ? allowedFoldersStore(workspace.db) : undefined;
}
