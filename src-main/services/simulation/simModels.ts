/**
 * Simulated readers in the model library (issue 14). A simulated reader is a `models` row whose
 * metadata says `kind: 'sim'`, whose settings are its profile (api/contract/models.ts SimProfile) and
 * whose `sha256` is its cache identity (SHA-256 of the profile and the sim's version), so it is chosen,
 * listed, tried and cleared like a GGUF model and a spec names it by name ({"model": "Simulated reader
 * (lost in the middle)"}). Every description of it (manifests, exports) says "simulated reader" and
 * carries the profile; its name always contains "Simulated reader".
 */
import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { SimProfile as SimProfileSchema } from '../../api/contract/models';
import { ApiFailure } from '../../api/apiFailure';
import { canonicalJson } from '../../engine/callCache';
import { describeProfile, SIM_ENGINE_VERSION, type SimProfile } from '../../engine/sim/profile';
import { SimEngine } from '../../engine/sim/simEngine';
import { CollectionsRepo } from '../../store/collectionsRepo';
import type { ModelRecord, ModelsRepo } from '../../store/modelsRepo';
import { buildSimWorld } from './simWorld';

export const SIM_NOTE = 'simulated reader: outputs are planted by a declared profile, not produced by a language model';

const SHAPE_NAMES: Record<string, string> = { uniform: 'no position bias', primacy: 'primacy', recency: 'recency', 'u-shaped': 'lost in the middle' };

export function isSimRecord(m: Pick<ModelRecord, 'metadata'>): boolean {
  return m.metadata.kind === 'sim';
}

/** The cache identity of a profile: 64 hex digits (stored as the model's sha256). */
export function simModelKey(profile: SimProfile): string {
  return createHash('sha256').update(canonicalJson({ simulatedReader: SIM_ENGINE_VERSION, profile })).digest('hex');
}

/** "Simulated reader (lost in the middle)" and the like. */
export function defaultSimName(profile: SimProfile): string {
  const shape = Array.isArray(profile.bias) ? 'explicit bias' : (SHAPE_NAMES[profile.bias] ?? profile.bias);
  return `Simulated reader (${shape}${profile.noise > 0 ? `, noise ${profile.noise}` : ''})`;
}

export function parseSimProfile(raw: unknown): SimProfile {
  const r = SimProfileSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = ['profile', ...issue.path.map(String)].join('.');
    throw new ApiFailure('validation', `${field}: ${issue.message}`, field);
  }
  return r.data as SimProfile;
}

/** Add a simulated reader to the library; the profile's collection must exist. */
export function addSimModel(db: Database, models: ModelsRepo, input: { name?: string | undefined; profile: unknown }): ModelRecord {
  const profile = parseSimProfile(input.profile);
  if (!new CollectionsRepo(db).byName(profile.collection)) throw new ApiFailure('validation', `profile.collection: no collection named '${profile.collection}'`, 'profile.collection');
  let name = (input.name ?? defaultSimName(profile)).trim();
  if (!/simulated reader/i.test(name)) name = `${name} (simulated reader)`;
  if (models.getByName(name)) throw new ApiFailure('conflict', `a model named '${name}' is already in the library`, 'name');
  return models.add({
    name,
    path: `sim:${profile.collection}`,
    size: 0,
    sha256: simModelKey(profile),
    metadata: { kind: 'sim', simulatedReader: true, description: describeProfile(profile) },
    settings: profile as unknown as Record<string, unknown>,
    status: 'ready',
  });
}

/** The engine of a simulated reader row (its world read from the collection now). */
export function createSimEngine(db: Database, m: ModelRecord): SimEngine {
  const profile = parseSimProfile(m.settings);
  return new SimEngine({ name: m.name, modelKey: m.sha256 ?? simModelKey(profile), profile, world: buildSimWorld(db, profile) });
}

/**
 * Whether a simulated reader's world is still the collection as it is now: labeling or an import
 * changes the collection's content hash (labels included), and the reader must then be rebuilt, or
 * it would answer from the old labels under the old identity.
 */
export function simWorldIsCurrent(db: Database, m: ModelRecord, engine: SimEngine): boolean {
  const profile = parseSimProfile(m.settings);
  return new CollectionsRepo(db).byName(profile.collection)?.contentHash === engine.worldHash;
}

/** The manifest description of a simulated reader. */
export function describeSim(m: ModelRecord): Record<string, unknown> {
  return { kind: 'sim', simulatedReader: true, note: SIM_NOTE, name: m.name, sha256: m.sha256, profile: m.settings, description: m.metadata.description ?? null, settings: {} };
}
