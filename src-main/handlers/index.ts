/** All handlers: one function per contract method, each delegating to a service. */
import type { AppServices } from '../services/appServices';
import { createRouter, type Handlers, type Router } from '../api/router';
import { appHandlers } from './app';
import { collectionHandlers } from './collections';
import { conversationHandlers } from './conversations';
import { desktopHandlers } from './desktop';
import { evaluationHandlers } from './evaluation';
import { experimentHandlers } from './experiments';
import { jobHandlers } from './jobs';
import { labelingHandlers } from './labeling';
import { modelHandlers } from './models';
import { planHandlers } from './plans';
import { retrievalHandlers } from './retrieval';
import { storedRunEvaluationHandlers } from './storedRunEvaluation';
import { workspaceHandlers } from './workspaces';
import type { WorkspaceSwitcher } from '../services/workspaces/workspaceSession';

export function createHandlers(s: AppServices, workspaces?: WorkspaceSwitcher): Handlers {
  return {
    ...appHandlers(s),
    ...collectionHandlers(s),
    ...conversationHandlers(s),
    ...jobHandlers(s),
    ...evaluationHandlers(),
    ...storedRunEvaluationHandlers(s),
    ...desktopHandlers(s),
    ...modelHandlers(s),
    ...retrievalHandlers(s),
    ...labelingHandlers(s),
    ...experimentHandlers(s),
    ...planHandlers(s),
    ...workspaceHandlers(s, workspaces),
  };
}

export function createApiRouter(s: AppServices, onInternalError?: (err: unknown) => void, workspaces?: WorkspaceSwitcher): Router {
  return createRouter(createHandlers(s, workspaces), onInternalError);
}
