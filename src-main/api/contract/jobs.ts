import { z } from 'zod';
import { Empty, lazyMethods, method } from './define';

export const JobStatus = z.enum(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'interrupted']);
export type JobStatus = z.infer<typeof JobStatus>;

export const Job = z.object({
  id: z.string(),
  kind: z.string(),
  title: z.string(),
  status: JobStatus,
  progress: z.number(),
  total: z.number().nullable(),
  message: z.string().nullable(),
  error: z.string().nullable(),
  /** Seconds left, estimated from the rate so far; null when unknown. */
  etaSeconds: z.number().nullable(),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  /** True when the job stopped early and its kind can pick up where it left off. */
  resumable: z.boolean(),
  result: z.unknown().optional(),
});
export type Job = z.infer<typeof Job>;

export const jobsContract = lazyMethods(() => ({
  'jobs.list': method(
    z.object({ status: z.array(JobStatus).optional(), limit: z.number().int().min(1).max(1000).optional() }).strict(),
    z.array(Job),
    'Jobs, newest first.',
  ),
  'jobs.get': method(z.object({ id: z.string().min(1) }).strict(), Job, 'One job.'),
  'jobs.cancel': method(z.object({ id: z.string().min(1) }).strict(), Job, 'Ask a running job to stop; finished work is kept.'),
  'jobs.resume': method(z.object({ id: z.string().min(1) }).strict(), Job, 'Resume an interrupted, cancelled or failed job; finished work is not redone.'),
  'jobs.clearFinished': method(Empty, z.object({ removed: z.number().int() }), 'Forget finished jobs.'),
  'workspace.check': method(
    z.object({ full: z.boolean().default(true) }).strict(),
    Job,
    'Start a background integrity check of the workspace (table by table, cancellable).',
  ),
}));
