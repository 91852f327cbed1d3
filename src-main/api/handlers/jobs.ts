import type { AppServices } from '../../services/appServices';
import type { Handlers } from '../router';

type JobHandlers = Pick<Handlers, 'jobs.list' | 'jobs.get' | 'jobs.cancel' | 'jobs.clearFinished' | 'workspace.check'>;

export function jobHandlers(s: AppServices): JobHandlers {
  return {
    'jobs.list': ({ status, limit }) => s.jobs.list(status, limit),
    'jobs.get': ({ id }) => s.jobs.get(id),
    'jobs.cancel': ({ id }) => s.jobs.cancel(id),
    'jobs.clearFinished': () => ({ removed: s.jobs.clearFinished() }),
    'workspace.check': ({ full }) =>
      s.jobs.start('workspace.check', 'Check workspace integrity', { full }, (ctx) => s.workspaceService.check(ctx, full)),
  };
}
