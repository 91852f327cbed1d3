/**
 * How the engine's worker process is started. Under plain Node (CLI, browser mode, tests) it is
 * `child_process.fork`; the Electron shell installs a spawner built on `utilityProcess.fork`
 * (crash-isolated, no RunAsNode needed) with `setWorkerSpawner`. Both carry the same JSON messages.
 */
import { fork } from 'node:child_process';
import type { ParentMessage, WorkerMessage } from './protocol';
import type { WorkerLaunch } from './workerLaunch';

export interface WorkerChild {
  readonly pid: number | undefined;
  /** False once the channel is closed (the process exited or is exiting). */
  readonly connected: boolean;
  send(message: ParentMessage, onError: (err: Error) => void): void;
  onMessage(listener: (message: WorkerMessage) => void): void;
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
  onError(listener: (err: Error) => void): void;
  /** Everything the process writes to stdout/stderr (kept for crash reports). */
  onOutput(listener: (chunk: Buffer) => void): void;
  kill(): void;
  /** Keep (or stop keeping) the parent's event loop alive for this process. */
  setRef(ref: boolean): void;
}

export type WorkerSpawner = (launch: WorkerLaunch) => WorkerChild;

/**
 * The worker's environment: the parent's, less what only a process that opens network connections
 * needs. NODE_EXTRA_CA_CERTS makes Node read and parse its certificate file before any script runs
 * (the system bundle, /etc/ssl/certs/ca-certificates.crt, is a common value: about 0.08 s of CPU per
 * process), and the environment passes it on to every process the worker starts (node-llama-cpp
 * tests its binary in a child process). The worker reads local model files only (getLlama with
 * build 'never': no download, no TLS), so it starts without it (issue 25).
 */
export function workerEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out.NODE_EXTRA_CA_CERTS;
  return out;
}

export const forkSpawner: WorkerSpawner = (launch) => {
  const child = fork(launch.modulePath, [], { execArgv: launch.execArgv, env: workerEnv(), stdio: ['ignore', 'pipe', 'pipe', 'ipc'], serialization: 'json' });
  return {
    get pid() {
      return child.pid;
    },
    get connected() {
      return child.connected;
    },
    send: (message, onError) =>
      child.send(message, (err) => {
        if (err) onError(err);
      }),
    onMessage: (l) => void child.on('message', (m: WorkerMessage) => l(m)),
    onExit: (l) => void child.on('exit', l),
    onError: (l) => void child.on('error', l),
    onOutput: (l) => {
      child.stdout?.on('data', l);
      child.stderr?.on('data', l);
    },
    kill: () => void child.kill('SIGKILL'),
    setRef: (ref) => {
      for (const h of [child, child.channel, child.stdout, child.stderr] as ({ ref?(): void; unref?(): void } | null | undefined)[]) {
        if (ref) h?.ref?.();
        else h?.unref?.();
      }
    },
  };
};

let current: WorkerSpawner = forkSpawner;

export function setWorkerSpawner(spawner: WorkerSpawner): void {
  current = spawner;
}

export function spawnWorker(launch: WorkerLaunch): WorkerChild {
  return current(launch);
}
