import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';

type PlanHandlers = Pick<Handlers, 'experiments.estimate'>;

export function planHandlers(s: AppServices): PlanHandlers {
  return {
    'experiments.estimate': ({ id }) => s.plans.estimate(id, new AbortController().signal),
  };
}
