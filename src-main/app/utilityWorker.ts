/**
 * The engine worker under Electron: `utilityProcess.fork` (VS Code's pattern) instead of
 * child_process.fork, so a llama.cpp crash ends only that process and RunAsNode can stay off.
 * Messages travel over the utility process's MessagePort (`process.parentPort` in the worker).
 */
import type { UtilityProcess } from 'electron';
import { workerEnv, type WorkerChild, type WorkerSpawner } from '../engine/local/workerChild';
import type { WorkerMessage } from '../engine/local/protocol';

export type ForkUtility = (modulePath: string, args: string[], options: { execArgv: string[]; stdio: 'pipe'; serviceName: string; env: NodeJS.ProcessEnv }) => UtilityProcess;

export function utilityProcessSpawner(forkUtility: ForkUtility): WorkerSpawner {
  return (launch): WorkerChild => {
    // The same environment as the plain-Node worker (workerEnv: without what only network clients need).
    const child = forkUtility(launch.modulePath, [], { execArgv: launch.execArgv, stdio: 'pipe', serviceName: 'Fairground engine', env: workerEnv() });
    let connected = true;
    child.on('exit', () => (connected = false));
    return {
      get pid() {
        return child.pid;
      },
      get connected() {
        return connected;
      },
      send(message, onError) {
        try {
          child.postMessage(message);
        } catch (err) {
          onError(err as Error);
        }
      },
      onMessage: (l) => void child.on('message', (m: WorkerMessage) => l(m)),
      // Utility processes report an exit code only; a crash shows as a non-zero code.
      onExit: (l) => void child.on('exit', (code: number) => l(code, null)),
      onError: (l) => void child.on('error', (type: string, location: string) => l(new Error(`${type} at ${location}`))),
      onOutput: (l) => {
        child.stdout?.on('data', l);
        child.stderr?.on('data', l);
      },
      kill: () => void child.kill(),
      // The app's lifetime owns the main process's event loop: nothing to (un)ref.
      setRef: () => {},
    };
  };
}
