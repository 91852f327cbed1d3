/**
 * A service host that crashes or hangs on request, for the failure tests: the real host
 * (runServiceHost on the thread's port), except that an API call of the method `test.crash` ends
 * the thread with exit code 7 before it is answered — what an uncaught exception or a native
 * crash looks like from the client — and `test.hang` busies the thread forever (a stuck commit).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { HostInit, ToHost } from '../../src-main/host/protocol';
import { runServiceHost } from '../../src-main/host/hostRuntime';

const port = parentPort!;
runServiceHost(
  {
    post: (m) => port.postMessage(m),
    onMessage: (l) =>
      void port.on('message', (m: ToHost) => {
        if (m.type === 'call' && m.method === 'test.crash') process.exit(7);
        if (m.type === 'call' && m.method === 'test.hang') for (;;);
        l(m);
      }),
  },
  workerData as HostInit,
);
