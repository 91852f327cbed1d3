import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';

type PlanHandlers = Pick<Handlers, 'experiments.estimate' | 'experiments.estimateSpec' | 'experiments.designWarnings'>;

export function planHandlers(s: AppServices): PlanHandlers {
  return {
    'experiments.estimate': ({ id }) => s.plans.estimate(id, new AbortController().signal),
    'experiments.estimateSpec': ({ spec }) => s.plans.estimateSpec(spec, new AbortController().signal),
    'experiments.designWarnings': async ({ spec }) => ({ warnings: await s.experiments.designWarnings(spec) }),
  };
}
