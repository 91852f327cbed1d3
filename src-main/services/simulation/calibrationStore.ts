/**
 * Where Fair RAG Table 2's measured calibrations are kept (services/simulation/calibration.ts): the
 * workspace's settings table, `table2Calibration:<key>`, the key the SHA-256 of everything that decides
 * the null rejection rate. Read by a run's metrics (ExperimentService), so it imports nothing that runs
 * experiments.
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { FairRagSpec } from '../../api/contract/experiments';
import type { TestCalibration } from '../../api/contract/kindParts';
import { canonicalJson } from '../../engine/callCache';
import { DEFAULT_SIM_PROFILE, SIM_ENGINE_VERSION, type SimProfile } from '../../engine/sim/profile';
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

/** What decides the null rejection rate of a Fair RAG spec's Table 2 test; null when the spec cannot be simulated. */
function calibrationBasis(db: Database, spec: Record<string, unknown>): Record<string, unknown> | null {
  if (spec.kind !== 'fair-rag') return null;
  // The spec with its defaults filled in, so a spec file and the run's stored spec have the same key.
  const parsed = FairRagSpec.safeParse(spec);
  if (!parsed.success) return null;
  const collection = new CollectionsRepo(db).byName(parsed.data.collection);
  if (!collection) return null;
  const { name: _n, description: _d, attribution: _a, ...rest } = parsed.data as unknown as Record<string, unknown>;
  return { spec: rest, profile: specReaderProfile(db, spec), collectionHash: collection.contentHash, simulator: SIM_ENGINE_VERSION };
}

/** The calibration key of a spec (calibration.ts), or null when it cannot be simulated. */
export function calibrationKey(db: Database, spec: Record<string, unknown>): string | null {
  const basis = calibrationBasis(db, spec);
  return basis ? createHash('sha256').update(canonicalJson(basis)).digest('hex') : null;
}

/** The stored calibration of the spec's Table 2 test (the last one measured for its key), or undefined. */
export function readCalibration(db: Database, spec: Record<string, unknown>): TestCalibration | undefined {
  const key = calibrationKey(db, spec);
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
