/** Runs and their jobs: a run executes as a resumable job ('experiments.run'); the job tray shows it. */
import type { Job } from '$contract';
import { jobs } from '../../state/jobs.svelte';

export const RUN_JOB_KIND = 'experiments.run';

export function jobOf(jobId: string | null): Job | undefined {
  return jobId ? jobs.list.find((j) => j.id === jobId) : undefined;
}

/** Changes whenever a run job starts, progresses to another state or ends (screens reload on it). */
export function runJobsKey(): string {
  return jobs.list
    .filter((j) => j.kind === RUN_JOB_KIND)
    .map((j) => `${j.id}:${j.status}`)
    .join(',');
}

export function percent(job: Job | undefined): number | undefined {
  return job?.total ? Math.min(100, Math.round((100 * job.progress) / job.total)) : undefined;
}

export const STATUS_CLASS: Record<string, string> = {
  succeeded: 'status-succeeded',
  failed: 'status-failed',
  running: 'status-running',
  pending: 'status-pending',
  cancelled: 'status-cancelled',
  interrupted: 'status-interrupted',
};

export function when(iso: string | null): string {
  if (!iso) return '–';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}
