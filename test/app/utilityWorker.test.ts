/**
 * The Electron engine spawner with an injected stand-in for Electron's UtilityProcess (the
 * Electron binary cannot run here): messages, exits and output are mapped onto WorkerChild.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { UtilityProcess } from 'electron';
import { describe, expect, it } from 'vitest';
import { utilityProcessSpawner } from '../../src-main/app/utilityWorker';

class StandInUtilityProcess extends EventEmitter {
  pid = 4242;
  stdout = new PassThrough();
  stderr = new PassThrough();
  posted: unknown[] = [];
  killed = false;
  postMessage(m: unknown) {
    this.posted.push(m);
  }
  kill() {
    this.killed = true;
    this.emit('exit', 134);
    return true;
  }
}

describe('utilityProcessSpawner', () => {
  it('forks the worker module as a named utility process and maps its events', () => {
    const forks: unknown[][] = [];
    const proc = new StandInUtilityProcess();
    const spawn = utilityProcessSpawner((modulePath, args, options) => {
      forks.push([modulePath, args, options]);
      return proc as unknown as UtilityProcess;
    });
    const before = { certs: process.env.NODE_EXTRA_CA_CERTS, marker: process.env.FG_UTILITY_ENV_MARKER };
    process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ca-certificates.crt';
    process.env.FG_UTILITY_ENV_MARKER = 'kept';
    let child;
    try {
      child = spawn({ modulePath: '/app/dist/main/worker/workerMain.js', execArgv: [] });
    } finally {
      for (const [k, v] of [['NODE_EXTRA_CA_CERTS', before.certs], ['FG_UTILITY_ENV_MARKER', before.marker]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    expect(forks).toEqual([['/app/dist/main/worker/workerMain.js', [], { execArgv: [], stdio: 'pipe', serviceName: 'Fairground engine', env: expect.objectContaining({ FG_UTILITY_ENV_MARKER: 'kept' }) }]]);
    // As the plain-Node worker: the parent's environment without the certificate file only network clients need.
    expect((forks[0]![2] as { env: NodeJS.ProcessEnv }).env).not.toHaveProperty('NODE_EXTRA_CA_CERTS');
    expect(child.pid).toBe(4242);

    const messages: unknown[] = [];
    const output: string[] = [];
    const exits: unknown[] = [];
    child.onMessage((m) => messages.push(m));
    child.onOutput((c) => output.push(c.toString()));
    child.onExit((code, signal) => exits.push([code, signal]));

    child.send({ type: 'shutdown' }, () => {});
    expect(proc.posted).toEqual([{ type: 'shutdown' }]);
    proc.emit('message', { type: 'log', level: 'info', message: 'loaded' });
    expect(messages).toEqual([{ type: 'log', level: 'info', message: 'loaded' }]);
    proc.stderr.write('GGML_ASSERT(n_head % n_head_kv == 0) failed\n');
    expect(output.join('')).toContain('GGML_ASSERT');

    expect(child.connected).toBe(true);
    child.kill();
    expect(proc.killed).toBe(true);
    expect(exits).toEqual([[134, null]]);
    expect(child.connected).toBe(false);
  });
});
