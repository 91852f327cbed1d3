/**
 * First start on a fresh workspace: register a generated tiny GGUF (random weights, the real
 * llama.cpp path, no download), the bundled demo collection and the demo conversation set, so every
 * screen and every experiment type can be tried at once. Idempotent: does nothing for what is already there.
 */
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeTinyGguf } from '../engine/gguf/tinyModel';
import type { AppServices } from './appServices';
import { loadDemoCollection } from './collectionsDemo';
import { DEMO_CONVERSATION_SET, loadDemoConversations } from './conversations/demo';
import { DEMO_SIM_NAME, ensureDemoSimReader } from './simulation/demoSim';

export const DEMO_MODEL_NAME = 'fairground-tiny';

export interface DemoSetupResult {
  model: 'created' | 'present' | 'skipped';
  collection: 'loaded' | 'present';
  /** 'skipped' when the caller has no conversations service (the `run` CLI). */
  conversations: 'loaded' | 'present' | 'skipped';
}

/** What the demo needs: the model library and collections, and conversations when the caller has them. */
export type DemoTargets = Pick<AppServices, 'workspace' | 'models' | 'collections'> & Partial<Pick<AppServices, 'conversations'>>;

export async function ensureDemo(services: DemoTargets, log: (message: string) => void = () => {}): Promise<DemoSetupResult> {
  const result: DemoSetupResult = { model: 'skipped', collection: 'present', conversations: services.conversations ? 'present' : 'skipped' };
  if (services.models.list().length === 0) {
    const folder = services.workspace.path === ':memory:' ? join(process.cwd(), '.fairground-models') : join(dirname(services.workspace.path), 'models');
    mkdirSync(folder, { recursive: true });
    const file = join(folder, `${DEMO_MODEL_NAME}.gguf`);
    if (!existsSync(file)) {
      // Written beside and renamed into place: a second process starting at the same moment
      // never reads a half-written file (the content is the same: fixed seed).
      const partial = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}.partial`;
      const written = await writeTinyGguf(partial, { preset: 'tiny', seed: 1 });
      renameSync(partial, file);
      log(`Generated a tiny test model (${written.parameters} random parameters): ${file}`);
    }
    result.model = (await registerOnce(
      () => services.models.models.getByName(DEMO_MODEL_NAME) !== undefined,
      () => services.models.addHashed(file, DEMO_MODEL_NAME),
    ))
      ? 'created'
      : 'present';
  } else {
    result.model = services.models.list().some((m) => m.name === DEMO_MODEL_NAME) ? 'present' : 'skipped';
  }
  const demo = await loadDemoCollection(services);
  result.collection = demo.changed ? 'loaded' : 'present';
  if (demo.repaired) log('Completed the demo collection (an earlier load was interrupted)');
  else if (demo.changed) log('Loaded the demo collection');
  if (result.model !== 'skipped' && ensureDemoSimReader(services) === 'created') log(`Registered the simulated reader '${DEMO_SIM_NAME}' (planted truth) beside the tiny model`);
  if (services.conversations) {
    const conversations = services.conversations;
    const loaded = await registerOnce(
      () => conversations.findSet(DEMO_CONVERSATION_SET) !== undefined,
      () => loadDemoConversations({ conversations }),
    );
    result.conversations = loaded ? 'loaded' : 'present';
    if (loaded) log('Loaded the demo conversation set');
  }
  return result;
}

/**
 * First-run steps are idempotent across processes (issue 15 item 5): two first runs at once both
 * see "missing", one registers, the other's insert hits the unique name — which counts as present.
 * Returns true when this call registered it.
 */
async function registerOnce(present: () => boolean, register: () => unknown): Promise<boolean> {
  if (present()) return false;
  try {
    const r = await register();
    return (r as { changed?: boolean } | undefined)?.changed ?? true;
  } catch (err) {
    if (present()) return false;
    throw err;
  }
}
