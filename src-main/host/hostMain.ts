/**
 * Entry of the service-host worker thread (scripts/build.mjs emits it as dist/main/host/hostMain.js;
 * hostEntry.ts finds it). Binds runServiceHost to the thread's port.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostInit, ToHost } from './protocol';
import { runServiceHost } from './hostRuntime';

if (!parentPort) throw new Error('hostMain runs as a worker thread (see src-main/host/hostClient.ts)');
const port = parentPort;
runServiceHost({ post: (m) => port.postMessage(m), onMessage: (l) => void port.on('message', (m: ToHost) => l(m)) }, workerData as HostInit);
