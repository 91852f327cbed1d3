/** The import of uiStall.bench.ts, run off the measured thread (what issue 17 item 6's move gives). */
import { parentPort, workerData } from 'node:worker_threads';
import { contract } from '../../src-main/api/contract/index';
import { createAppServices } from '../../src-main/services/appServices';

const { workspace, file } = workerData as { workspace: string; file: string };
const s = createAppServices(workspace, { transport: 'http', pathAccess: 'any' });
const job = s.collections.startImport(contract['collections.import'].input.parse({ collectionName: 'stall', kind: 'corpus', files: [file] }));
const done = await s.jobs.wait(job.id);
await s.close();
parentPort?.postMessage({ status: done.status, error: done.error });
