import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { forkSpawner, workerEnv } from '../../../src-main/engine/local/workerChild';
import { resolveWorkerLaunch } from '../../../src-main/engine/local/workerLaunch';
import { EngineError } from '../../../src-main/engine/types';

describe('resolveWorkerLaunch', () => {
  it('runs the TypeScript worker through tsx from sources', () => {
    const launch = resolveWorkerLaunch(undefined, {});
    expect(launch.modulePath).toMatch(/engine[/\\]local[/\\]worker[/\\]workerMain\.ts$/);
    expect(launch.execArgv[0]).toBe('--import');
    expect(launch.execArgv[1]).toMatch(/^file:.*tsx/);
  });

  it('finds the built worker beside the bundle or beside its parent folder, and says when it is missing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-launch-'));
    try {
      mkdirSync(join(dir, 'worker'));
      mkdirSync(join(dir, 'app'));
      writeFileSync(join(dir, 'worker', 'workerMain.js'), '');
      for (const bundle of ['cli.js', 'app/main.js']) {
        const launch = resolveWorkerLaunch(undefined, {}, pathToFileURL(join(dir, bundle)).href);
        expect(launch).toEqual({ modulePath: join(dir, 'worker', 'workerMain.js'), execArgv: [] });
      }
      const err = (() => {
        try {
          resolveWorkerLaunch(undefined, { FAIRGROUND_ENGINE_WORKER: join(dir, 'nope.js') });
        } catch (e) {
          return e;
        }
      })() as EngineError;
      expect(err).toBeInstanceOf(EngineError);
      expect(err.message).toMatch(/worker script is missing: .*nope\.js/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the worker process environment', () => {
  it('is the parent environment less NODE_EXTRA_CA_CERTS (the worker opens no network connection)', () => {
    expect(workerEnv({ PATH: '/bin', NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt', FAIRGROUND_LLAMA_LOG_LEVEL: 'warn' })).toEqual({ PATH: '/bin', FAIRGROUND_LLAMA_LOG_LEVEL: 'warn' });
    const env = { A: '1' };
    expect(workerEnv(env)).not.toBe(env);
  });

  it('is what a forked worker sees', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fg-launch-env-'));
    const saved = { ca: process.env.NODE_EXTRA_CA_CERTS, keep: process.env.FG_WORKER_ENV_TEST };
    try {
      const script = join(dir, 'echoEnv.mjs');
      writeFileSync(script, 'process.send({ ca: process.env.NODE_EXTRA_CA_CERTS ?? null, keep: process.env.FG_WORKER_ENV_TEST ?? null }, () => process.exit(0));\n');
      // An empty bundle: Node would read it at start-up if it were passed on.
      writeFileSync(join(dir, 'extra.pem'), '');
      process.env.NODE_EXTRA_CA_CERTS = join(dir, 'extra.pem');
      process.env.FG_WORKER_ENV_TEST = 'kept';
      const child = forkSpawner({ modulePath: script, execArgv: [] });
      const seen = await new Promise((resolve) => child.onMessage((m) => resolve(m)));
      expect(seen).toEqual({ ca: null, keep: 'kept' });
    } finally {
      for (const [k, v] of [['NODE_EXTRA_CA_CERTS', saved.ca], ['FG_WORKER_ENV_TEST', saved.keep]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
