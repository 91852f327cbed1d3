/**
 * The process jobKill.stress.ts kills: the app's services doing write-heavy jobs through the API,
 * as the desktop app would — import a corpus, import queries (both `collections.import` jobs,
 * resumable), then a BM25 run over every query (`retrieval.runs.create`, one transaction). It is
 * idempotent, like a user reopening the app: interrupted jobs are resumed first, finished steps
 * are skipped. Prints one JSON line when everything is done.
 *
 *   node --import tsx test/stress/jobChild.ts WORKSPACE CORPUS QUERIES
 */
import { createApiRouter } from '../../src-main/handlers/index';
import type { Envelope } from '../../src-main/api/contract/index';
import { createAppServices } from '../../src-main/services/appServices';

const [workspace, corpus, queries] = process.argv.slice(2) as [string, string, string];
const services = createAppServices(workspace, { transport: 'http' });
const router = createApiRouter(services, (err) => process.stderr.write(`internal: ${String(err)}\n`));

async function call<T>(method: string, input: unknown): Promise<T> {
  const r: Envelope<unknown> = await router.call(method, input);
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.data as T;
}

interface JobInfo {
  id: string;
  kind: string;
  status: string;
  error?: string | null;
}

async function finish(job: JobInfo): Promise<void> {
  const done = (await services.jobs.wait(job.id)) as unknown as JobInfo;
  if (done.status !== 'succeeded') throw new Error(`job ${job.kind} ended ${done.status}: ${done.error ?? ''}`);
}

const resumed: string[] = [];
for (const job of await call<JobInfo[]>('jobs.list', {})) {
  if (job.status === 'interrupted' && job.kind === 'collections.import') {
    await finish(await call<JobInfo>('jobs.resume', { id: job.id }));
    resumed.push(job.kind);
  }
}
await finish(await call<JobInfo>('collections.import', { collectionName: 'big', kind: 'corpus', files: [corpus] }));
await finish(await call<JobInfo>('collections.import', { collectionName: 'big', kind: 'queries', files: [queries] }));
const collection = (await call<{ id: number; name: string }[]>('collections.list', {})).find((c) => c.name === 'big')!;
const runs = await call<{ name: string }[]>('retrieval.runs.list', { collectionId: collection.id });
if (!runs.some((r) => r.name === 'bm25')) await finish(await call<JobInfo>('retrieval.runs.create', { collectionId: collection.id, method: 'bm25', name: 'bm25', k: 50 }));
await services.close();
process.stdout.write(`${JSON.stringify({ done: true, resumed })}\n`);
