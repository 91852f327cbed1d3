/** Live job list for the job tray: loaded once, then kept current by `job.updated` events. */
import type { Job } from '$contract';
import { api } from '../api/client';
import { showError } from './errors.svelte';

/**
 * Issue 26 item 2: the tray's "N failed" badge counts failed jobs the user has not seen yet. Opening
 * the tray (or dismissing the badge) marks every failed job seen, so the badge clears; a job that
 * fails later shows again. The ids are kept in localStorage, so a restart does not bring back
 * failures already seen.
 */
const SEEN_KEY = 'fairground.seenFailedJobs';
const SEEN_MAX = 500;

export const jobs = $state<{ list: Job[]; seenFailed: string[] }>({ list: [], seenFailed: readSeen() });

function readSeen(): string[] {
  try {
    const v = JSON.parse(globalThis.localStorage?.getItem(SEEN_KEY) ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Failed jobs not seen yet (what the badge counts). */
export function unseenFailed(): Job[] {
  const seen = jobs.seenFailed;
  return jobs.list.filter((j) => j.status === 'failed' && !seen.includes(j.id));
}

/** Mark every failed job seen (the tray was opened, or the badge dismissed). */
export function markFailedSeen(): void {
  const fresh = unseenFailed().map((j) => j.id);
  if (!fresh.length) return;
  jobs.seenFailed = [...jobs.seenFailed, ...fresh].slice(-SEEN_MAX);
  try {
    globalThis.localStorage?.setItem(SEEN_KEY, JSON.stringify(jobs.seenFailed));
  } catch {
    // storage full or unavailable: the badge still clears for this session
  }
}

export function upsertJob(job: Job): void {
  const i = jobs.list.findIndex((j) => j.id === job.id);
  if (i >= 0) jobs.list[i] = job;
  else jobs.list.unshift(job);
}

export async function loadJobs(): Promise<void> {
  try {
    jobs.list = await api.call('jobs.list', { limit: 50 });
  } catch (err) {
    showError(err, 'Could not load jobs');
  }
}

export function listenToJobs(): () => void {
  const off = api.onEvent((e) => {
    if (e.event === 'job.updated') upsertJob(e.payload as Job);
  });
  // Events can be missed (a WebSocket reconnect under load): while something shows as running,
  // re-read the list now and then so the tray and Resume buttons never stay stale.
  const timer = setInterval(() => {
    if (jobs.list.some((j) => j.status === 'running' || j.status === 'queued')) void loadJobs();
  }, 3000);
  return () => {
    off();
    clearInterval(timer);
  };
}

export async function cancelJob(id: string): Promise<void> {
  try {
    upsertJob(await api.call('jobs.cancel', { id }));
  } catch (err) {
    showError(err, 'Could not cancel the job');
  }
}

export async function resumeJob(id: string): Promise<void> {
  try {
    upsertJob(await api.call('jobs.resume', { id }));
  } catch (err) {
    showError(err, 'Could not resume the job');
  }
}

export function formatEta(seconds: number | null): string {
  if (seconds === null) return '';
  if (seconds < 60) return `${seconds}s left`;
  const m = Math.floor(seconds / 60);
  if (m < 60) return `${m}m ${seconds % 60}s left`;
  return `${Math.floor(m / 60)}h ${m % 60}m left`;
}
