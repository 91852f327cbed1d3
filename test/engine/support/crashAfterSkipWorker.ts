/**
 * The engine's real worker (workerMain.ts), killed by SIGKILL as soon as it has told the parent it
 * skipped node-llama-cpp's binary test — what a binary that no longer loads does to the process
 * (bindingTests.test.ts: the parent must load again with the test run). Started through
 * FAIRGROUND_ENGINE_WORKER-style `workerPath`. FAIRGROUND_TEST_CRASH_MARKER names a file that gets the pid of each
 * worker killed this way.
 */
import { appendFileSync } from 'node:fs';

const send = process.send!.bind(process) as (message: unknown, ...rest: unknown[]) => boolean;
process.send = ((message: unknown, ...rest: unknown[]) => {
  const m = message as { type?: string; progress?: { bindingTestSkipped?: string } };
  if (m.type === 'progress' && m.progress?.bindingTestSkipped !== undefined) {
    return send(message, undefined, {}, () => {
      if (process.env.FAIRGROUND_TEST_CRASH_MARKER) appendFileSync(process.env.FAIRGROUND_TEST_CRASH_MARKER, `${process.pid}\n`);
      process.kill(process.pid, 'SIGKILL');
    });
  }
  return send(message, ...rest);
}) as typeof process.send;

await import('../../../src-main/engine/local/worker/workerMain');
