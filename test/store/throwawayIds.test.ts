/**
 * Issue 26 ("run numbers jump"): a cost estimate's scaffolding (a throwaway experiment and run,
 * deleted afterwards) must not take a number from the user's sequence, even when a real run is
 * created while the estimate is still in flight (the wizard's review estimates while Create is
 * pressed). Throwaway rows take negative ids, which AUTOINCREMENT's counter never sees, and
 * listings leave them out. Hand-made sequence: real 1, throwaway −1 beside it, real 2, 3.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ExperimentsRepo } from '../../src-main/store/experimentsRepo';
import { openWorkspace } from '../../src-main/store/workspace';

const dir = mkdtempSync(join(tmpdir(), 'fg-throwaway-ids-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('throwaway experiments and runs never take a number from the sequence, and are not listed', () => {
  const ws = openWorkspace(join(dir, 'w.fairground'));
  try {
    const repo = new ExperimentsRepo(ws.db);
    const e = repo.createExperiment({ kind: 'moi', name: 'mine', spec: { kind: 'moi' } });
    expect(e.id).toBe(1);
    const scratchExp = repo.createExperiment({ kind: 'moi', name: '(cost estimate x)', spec: { kind: 'moi' }, throwaway: true });
    expect(scratchExp.id).toBe(-1);
    const scratch = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1, throwaway: true });
    expect(scratch.id).toBe(-1);
    // A real run created while the estimate's run exists: number 1, not 2.
    const r1 = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 });
    expect(r1.id).toBe(1);
    // A second estimate beside the first takes the next negative id.
    const scratch2 = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1, throwaway: true });
    expect(scratch2.id).toBe(-2);
    expect(repo.runs().map((r) => r.id)).toEqual([1]);
    expect(repo.runs(e.id).map((r) => r.id)).toEqual([1]);
    expect(repo.experiments().map((x) => [x.id, x.runs, x.lastRunId])).toEqual([[1, 1, 1]]);
    repo.deleteRun(scratch.id);
    repo.deleteRun(scratch2.id);
    repo.deleteExperiment(scratchExp.id);
    expect(repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 }).id).toBe(2);
    expect(repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1, throwaway: true }).id).toBe(-1);
    expect(repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 }).id).toBe(3);
    expect(repo.createExperiment({ kind: 'moi', name: 'second', spec: { kind: 'moi' } }).id).toBe(2);
  } finally {
    ws.close();
  }
});
