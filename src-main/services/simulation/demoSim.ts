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

/**
 * The MoI demo's reader (issue 23 item 6): the same planted truth with a steep primacy bias (MoI's Fig. 6
 * finds decreasing a for every model). Under the U-shaped reader MoI's Table 1 is flat: its answer rule
 * counts Σ ã_j u_j with ã relative to the most attended position, and with 2–3 useful passages among the
 * demo's N = 4 every order reaches the answer threshold. With ã = 1, 0.2, 0.1, 0.05 only a useful
 * passage first gives the answer, so the orderings separate as the planted bias predicts.
 */
export const DEMO_MOI_SIM_NAME = 'Simulated reader (strong primacy)';
export const DEMO_MOI_SIM_PROFILE = { ...DEMO_SIM_PROFILE, bias: [1, 0.2, 0.1, 0.05] };

type DemoSimServices = { models: Pick<ModelService, 'addSim' | 'models'>; collections: { repo: Pick<CollectionsRepo, 'byName'> } };

/** Add the demo's simulated readers (the Fair RAG / RichRAG one and MoI's) when the demo collection is there and they are not; the result is the first reader's. */
export function ensureDemoSimReader(services: DemoSimServices): 'created' | 'present' | 'skipped' {
  const out = addOnce(services, DEMO_SIM_NAME, DEMO_SIM_PROFILE);
  if (out !== 'skipped') addOnce(services, DEMO_MOI_SIM_NAME, DEMO_MOI_SIM_PROFILE);
  return out;
}

function addOnce(services: DemoSimServices, name: string, profile: typeof DEMO_SIM_PROFILE | typeof DEMO_MOI_SIM_PROFILE): 'created' | 'present' | 'skipped' {
  if (services.models.models.getByName(name)) return 'present';
  if (!services.collections.repo.byName(profile.collection)) return 'skipped';
  try {
    services.models.addSim({ name, profile: { ...profile } });
  } catch (err) {
    // Two first runs at once: the other process registered it (unique name).
    if (services.models.models.getByName(name)) return 'present';
    throw err;
  }
  return 'created';
}
