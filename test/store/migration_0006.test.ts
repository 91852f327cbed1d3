import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { migration0006 } from '../../src-main/store/migrations/0006_experiments';
import { ExperimentsRepo } from '../../src-main/store/experimentsRepo';

function fresh(): Database.Database {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migration0006.up(db);
  return db;
}

describe('migration 0006 experiments', () => {
  it('creates STRICT tables with their constraints', () => {
    const db = fresh();
    const tables = db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string; sql: string }[];
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['experiment_spec_versions', 'experiments', 'run_items', 'runs']));
    for (const t of tables.filter((x) => !x.name.startsWith('sqlite_'))) expect(t.sql).toMatch(/STRICT\s*$/);
    db.prepare(`INSERT INTO experiments(kind, name, spec, version, created_at, updated_at) VALUES ('fair-rag', 'a', '{}', 1, 'now', 'now')`).run();
    expect(() => db.prepare(`INSERT INTO experiments(kind, name, spec, version, created_at, updated_at) VALUES ('fair-rag', 'a', '{}', 1, 'now', 'now')`).run()).toThrow(/UNIQUE/);
    expect(() => db.prepare(`INSERT INTO experiments(kind, name, spec, version, created_at, updated_at) VALUES ('fair-rag', 'b', '{}', 'x', 'now', 'now')`).run()).toThrow(/cannot store TEXT/);
    expect(() => db.prepare(`INSERT INTO runs(experiment_id, spec, spec_version, status, created_at) VALUES (1, '{}', 1, 'done', 'now')`).run()).toThrow(/CHECK/);
    expect(() => db.prepare(`INSERT INTO runs(experiment_id, spec, spec_version, status, created_at) VALUES (99, '{}', 1, 'pending', 'now')`).run()).toThrow(/FOREIGN KEY/);
  });

  it('keeps spec versions, upserts run items by key and cascades deletes', () => {
    const db = fresh();
    const repo = new ExperimentsRepo(db);
    const e = repo.createExperiment({ kind: 'fair-rag', name: 'exp', spec: { b: 1, a: [1, 2] } });
    expect(e.version).toBe(1);
    // The same spec (keys in another order) is not a new version.
    expect(repo.updateExperiment(e.id, { name: 'exp', spec: { a: [1, 2], b: 1 } }).changed).toBe(false);
    const v2 = repo.updateExperiment(e.id, { name: 'exp', spec: { a: [1, 2, 3], b: 1 } });
    expect(v2).toMatchObject({ changed: true, experiment: { version: 2 } });
    expect(repo.specVersions(e.id).map((v) => v.spec)).toEqual([{ a: [1, 2], b: 1 }, { a: [1, 2, 3], b: 1 }]);

    const run = repo.createRun({ experimentId: e.id, spec: v2.experiment.spec, specVersion: 2 });
    expect(run).toMatchObject({ status: 'pending', experimentName: 'exp', kind: 'fair-rag', specVersion: 2, spec: { a: [1, 2, 3], b: 1 } });
    repo.upsertItems(run.id, [
      { key: '["s","q1","x",0]', queryId: 'q1', condition: 'x', sample: 0, payload: { v: 1 } },
      { key: '["s","q1","x",1]', queryId: 'q1', condition: 'x', sample: 1, payload: { v: 2 } },
      { key: '["g","q1","h"]', queryId: 'q1', condition: '', sample: null, payload: { out: 'a' } },
    ]);
    // Writing a unit again (a resumed run) replaces its row: no duplicates.
    repo.upsertItems(run.id, [{ key: '["s","q1","x",0]', queryId: 'q1', condition: 'x', sample: 0, payload: { v: 3 } }]);
    expect(repo.countItems(run.id)).toBe(3);
    expect(repo.item(run.id, '["s","q1","x",0]')?.payload).toEqual({ v: 3 });
    expect([...repo.existingKeys(run.id, '["s",')].sort()).toEqual(['["s","q1","x",0]', '["s","q1","x",1]']);
    expect(repo.items(run.id, { keyPrefix: '["s",' }, { offset: 1, limit: 1 }).map((i) => i.sample)).toEqual([1]);
    expect(repo.conditions(run.id)).toEqual(['x']);

    expect(repo.deleteExperiment(e.id)).toBe(true);
    expect(db.prepare(`SELECT count(*) AS n FROM run_items`).get()).toEqual({ n: 0 });
    expect(db.prepare(`SELECT count(*) AS n FROM experiment_spec_versions`).get()).toEqual({ n: 0 });
  });

  it('marks only runs whose process is gone as interrupted', () => {
    const db = fresh();
    const repo = new ExperimentsRepo(db);
    const e = repo.createExperiment({ kind: 'fair-rag', name: 'exp', spec: {} });
    const a = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 });
    const b = repo.createRun({ experimentId: e.id, spec: {}, specVersion: 1 });
    repo.setRunStarted(a.id, 'job-a', { pid: 1, host: 'h' });
    repo.setRunStarted(b.id, 'job-b', { pid: 2, host: 'h' });
    expect(repo.markInterrupted((owner) => owner?.pid === 1)).toBe(1);
    expect(repo.run(a.id)).toMatchObject({ status: 'interrupted', owner: null, jobId: 'job-a' });
    expect(repo.run(b.id)).toMatchObject({ status: 'running', owner: { pid: 2, host: 'h' } });
  });
});
