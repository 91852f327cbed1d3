/**
 * First start on a fresh workspace: register a generated tiny GGUF (random weights, the real
 * llama.cpp path, no download), the bundled demo collection and the demo conversation set, so every
 * screen and every experiment type can be tried at once. Idempotent: does nothing for what is already there.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeTinyGguf } from '../engine/gguf/tinyModel';
import type { AppServices } from './appServices';
import { loadDemoCollection } from './collectionsDemo';
import { loadDemoConversations } from './conversations/demo';

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
      const written = await writeTinyGguf(file, { preset: 'tiny', seed: 1 });
      log(`Generated a tiny test model (${written.parameters} random parameters): ${file}`);
    }
    await services.models.addHashed(file, DEMO_MODEL_NAME);
    result.model = 'created';
  } else {
    result.model = services.models.list().some((m) => m.name === DEMO_MODEL_NAME) ? 'present' : 'skipped';
  }
  const demo = await loadDemoCollection(services);
  result.collection = demo.changed ? 'loaded' : 'present';
  if (demo.changed) log('Loaded the demo collection');
  if (services.conversations) {
    const conversations = loadDemoConversations({ conversations: services.conversations });
    result.conversations = conversations.changed ? 'loaded' : 'present';
    if (conversations.changed) log('Loaded the demo conversation set');
  }
  return result;
}
