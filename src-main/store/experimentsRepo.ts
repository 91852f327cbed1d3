/**
 * SQL for experiments, their spec versions, runs and run items (migration 0006). Kind-agnostic: a
 * spec and a payload are JSON values the experiment kind defines; this module only stores them.
 *
 * Run items are written with upserts keyed by (run_id, key), so a unit of work that is done again
 * after a crash replaces its row: no duplicates, whatever point the previous process died at.
 */
import type { Database, Statement } from 'better-sqlite3';
import { canonicalJson } from './canonicalJson';

export type RunStatus = 'pending' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'interrupted';

export interface ExperimentRow {
  id: number;
  kind: string;
  name: string;
  spec: unknown;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface SpecVersionRow {
  version: number;
  spec: unknown;
  createdAt: string;
}

export interface RunRow {
  id: number;
  experimentId: number;
  experimentName: string;
  kind: string;
  spec: unknown;
  specVersion: number;
  status: RunStatus;
  jobId: string | null;
  /** The process executing a running run. */
  owner: RunOwner | null;
  error: string | null;
  stats: Record<string, unknown>;
  createdAt: string;
  finishedAt: string | null;
  manifest: Record<string, unknown> | null;
}

export interface RunOwner {
  pid: number;
  host: string;
}

export interface RunItem {
  key: string;
  queryId: string;
  condition: string;
  sample: number | null;
  payload: unknown;
}

/** A run item whose payload is already its JSON text (`upsertItemTexts`). */
export interface RunItemText {
  key: string;
  queryId: string;
  condition: string;
  sample: number | null;
  payloadJson: string;
}

export interface ItemFilter {
  queryId?: string | undefined;
  condition?: string | undefined;
  /** Only keys starting with this text (kinds prefix keys by item type). */
  keyPrefix?: string | undefined;
}

interface ExperimentDbRow {
  id: number;
  kind: string;
  name: string;
  spec: string;
  version: number;
  created_at: string;
  updated_at: string;
}

interface RunDbRow {
  id: number;
  experiment_id: number;
  experiment_name: string;
  kind: string;
  spec: string;
  spec_version: number;
  status: RunStatus;
  job_id: string | null;
  owner: string | null;
  error: string | null;
  stats: string;
  created_at: string;
  finished_at: string | null;
  manifest: string | null;
}

interface ItemDbRow {
  key: string;
  query_id: string;
  condition: string;
  sample: number | null;
  payload: string;
}

const toExperiment = (r: ExperimentDbRow): ExperimentRow => ({
  id: r.id,
  kind: r.kind,
  name: r.name,
  spec: JSON.parse(r.spec) as unknown,
  version: r.version,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const toRun = (r: RunDbRow): RunRow => ({
  id: r.id,
  experimentId: r.experiment_id,
  experimentName: r.experiment_name,
  kind: r.kind,
  spec: JSON.parse(r.spec) as unknown,
  specVersion: r.spec_version,
  status: r.status,
  jobId: r.job_id,
  owner: r.owner === null ? null : (JSON.parse(r.owner) as RunOwner),
  error: r.error,
  stats: JSON.parse(r.stats) as Record<string, unknown>,
  createdAt: r.created_at,
  finishedAt: r.finished_at,
  manifest: r.manifest === null ? null : (JSON.parse(r.manifest) as Record<string, unknown>),
});

/** Rows per statement of `upsertItemTexts` (6 parameters each). */
const UPSERT_ROWS = 32;

const upsertSql = (rows: number): string =>
  `INSERT INTO run_items(run_id, key, query_id, condition, sample, payload) VALUES ${new Array(rows).fill('(?, ?, ?, ?, ?, ?)').join(', ')}
   ON CONFLICT(run_id, key) DO UPDATE SET query_id = excluded.query_id, condition = excluded.condition, sample = excluded.sample, payload = excluded.payload`;

const toItem = (r: ItemDbRow): RunItem => ({ key: r.key, queryId: r.query_id, condition: r.condition, sample: r.sample, payload: JSON.parse(r.payload) as unknown });

const RUN_SELECT = `SELECT r.*, e.name AS experiment_name, e.kind AS kind FROM runs r JOIN experiments e ON e.id = r.experiment_id`;

/** The smallest string greater than every string starting with `prefix` (for a key range scan). */
function prefixUpperBound(prefix: string): string {
  return prefix + '\u{10FFFF}';
}

export class ExperimentNameTakenError extends Error {
  constructor(readonly experimentName: string) {
    super(`an experiment named '${experimentName}' already exists`);
    this.name = 'ExperimentNameTakenError';
  }
}

export class ExperimentsRepo {
  private readonly stmts = new Map<string, Statement>();

  constructor(
    readonly db: Database,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private st(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  // ---- experiments ----------------------------------------------------------------------------

  /**
   * `throwaway` (a cost estimate's scaffolding, deleted afterwards): the row takes a negative id
   * below every other, which AUTOINCREMENT's counter never sees, so the user's experiment and run
   * numbers stay consecutive whatever runs beside it; listings leave such rows out.
   */
  createExperiment(input: { kind: string; name: string; spec: unknown; throwaway?: boolean }): ExperimentRow {
    if (this.experimentByName(input.name)) throw new ExperimentNameTakenError(input.name);
    const now = this.now().toISOString();
    const spec = canonicalJson(input.spec);
    const id = this.db.transaction(() => {
      const info = input.throwaway
        ? this.st(`INSERT INTO experiments(id, kind, name, spec, version, created_at, updated_at) VALUES ((SELECT min(coalesce(min(id), 0), 0) FROM experiments) - 1, ?, ?, ?, 1, ?, ?)`).run(input.kind, input.name, spec, now, now)
        : this.st(`INSERT INTO experiments(kind, name, spec, version, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)`).run(input.kind, input.name, spec, now, now);
      const newId = Number(info.lastInsertRowid);
      this.st(`INSERT INTO experiment_spec_versions(experiment_id, version, spec, created_at) VALUES (?, 1, ?, ?)`).run(newId, spec, now);
      return newId;
    })();
    return this.experiment(id)!;
  }

  experiment(id: number): ExperimentRow | undefined {
    const r = this.st(`SELECT * FROM experiments WHERE id = ?`).get(id) as ExperimentDbRow | undefined;
    return r && toExperiment(r);
  }

  experimentByName(name: string): ExperimentRow | undefined {
    const r = this.st(`SELECT * FROM experiments WHERE name = ?`).get(name) as ExperimentDbRow | undefined;
    return r && toExperiment(r);
  }

  experiments(): (ExperimentRow & { runs: number; lastRunId: number | null })[] {
    const rows = this.st(
      `SELECT e.*, (SELECT count(*) FROM runs r WHERE r.experiment_id = e.id AND r.id > 0) AS runs, (SELECT max(id) FROM runs r WHERE r.experiment_id = e.id AND r.id > 0) AS last_run_id
       FROM experiments e WHERE e.id > 0 ORDER BY e.updated_at DESC, e.id DESC`,
    ).all() as (ExperimentDbRow & { runs: number; last_run_id: number | null })[];
    return rows.map((r) => ({ ...toExperiment(r), runs: r.runs, lastRunId: r.last_run_id }));
  }

  /**
   * Store a new spec (and name). A spec equal to the current one (canonical JSON) changes nothing
   * and keeps the version; otherwise the version goes up by one and the new spec is kept in the
   * version history beside the older ones.
   */
  updateExperiment(id: number, input: { name: string; spec: unknown }): { experiment: ExperimentRow; changed: boolean } {
    const current = this.experiment(id);
    if (!current) throw new RangeError(`no experiment with id ${id}`);
    const other = this.experimentByName(input.name);
    if (other && other.id !== id) throw new ExperimentNameTakenError(input.name);
    const spec = canonicalJson(input.spec);
    const sameSpec = spec === canonicalJson(current.spec);
    if (sameSpec && input.name === current.name) return { experiment: current, changed: false };
    const now = this.now().toISOString();
    this.db.transaction(() => {
      if (sameSpec) {
        this.st(`UPDATE experiments SET name = ?, updated_at = ? WHERE id = ?`).run(input.name, now, id);
        return;
      }
      const version = current.version + 1;
      this.st(`UPDATE experiments SET name = ?, spec = ?, version = ?, updated_at = ? WHERE id = ?`).run(input.name, spec, version, now, id);
      this.st(`INSERT INTO experiment_spec_versions(experiment_id, version, spec, created_at) VALUES (?, ?, ?, ?)`).run(id, version, spec, now);
    })();
    return { experiment: this.experiment(id)!, changed: !sameSpec };
  }

  specVersions(experimentId: number): SpecVersionRow[] {
    const rows = this.st(`SELECT version, spec, created_at FROM experiment_spec_versions WHERE experiment_id = ? ORDER BY version`).all(experimentId) as {
      version: number;
      spec: string;
      created_at: string;
    }[];
    return rows.map((r) => ({ version: r.version, spec: JSON.parse(r.spec) as unknown, createdAt: r.created_at }));
  }

  deleteExperiment(id: number): boolean {
    return this.st(`DELETE FROM experiments WHERE id = ?`).run(id).changes > 0;
  }

  // ---- runs -----------------------------------------------------------------------------------

  /** `throwaway`: as for createExperiment (a negative id, left out of listings). */
  createRun(input: { experimentId: number; spec: unknown; specVersion: number; throwaway?: boolean }): RunRow {
    const sql = input.throwaway
      ? `INSERT INTO runs(id, experiment_id, spec, spec_version, status, created_at) VALUES ((SELECT min(coalesce(min(id), 0), 0) FROM runs) - 1, ?, ?, ?, 'pending', ?)`
      : `INSERT INTO runs(experiment_id, spec, spec_version, status, created_at) VALUES (?, ?, ?, 'pending', ?)`;
    const info = this.st(sql).run(
      input.experimentId,
      canonicalJson(input.spec),
      input.specVersion,
      this.now().toISOString(),
    );
    return this.run(Number(info.lastInsertRowid))!;
  }

  run(id: number): RunRow | undefined {
    const r = this.st(`${RUN_SELECT} WHERE r.id = ?`).get(id) as RunDbRow | undefined;
    return r && toRun(r);
  }

  runs(experimentId?: number): RunRow[] {
    const rows = (experimentId === undefined ? this.st(`${RUN_SELECT} WHERE r.id > 0 ORDER BY r.id DESC`).all() : this.st(`${RUN_SELECT} WHERE r.experiment_id = ? AND r.id > 0 ORDER BY r.id DESC`).all(experimentId)) as RunDbRow[];
    return rows.map(toRun);
  }

  setRunStarted(id: number, jobId: string | null, owner: RunOwner): void {
    this.st(`UPDATE runs SET status = 'running', job_id = coalesce(?, job_id), owner = ?, error = NULL, finished_at = NULL WHERE id = ?`).run(jobId, JSON.stringify(owner), id);
  }

  setRunJob(id: number, jobId: string): void {
    this.st(`UPDATE runs SET job_id = ? WHERE id = ?`).run(jobId, id);
  }

  setRunFinished(id: number, status: Exclude<RunStatus, 'pending' | 'running'>, error: string | null = null): void {
    this.st(`UPDATE runs SET status = ?, error = ?, owner = NULL, finished_at = ? WHERE id = ?`).run(status, error, this.now().toISOString(), id);
  }

  setRunStats(id: number, stats: Record<string, unknown>): void {
    this.st(`UPDATE runs SET stats = ? WHERE id = ?`).run(JSON.stringify(stats), id);
  }

  setRunManifest(id: number, manifest: unknown): void {
    this.st(`UPDATE runs SET manifest = ? WHERE id = ?`).run(JSON.stringify(manifest), id);
  }

  deleteRun(id: number): boolean {
    return this.st(`DELETE FROM runs WHERE id = ?`).run(id).changes > 0;
  }

  /**
   * Runs left `running` by a process that is gone become `interrupted`. `isGone` decides from the
   * recorded owner (null when none was recorded).
   */
  markInterrupted(isGone: (owner: RunOwner | null) => boolean): number {
    let n = 0;
    for (const r of this.runs().filter((x) => x.status === 'running')) {
      if (!isGone(r.owner)) continue;
      this.st(`UPDATE runs SET status = 'interrupted', owner = NULL, finished_at = ? WHERE id = ? AND status = 'running'`).run(this.now().toISOString(), r.id);
      n++;
    }
    return n;
  }

  // ---- run items ------------------------------------------------------------------------------

  /** Delete every item of a run (it is written again: issue 35 item 1); returns how many. */
  clearItems(runId: number): number {
    return this.st(`DELETE FROM run_items WHERE run_id = ?`).run(runId).changes;
  }

  /** Upsert items in one transaction: an item written again replaces its row (same key). */
  upsertItems(runId: number, items: readonly RunItem[]): void {
    if (items.length === 0) return;
    this.upsertItemTexts(
      runId,
      items.map((it) => ({ key: it.key, queryId: it.queryId, condition: it.condition, sample: it.sample, payloadJson: JSON.stringify(it.payload) })),
    );
  }

  /**
   * `upsertItems` with each payload already serialized (`payloadJson` must be JSON.stringify of the
   * payload: a writer of thousands of similar items builds the text from its constant parts). One
   * transaction; rows go in statements of up to UPSERT_ROWS rows each (one statement call per row
   * was half the cost of writing a run's sample items), in the items' order, so a key written twice
   * keeps its last row as before.
   */
  upsertItemTexts(runId: number, items: readonly RunItemText[]): void {
    if (items.length === 0) return;
    const many = this.st(upsertSql(UPSERT_ROWS));
    const one = this.st(upsertSql(1));
    const args: unknown[] = new Array<unknown>(UPSERT_ROWS * 6);
    this.db.transaction(() => {
      let i = 0;
      for (; i + UPSERT_ROWS <= items.length; i += UPSERT_ROWS) {
        for (let j = 0; j < UPSERT_ROWS; j++) {
          const it = items[i + j]!;
          const a = j * 6;
          args[a] = runId;
          args[a + 1] = it.key;
          args[a + 2] = it.queryId;
          args[a + 3] = it.condition;
          args[a + 4] = it.sample;
          args[a + 5] = it.payloadJson;
        }
        many.run(...args);
      }
      for (; i < items.length; i++) {
        const it = items[i]!;
        one.run(runId, it.key, it.queryId, it.condition, it.sample, it.payloadJson);
      }
    })();
  }

  item(runId: number, key: string): RunItem | undefined {
    const r = this.st(`SELECT key, query_id, condition, sample, payload FROM run_items WHERE run_id = ? AND key = ?`).get(runId, key) as ItemDbRow | undefined;
    return r && toItem(r);
  }

  itemsByKeys(runId: number, keys: Iterable<string>): Map<string, RunItem> {
    const out = new Map<string, RunItem>();
    for (const key of new Set(keys)) {
      const it = this.item(runId, key);
      if (it) out.set(key, it);
    }
    return out;
  }

  /** Whether each of the keys has a row (resume: which units are finished). */
  existingKeys(runId: number, keyPrefix: string): Set<string> {
    const rows = this.st(`SELECT key FROM run_items WHERE run_id = ? AND key >= ? AND key < ?`).all(runId, keyPrefix, prefixUpperBound(keyPrefix)) as { key: string }[];
    return new Set(rows.map((r) => r.key));
  }

  private where(runId: number, filter: ItemFilter): { sql: string; args: unknown[] } {
    const parts = ['run_id = ?'];
    const args: unknown[] = [runId];
    if (filter.queryId !== undefined) {
      parts.push('query_id = ?');
      args.push(filter.queryId);
    }
    if (filter.condition !== undefined) {
      parts.push('condition = ?');
      args.push(filter.condition);
    }
    if (filter.keyPrefix !== undefined) {
      parts.push('key >= ? AND key < ?');
      args.push(filter.keyPrefix, prefixUpperBound(filter.keyPrefix));
    }
    return { sql: parts.join(' AND '), args };
  }

  /** Items in (query, condition, sample, key) order, paged. */
  items(runId: number, filter: ItemFilter = {}, page: { offset?: number; limit?: number } = {}): RunItem[] {
    const { sql, args } = this.where(runId, filter);
    const rows = this.db
      .prepare(`SELECT key, query_id, condition, sample, payload FROM run_items WHERE ${sql} ORDER BY query_id, condition, sample, key LIMIT ? OFFSET ?`)
      .all(...args, page.limit ?? -1, page.offset ?? 0) as ItemDbRow[];
    return rows.map(toItem);
  }

  /**
   * Every item of a run as raw columns `[key, query_id, condition, sample, payload JSON text]`, in key
   * order, nothing parsed: for a reader that builds its own index of thousands of items (a run's summary)
   * without a RunItem object per row.
   */
  itemTexts(runId: number): [key: string, queryId: string, condition: string, sample: number | null, payload: string][] {
    const sql = `SELECT key, query_id, condition, sample, payload FROM run_items WHERE run_id = ? ORDER BY key`;
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql).raw(true)));
    return s.all(runId) as [string, string, string, number | null, string][];
  }

  /**
   * Some fields of items' payloads, read by SQLite (`json_extract`) instead of parsing each payload
   * here, in `items()` order: for a stage that needs two fields of thousands of items (a sampled
   * ranking's prompt hash, a judgment's cache flag). Each field is named by a JSON path ('$.a.b'):
   * a JSON string comes back as a string, a number as a number, true/false as 1/0, an object or
   * array as its JSON text, a missing field or JSON null as null. `{ typeOf: path }` asks for the
   * field's JSON type instead ('null', 'true', 'text', 'array', …; null when missing).
   */
  itemFields<F extends string>(runId: number, filter: ItemFilter, fields: Record<F, string | { typeOf: string }>): ({ key: string } & Record<F, string | number | null>)[] {
    const { sql, args } = this.where(runId, filter);
    const names = Object.keys(fields) as F[];
    for (const n of names) if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(n)) throw new Error(`itemFields: '${n}' is not a plain field name`);
    const cols = names.map((n) => `${typeof fields[n] === 'string' ? 'json_extract' : 'json_type'}(payload, ?) AS ${n}`).join(', ');
    const paths = names.map((n) => {
      const f = fields[n];
      return typeof f === 'string' ? f : f.typeOf;
    });
    return this.st(`SELECT key${cols ? `, ${cols}` : ''} FROM run_items WHERE ${sql} ORDER BY query_id, condition, sample, key`).all(...paths, ...args) as ({
      key: string;
    } & Record<F, string | number | null>)[];
  }

  countItems(runId: number, filter: ItemFilter = {}): number {
    const { sql, args } = this.where(runId, filter);
    return (this.db.prepare(`SELECT count(*) AS n FROM run_items WHERE ${sql}`).get(...args) as { n: number }).n;
  }

  /** Distinct values of `condition` among a run's items (views list the arms with it). */
  conditions(runId: number): string[] {
    return (this.st(`SELECT DISTINCT condition FROM run_items WHERE run_id = ? AND condition <> '' ORDER BY condition`).all(runId) as { condition: string }[]).map((r) => r.condition);
  }
}
