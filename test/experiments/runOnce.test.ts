/**
 * Issue 26 item 1: a Run that cannot be started twice by accident. Five rapid `experiments.run`
 * requests for one experiment (five clicks that each reached the service) start one run and answer
 * each with its job; once that run has finished, a start makes a new run, numbered next.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices } from '../../src-main/services/appServices';
import { makeDemoWorkspace, tinySpec } from './fixture';

let dir: string;
let ws: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-run-once-'));
  ws = await makeDemoWorkspace(dir);
}, 240_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('experiments.run starts one run per start, not per request', () => {
  it('five rapid starts → one run and one job; a start after it finished → the next run', async () => {
    const s = createAppServices(ws, { transport: 'http' });
    try {
      const router = createApiRouter(s);
      const e = s.experiments.create(tinySpec({ name: 'run once', generator: { model: 'Simulated reader (lost in the middle)' } }));
      const answers = await Promise.all(Array.from({ length: 5 }, () => router.call('experiments.run', { id: e.id })));
      const jobIds = answers.map((a) => {
        expect(a.ok, JSON.stringify(a)).toBe(true);
        return (a as { data: { id: string } }).data.id;
      });
      expect(new Set(jobIds).size).toBe(1);
      expect(s.experiments.repo.runs(e.id)).toHaveLength(1);
      // Sequential clicks while it is still running: the same job again.
      const again = await router.call('experiments.run', { id: e.id });
      expect((again as { data: { id: string } }).data.id).toBe(jobIds[0]);
      // The policy is the service's (issue 37 item 3), not the handler's: a caller without the router joins too.
      expect(s.experiments.startOrJoinRun(e.id).id).toBe(jobIds[0]);
      expect(s.experiments.repo.runs(e.id)).toHaveLength(1);
      for (let i = 0; i < 600 && s.jobs.isLive(jobIds[0]!); i++) await new Promise((r) => setTimeout(r, 100));
      expect(s.jobs.get(jobIds[0]!).status).toBe('succeeded');
      // A deliberate new start once the run is done: a second run, numbered next.
      const second = await router.call('experiments.run', { id: e.id });
      expect((second as { data: { id: string } }).data.id).not.toBe(jobIds[0]);
      const runs = s.experiments.repo.runs(e.id).map((r) => r.id).sort((a, b) => a - b);
      expect(runs).toHaveLength(2);
      expect(runs[1]! - runs[0]!).toBe(1);
      const secondJob = (second as { data: { id: string } }).data.id;
      for (let i = 0; i < 600 && s.jobs.isLive(secondJob); i++) await new Promise((r) => setTimeout(r, 100));
    } finally {
      await s.close();
    }
  }, 240_000);
});
