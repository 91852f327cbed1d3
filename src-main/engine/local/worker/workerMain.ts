/**
 * Entry point of the local engine's worker process (started by `LocalEngine` with
 * child_process.fork). It hosts one model and answers the parent's calls over IPC; see
 * `../protocol.ts`. A native crash here (llama.cpp aborts on some malformed models) ends only this
 * process; the parent notices the exit and reports it.
 */
import { EngineError, type EngineErrorCode } from '../../types';
import type { ParentMessage, WorkerMessage, WorkerOp, WorkerOps } from '../protocol';
import { ModelHost } from './modelHost';

/** Electron's utilityProcess talks over `process.parentPort`; child_process.fork over process.send. */
interface ParentPort {
  postMessage(message: unknown): void;
  on(event: 'message', listener: (e: { data: unknown }) => void): void;
}
const parentPort = (process as unknown as { parentPort?: ParentPort }).parentPort;

if (!process.send && !parentPort) {
  process.stderr.write('the Fairground engine worker must be started by LocalEngine (it needs an IPC channel)\n');
  process.exit(2);
}

const send = (m: WorkerMessage): void => {
  if (parentPort) parentPort.postMessage(m);
  else process.send?.(m);
};
const onParentMessage = (listener: (msg: ParentMessage) => void): void => {
  if (parentPort) parentPort.on('message', (e) => listener(e.data as ParentMessage));
  else process.on('message', (msg: ParentMessage) => listener(msg));
};
const controllers = new Map<number, AbortController>();
const inFlight = new Set<Promise<void>>();
let host: ModelHost | undefined;

/** When a call had its sequence (ModelHost's `onStart`), by call id: the result's `ms` counts from there. */
const startedAt = new Map<number, number>();

async function dispatch<K extends WorkerOp>(id: number, op: K, request: WorkerOps[K]['request'], signal: AbortSignal, stream = false): Promise<unknown> {
  const onStart = (): void => void startedAt.set(id, performance.now());
  if (op === 'load') {
    if (host) throw new EngineError('bad-request', 'this worker already hosts a model');
    let lastSent = -1;
    host = await ModelHost.load(request as WorkerOps['load']['request'], {
      onLoadProgress: (fraction) => {
        // Throttle to whole percents: IPC messages are not free.
        const pct = Math.floor(fraction * 100);
        if (pct > lastSent) {
          lastSent = pct;
          send({ type: 'progress', id, progress: { load: fraction } });
        }
      },
      onBindingTestSkipped: (binary) => send({ type: 'progress', id, progress: { bindingTestSkipped: binary } }),
      onBindingTestConfirmed: () => send({ type: 'progress', id, progress: { bindingTestConfirmed: true } }),
      onLog: (level, message) => send({ type: 'log', level, message, source: 'llama.cpp' }),
    }).catch((err: unknown) => {
      throw err instanceof EngineError ? err : new EngineError('model-load-failed', (err as Error).message ?? String(err));
    });
    return host.info;
  }
  if (!host) throw new EngineError('bad-request', `${op} before a model was loaded`);
  switch (op) {
    case 'generate':
      return host.generate(request as WorkerOps['generate']['request'], signal, stream ? (text, tokens) => send({ type: 'progress', id, progress: { tokens, text } }) : undefined, onStart);
    case 'score':
      return host.score(request as WorkerOps['score']['request'], signal, onStart);
    case 'embed':
      return host.embed(request as WorkerOps['embed']['request'], signal);
    case 'tokenize':
      return host.tokenize(request as WorkerOps['tokenize']['request']);
    case 'tune':
      return host.tune(request as WorkerOps['tune']['request'], signal);
    case 'threads':
      return host.setThreads(request as WorkerOps['threads']['request']);
    default:
      throw new EngineError('unsupported', `unknown operation ${String(op)}`);
  }
}

async function handleCall(msg: Extract<ParentMessage, { type: 'call' }>): Promise<void> {
  const controller = new AbortController();
  controllers.set(msg.id, controller);
  try {
    const result = await dispatch(msg.id, msg.op, msg.request, controller.signal, msg.stream === true);
    const started = startedAt.get(msg.id);
    send({ type: 'result', id: msg.id, result, ...(started !== undefined ? { ms: performance.now() - started } : {}) });
  } catch (err) {
    // Errors thrown by node-llama-cpp during an operation come from what was asked (too long,
    // unsupported schema...): the process is fine, so they are reported as bad requests.
    const code: EngineErrorCode = err instanceof EngineError ? err.code : controller.signal.aborted ? 'aborted' : 'bad-request';
    send({ type: 'error', id: msg.id, code, message: (err as Error)?.message ?? String(err) });
  } finally {
    controllers.delete(msg.id);
    startedAt.delete(msg.id);
  }
}

async function shutdown(): Promise<void> {
  for (const c of controllers.values()) c.abort();
  // Let cancelled calls answer (a generation returns its text so far) before the model goes away.
  await Promise.race([Promise.allSettled(inFlight), new Promise((r) => setTimeout(r, 1000))]);
  try {
    await host?.dispose();
  } finally {
    process.exit(0);
  }
}

onParentMessage((msg) => {
  switch (msg.type) {
    case 'call': {
      const call = handleCall(msg);
      inFlight.add(call);
      void call.finally(() => inFlight.delete(call));
      break;
    }
    case 'cancel':
      controllers.get(msg.id)?.abort();
      break;
    case 'shutdown':
      void shutdown();
      break;
  }
});
// The parent is gone (or closed the channel): nothing can receive our answers.
process.on('disconnect', () => process.exit(0));
