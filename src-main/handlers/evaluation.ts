import { evaluateIrRuns } from '../services/evaluation/irEvaluation';
import { exportIrEvaluation } from '../services/evaluation/irEvaluationExport';
import type { Handlers } from '../api/router';

type EvaluationHandlers = Pick<Handlers, 'evaluation.ir' | 'evaluation.export'>;

export function evaluationHandlers(): EvaluationHandlers {
  return {
    'evaluation.ir': (req) => evaluateIrRuns(req),
    'evaluation.export': ({ evaluation, format, latex }) => exportIrEvaluation(evaluation, format, latex),
  };
}
