/**
 * Where a kind's measured calibrations are kept (services/simulation/calibration.ts; Fair RAG's Table 2):
 * the workspace's settings table, `table2Calibration:<key>` (the prefix of the first kind that had one,
 * kept so stored calibrations stay found), the key the SHA-256 of everything that decides the null
 * rejection rate: the kind's `calibration.basis` of the spec, the reader's profile, the collection's
 * content hash and the simulator's version. Read by a run's metrics (ExperimentService).
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { TestCalibration } from '../../api/contract/kindParts';
import { canonicalJson } from '../../engine/callCache';
import { DEFAULT_SIM_PROFILE, SIM_ENGINE_VERSION, type SimProfile } from '../../engine/sim/profile';
import { defaultExperimentRegistry } from '../../experiments/kinds';
import type { ExperimentRegistry } from '../../experiments/registry';
import { CollectionsRepo } from '../../store/collectionsRepo';
import { isSimRecord, parseSimProfile } from './simModels';

const PREFIX = 'table2Calibration:';

/** The reader a simulation of the spec plants: the spec's own simulated reader's profile, else the defaults. */
export function specReaderProfile(db: Database, spec: Record<string, unknown>): Omit<SimProfile, 'seed' | 'utilityScale' | 'biasStrength'> {
  const gen = spec.generator as { model?: string } | undefined;
  const row = gen?.model ? (db.prepare(`SELECT metadata, settings FROM models WHERE name = ?`).get(gen.model) as { metadata: string; settings: string } | undefined) : undefined;
  if (row && isSimRecord({ metadata: JSON.parse(row.metadata) as Record<string, unknown> })) {
    const p = parseSimProfile(JSON.parse(row.settings));
    const { seed: _seed, utilityScale: _scale, biasStrength: _strength, ...rest } = p;
    return rest;
  }
  return { ...DEFAULT_SIM_PROFILE, collection: String(spec.collection) };
}

/** The kinds whose calibrations are looked up (default: every kind of this version). */
type Kinds = Pick<ExperimentRegistry, 'get'>;

/** What decides the null rejection rate of the spec's test; null when its kind has no calibration or the spec cannot be simulated. */
function calibrationBasis(db: Database, spec: Record<string, unknown>, kinds: Kinds): Record<string, unknown> | null {
  const rest = kinds.get(String(spec.kind))?.calibration?.basis(spec);
  if (!rest) return null;
  const collection = new CollectionsRepo(db).byName(String(rest.collection ?? spec.collection));
  if (!collection) return null;
  return { spec: rest, profile: specReaderProfile(db, spec), collectionHash: collection.contentHash, simulator: SIM_ENGINE_VERSION };
}

/** The calibration key of a spec (calibration.ts), or null when it cannot be simulated. */
export function calibrationKey(db: Database, spec: Record<string, unknown>, kinds: Kinds = defaultExperimentRegistry()): string | null {
  const basis = calibrationBasis(db, spec, kinds);
  return basis ? createHash('sha256').update(canonicalJson(basis)).digest('hex') : null;
}

/** The stored calibration of the spec's Table 2 test (the last one measured for its key), or undefined. */
export function readCalibration(db: Database, spec: Record<string, unknown>, kinds: Kinds = defaultExperimentRegistry()): TestCalibration | undefined {
  const key = calibrationKey(db, spec, kinds);
  if (!key) return undefined;
  const row = db.prepare(`SELECT value FROM settings WHERE key = ?`).get(`${PREFIX}${key}`) as { value: string } | undefined;
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as TestCalibration;
  } catch {
    return undefined;
  }
}

export function writeCalibration(db: Database, key: string, cal: TestCalibration): void {
  db.prepare(`INSERT INTO settings(key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at`).run(`${PREFIX}${key}`, JSON.stringify(cal), new Date().toISOString());
}
