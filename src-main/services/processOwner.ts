/**
 * Which process owns a running job or run. Several processes may share one workspace (the app and
 * a `fairground run` in a terminal); work is only marked interrupted when its owner is gone.
 */
import { hostname } from 'node:os';

export interface ProcessOwner {
  pid: number;
  host: string;
}

export function currentOwner(): ProcessOwner {
  return { pid: process.pid, host: hostname() };
}

/** True when the owner is known to be dead: same machine and its pid no longer exists. No owner counts as gone. */
export function ownerGone(owner: ProcessOwner | null): boolean {
  if (owner === null) return true;
  if (owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
