/**
 * Engine workers started by the client on the host's behalf. Under Electron only the main process
 * can fork utility processes (crash-isolated, no RunAsNode), so the host's engine code gets a
 * WorkerSpawner whose children live in the client: spawn, messages, output and exits travel over
 * the host's port. Under plain Node the host forks its engine workers itself and needs none of this.
 */
import type { WorkerChild, WorkerSpawner } from '../engine/local/workerChild';
import type { WorkerMessage } from '../engine/local/protocol';
import type { FromHost, ToHost } from './protocol';

type EngineToHost = Extract<ToHost, { type: `engine.${string}` }>;
type EngineFromHost = Extract<FromHost, { type: `engine.${string}` }>;

interface RelayedChild {
  pid: number | undefined;
  connected: boolean;
  message: ((m: WorkerMessage) => void)[];
  exit: ((code: number | null, signal: NodeJS.Signals | null) => void)[];
  error: ((err: Error) => void)[];
  output: ((chunk: Buffer) => void)[];
}

/** The host's side: a spawner whose children are the client's, and the handler for their news. */
export function relaySpawner(post: (m: FromHost) => void): { spawner: WorkerSpawner; deliver(m: EngineToHost): void } {
  const children = new Map<number, RelayedChild>();
  let next = 1;
  const spawner: WorkerSpawner = (launch): WorkerChild => {
    const id = next++;
    const c: RelayedChild = { pid: undefined, connected: true, message: [], exit: [], error: [], output: [] };
    children.set(id, c);
    post({ type: 'engine.spawn', child: id, launch });
    return {
      get pid() {
        return c.pid;
      },
      get connected() {
        return c.connected;
      },
      send(message, onError) {
        if (!c.connected) return onError(new Error('the engine worker has exited'));
        post({ type: 'engine.send', child: id, message });
      },
      onMessage: (l) => void c.message.push(l),
      onExit: (l) => void c.exit.push(l),
      onError: (l) => void c.error.push(l),
      onOutput: (l) => void c.output.push(l),
      kill: () => post({ type: 'engine.kill', child: id }),
      // The client owns the real process; the host's loop is kept alive by its port anyway.
      setRef: () => {},
    };
  };
  return {
    spawner,
    deliver(m) {
      const c = children.get(m.child);
      if (!c) return;
      switch (m.type) {
        case 'engine.spawned':
          c.pid = m.pid;
          break;
        case 'engine.message':
          for (const l of c.message) l(m.message);
          break;
        case 'engine.output':
          for (const l of c.output) l(Buffer.from(m.chunk));
          break;
        case 'engine.error':
          for (const l of c.error) l(new Error(m.message));
          break;
        case 'engine.exit':
          c.connected = false;
          children.delete(m.child);
          for (const l of c.exit) l(m.code, m.signal);
          break;
      }
    },
  };
}

/** The client's side: runs the host's spawn/send/kill requests with a real spawner. */
export function engineRelay(spawner: WorkerSpawner, post: (m: ToHost) => void): { handle(m: EngineFromHost): void; killAll(): void } {
  const children = new Map<number, WorkerChild>();
  return {
    handle(m) {
      if (m.type === 'engine.spawn') {
        let child: WorkerChild;
        try {
          child = spawner(m.launch);
        } catch (err) {
          post({ type: 'engine.error', child: m.child, message: (err as Error).message });
          post({ type: 'engine.exit', child: m.child, code: 1, signal: null });
          return;
        }
        children.set(m.child, child);
        child.onMessage((message) => post({ type: 'engine.message', child: m.child, message }));
        child.onOutput((chunk) => post({ type: 'engine.output', child: m.child, chunk: new Uint8Array(chunk) }));
        child.onError((err) => post({ type: 'engine.error', child: m.child, message: err.message }));
        child.onExit((code, signal) => {
          children.delete(m.child);
          post({ type: 'engine.exit', child: m.child, code, signal });
        });
        post({ type: 'engine.spawned', child: m.child, pid: child.pid });
        return;
      }
      const child = children.get(m.child);
      if (!child) return;
      if (m.type === 'engine.send') child.send(m.message, (err) => post({ type: 'engine.error', child: m.child, message: err.message }));
      else child.kill();
    },
    killAll() {
      for (const c of children.values()) c.kill();
      children.clear();
    },
  };
}
