import type { Handlers } from '../api/router';
import type { AppServices } from '../services/appServices';
import { evaluateStoredRuns } from '../services/evaluation/storedRunEvaluation';

/** evaluation.storedRuns (issue 17 item 4): stored runs against their collection's judgments. */
export function storedRunEvaluationHandlers(s: AppServices): Pick<Handlers, 'evaluation.storedRuns'> {
  return { 'evaluation.storedRuns': (req) => evaluateStoredRuns({ retrieval: s.retrieval, collections: s.collections.repo }, req) };
}
