/**
 * What `fairground run` and `fairground experiment …` share: the services over one workspace, built
 * by hand (not createAppServices) so a CLI process never marks the jobs of an app that has the same
 * workspace open as interrupted — only runs whose process is gone are (ExperimentService), and a
 * summary table of a run's metrics.
 */
import type { FairRagMetrics } from '../../api/contract/experiments';
import type { ApiOutput } from '../../api/contract/index';
import { ApiFailure } from '../../api/apiFailure';
import type { RunSummary } from '../../experiments/registry';
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

const num = (v: number | undefined | null, digits = 4) => (v === undefined || v === null ? '-' : v.toFixed(digits));

/** Fair RAG: one line per arm, mean over queries of the main measures; other kinds: a pointer to --json. */
export function summaryTable(result: ApiOutput<'runs.metrics'> | RunSummary): string {
  if (result.kind !== 'fair-rag') return `(metrics of a '${result.kind}' run: see 'fairground experiment show RUN --json')\n`;
  const metrics = result as Pick<FairRagMetrics, 'aggregates'>;
  const cols = ['condition', 'queries', 'EE-D_norm', 'EE-R_norm', 'EU', 'EU_norm', 'EAR', 'EAE-D_norm'];
  const rows = metrics.aggregates.map((a) => [
    a.condition,
    String(a.queries),
    num(a.measures.eeDNorm?.mean),
    num(a.measures.eeRNorm?.mean),
    num(a.measures.eu?.mean),
    num(a.measures.euNorm?.mean),
    num(a.measures.ear?.mean),
    num(a.measures.eaeDNorm?.mean),
  ]);
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ') + '\n';
  return line(cols) + rows.map(line).join('');
}

/** The de-duplication and cache counters of a run, in one sentence each. */
export function describeStats(stats: Record<string, unknown>): string {
  const n = (k: string) => (typeof stats[k] === 'number' ? (stats[k] as number) : 0);
  if (!('naiveGenerations' in stats)) {
    // Other kinds (MoI, RichRAG) keep their own counters: list them as they are.
    const parts = Object.entries(stats)
      .filter(([, v]) => typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean')
      .map(([k, v]) => (k === 'elapsedMs' ? `elapsed ${((v as number) / 1000).toFixed(1)} s` : `${k} ${String(v)}`));
    return parts.length ? `${parts.join('; ')}\n` : '';
  }
  let out = `generations: ${n('distinctGenerations')} distinct prompts for ${n('naiveGenerations')} sampled rankings (${n('naiveGenerations') - n('distinctGenerations')} calls saved by de-duplication); ${n('generationsComputed')} computed, ${n('generationsFromCache')} from the call cache\n`;
  if (n('naiveJudgments') > 0) {
    out += `attribution: ${n('distinctJudgments')} distinct judgments for ${n('naiveJudgments')} retrieved items (${n('naiveJudgments') - n('distinctJudgments')} saved); ${n('judgmentsComputed')} computed, ${n('judgmentsFromCache')} from the call cache\n`;
  }
  const skipped = Array.isArray(stats.skippedQueries) ? (stats.skippedQueries as { queryId: string; reason: string }[]) : [];
  out += `queries: ${n('queries')}${skipped.length ? ` (${skipped.length} skipped: ${skipped.slice(0, 3).map((s) => `${s.queryId}: ${s.reason}`).join('; ')}${skipped.length > 3 ? '; …' : ''})` : ''}; ${(n('elapsedMs') / 1000).toFixed(1)} s\n`;
  return out;
}
