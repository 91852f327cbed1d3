import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';

type JobHandlers = Pick<Handlers, 'jobs.list' | 'jobs.get' | 'jobs.cancel' | 'jobs.resume' | 'jobs.clearFinished' | 'workspace.check'>;

export function jobHandlers(s: AppServices): JobHandlers {
  return {
    'jobs.list': ({ status, limit }) => s.jobs.list(status, limit),
    'jobs.get': ({ id }) => s.jobs.get(id),
    'jobs.cancel': ({ id }) => s.jobs.cancel(id),
    'jobs.resume': ({ id }) => s.jobs.resume(id),
    'jobs.clearFinished': () => ({ removed: s.jobs.clearFinished() }),
    'workspace.check': ({ full }) =>
      s.jobs.startKind('workspace.check', { full }),
  };
}
