import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
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
