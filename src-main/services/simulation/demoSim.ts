/**
 * The demo's simulated reader (issue 14): a fresh workspace gets, beside the generated tiny GGUF (the
 * real llama.cpp path), a simulated reader of the demo collection, so the demo specs show the papers'
 * effects (non-degenerate utility, Fig. 4 trade-offs, a MoI position-bias profile that matches the
 * planted curve) instead of a random-weight model's noise. Idempotent.
 */
import type { ModelService } from '../modelService';
import type { CollectionsRepo } from '../../store/collectionsRepo';

export const DEMO_SIM_NAME = 'Simulated reader (lost in the middle)';

/** The planted profile of the demo reader: the demo's utility labels (relevance grades for the multi-aspect questions), a U-shaped bias. */
export const DEMO_SIM_PROFILE = { collection: 'Fairground demo', utility: 'labels', bias: 'u-shaped', closedBookAccuracy: 0.2, noise: 0, seed: 0 } as const;

/** Add the demo's simulated reader when the demo collection is there and the reader is not. */
export function ensureDemoSimReader(services: { models: Pick<ModelService, 'addSim' | 'models'>; collections: { repo: Pick<CollectionsRepo, 'byName'> } }): 'created' | 'present' | 'skipped' {
  if (services.models.models.getByName(DEMO_SIM_NAME)) return 'present';
  if (!services.collections.repo.byName(DEMO_SIM_PROFILE.collection)) return 'skipped';
  try {
    services.models.addSim({ name: DEMO_SIM_NAME, profile: { ...DEMO_SIM_PROFILE } });
  } catch (err) {
    // Two first runs at once: the other process registered it (unique name).
    if (services.models.models.getByName(DEMO_SIM_NAME)) return 'present';
    throw err;
  }
  return 'created';
}
