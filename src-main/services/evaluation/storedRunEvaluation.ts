/**
 * Evaluate stored retrieval runs against the judgments of their collection (issue 17 item 4): the
 * runs are written as TREC text and the judgments as qrels exactly as `retrieval.runs.exportTrec`
 * and a qrels export would, then evaluated by the same code as uploaded files (evaluateIrRuns), so
 * the numbers equal `fairground eval ir` on the exported files.
 */
import type { z } from 'zod';
import type { IrEvaluation, StoredRunsEvaluationRequest } from '../../api/contract/evaluation';
import { ApiFailure } from '../../api/router';
import type { CollectionsRepo } from '../../store/collectionsRepo';
import type { RetrievalService } from '../retrievalService';
import { evaluateIrRuns } from './irEvaluation';

export function evaluateStoredRuns(
  deps: { retrieval: Pick<RetrievalService, 'listRuns' | 'exportTrec'>; collections: Pick<CollectionsRepo, 'get' | 'qrelsOf'> },
  req: z.output<typeof StoredRunsEvaluationRequest>,
): IrEvaluation {
  const collection = deps.collections.get(req.collectionId);
  if (!collection) throw new ApiFailure('not-found', `no collection with id ${req.collectionId}`, 'collectionId');
  const stored = new Map(deps.retrieval.listRuns(req.collectionId).map((r) => [r.id, r]));
  const seen = new Set<string>();
  const runs = req.runIds.map((id, i) => {
    const run = stored.get(id);
    if (!run) throw new ApiFailure('not-found', `no stored run ${id} in collection '${collection.name}'`, `runIds[${i}]`);
    // Names label the table rows and pick the baseline: keep them distinct.
    let name = run.name;
    for (let n = 2; seen.has(name); n++) name = `${run.name} (${n})`;
    seen.add(name);
    return { name, text: deps.retrieval.exportTrec(id, { metadata: false }).text };
  });
  const qrels = deps.collections.qrelsOf(req.collectionId, req.judgments);
  if (qrels.length === 0) {
    throw new ApiFailure('validation', `collection '${collection.name}' has no ${req.judgments} judgments to evaluate against: import qrels${req.judgments === 'utility' ? ' or label utility' : ''} first`, 'judgments');
  }
  const text = qrels.map((j) => `${j.queryId} 0 ${j.docId} ${j.label}`).join('\n') + '\n';
  const { collectionId: _c, runIds: _r, judgments, ...settings } = req;
  return evaluateIrRuns({ ...settings, runs, qrels: { name: `${collection.name}.${judgments}.qrels`, text } });
}
