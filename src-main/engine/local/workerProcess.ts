/**
 * The parent's handle on one worker process: typed calls with ids, cancellation, progress, and
 * exit detection. When the process dies — llama.cpp aborting on a malformed model is the common
 * case — every call in flight is rejected with an `EngineError` that says why: the signal or exit
 * code and the last lines the process wrote to stderr (where GGML_ASSERT messages go). A call
 * that was loading the model fails with 'model-load-failed', any other with 'engine-crashed'.
 *
 * The process keeps the parent's event loop alive only while calls are in flight, so a forgotten
 * engine never stops a CLI from exiting.
 */
import { EngineError } from '../types';
import { LineSplitter } from './engineLog';
import type { ParentMessage, WorkerMessage, WorkerOp, WorkerOps, WorkerProgress } from './protocol';
import { spawnWorker, type WorkerChild } from './workerChild';
import type { WorkerLaunch } from './workerLaunch';

export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Last lines of the worker's stderr. */
  stderrTail: string;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?(progress: WorkerProgress): void;
  /** generate: report the text as it grows (progress messages with `text`). */
  stream?: boolean;
  /** Receives the worker's own time for the call (result messages' `ms`), when it sends one. */
  onEngineMs?(ms: number): void;
}

interface Pending {
  op: WorkerOp;
  resolve(value: unknown): void;
  reject(err: Error): void;
  onProgress?: (progress: WorkerProgress) => void;
  onEngineMs?: (ms: number) => void;
  detach(): void;
}

const STDERR_KEEP = 8192;

export class WorkerProcess {
  private readonly child: WorkerChild;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderr = '';
  private exitInfo: WorkerExit | undefined;
  private closing = false;
  readonly exited: Promise<WorkerExit>;

  constructor(
    launch: WorkerLaunch,
    private readonly hooks: {
      onExit?(exit: WorkerExit): void;
      /** The worker's log messages; `source` is 'llama.cpp' for node-llama-cpp's logger. */
      onLog?(level: string, message: string, source?: string): void;
      /** Each complete line the process writes to stdout/stderr. */
      onOutputLine?(line: string): void;
    } = {},
  ) {
    this.child = spawnWorker(launch);
    const lines = new LineSplitter();
    this.child.onOutput((chunk) => {
      const text = chunk.toString('utf8');
      this.stderr = (this.stderr + text).slice(-STDERR_KEEP);
      if (this.hooks.onOutputLine) for (const line of lines.push(text)) this.hooks.onOutputLine(line);
    });
    this.child.onMessage((m) => this.onMessage(m));
    this.exited = new Promise<WorkerExit>((resolve) => {
      const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
        if (this.exitInfo) return;
        if (this.hooks.onOutputLine) for (const line of lines.flush()) this.hooks.onOutputLine(line);
        this.exitInfo = { code, signal, stderrTail: lastLines(this.stderr) };
        this.failAll(this.exitInfo);
        this.hooks.onExit?.(this.exitInfo);
        resolve(this.exitInfo);
      };
      this.child.onExit(finish);
      this.child.onError((err) => {
        this.stderr += `\n${err.message}`;
        finish(null, null);
      });
    });
    this.updateRef();
  }

  get alive(): boolean {
    return this.exitInfo === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  call<K extends WorkerOp>(op: K, request: WorkerOps[K]['request'], options: CallOptions = {}): Promise<WorkerOps[K]['result']> {
    if (this.exitInfo) return Promise.reject(exitError(op, this.exitInfo));
    const id = this.nextId++;
    return new Promise<WorkerOps[K]['result']>((resolve, reject) => {
      const { signal } = options;
      const onAbort = (): void => this.post({ type: 'cancel', id });
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        op,
        resolve: resolve as (value: unknown) => void,
        reject,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.onEngineMs ? { onEngineMs: options.onEngineMs } : {}),
        detach: () => signal?.removeEventListener('abort', onAbort),
      });
      this.updateRef();
      this.post({ type: 'call', id, op, request, ...(options.stream ? { stream: true } : {}) } as ParentMessage);
      if (signal?.aborted) onAbort();
    });
  }

  /** Ask the worker to release the model and exit; kill it if it has not within `graceMs`. */
  async shutdown(graceMs = 3000): Promise<void> {
    if (this.exitInfo) return;
    this.closing = true;
    this.post({ type: 'shutdown' });
    const timer = setTimeout(() => this.child.kill(), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  kill(): void {
    if (!this.exitInfo) this.child.kill();
  }

  private post(message: ParentMessage): void {
    if (this.exitInfo || !this.child.connected) return;
    // A send that races the worker's death is reported through 'exit'; nothing to do here.
    this.child.send(message, (err) => {
      if (this.child.connected) this.hooks.onLog?.('error', `engine IPC send failed: ${err.message}`);
    });
  }

  private onMessage(m: WorkerMessage): void {
    if (m.type === 'log') {
      this.hooks.onLog?.(m.level, m.message, m.source);
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'progress') {
      p.onProgress?.(m.progress);
      return;
    }
    this.pending.delete(m.id);
    p.detach();
    this.updateRef();
    if (m.type === 'result') {
      if (m.ms !== undefined) p.onEngineMs?.(m.ms);
      p.resolve(m.result);
    }
    else p.reject(new EngineError(m.code, m.message));
  }

  private failAll(exit: WorkerExit): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.detach();
      p.reject(this.closing ? new EngineError('aborted', `the engine was closed during ${p.op}`) : exitError(p.op, exit));
    }
  }

  private updateRef(): void {
    this.child.setRef(this.pending.size > 0 && !this.exitInfo);
  }
}

function lastLines(text: string, n = 6): string {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(-n)
    .join(' | ');
}

/** "the engine process was killed by SIGABRT [during ...]: <last stderr lines>". */
export function describeExit(exit: WorkerExit, during?: string): string {
  const how = exit.signal ? `was killed by ${exit.signal}` : exit.code === null ? 'could not start' : `exited with code ${exit.code}`;
  return `the engine process ${how}${during ? ` ${during}` : ''}${exit.stderrTail ? `: ${exit.stderrTail}` : ''}`;
}

function exitError(op: WorkerOp, exit: WorkerExit): EngineError {
  if (op === 'load') return new EngineError('model-load-failed', describeExit(exit, 'while loading the model'));
  return new EngineError('engine-crashed', describeExit(exit, `during ${op}`));
}
