import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';

type RetrievalHandlers = Pick<
  Handlers,
  | 'retrieval.search'
  | 'retrieval.runs.list'
  | 'retrieval.runs.create'
  | 'retrieval.runs.get'
  | 'retrieval.runs.exportTrec'
  | 'retrieval.runs.delete'
  | 'retrieval.dense.build'
  | 'retrieval.dense.sets'
>;

export function retrievalHandlers(s: AppServices): RetrievalHandlers {
  return {
    'retrieval.search': (input) => s.retrieval.search(input),
    'retrieval.runs.list': ({ collectionId }) => s.retrieval.listRuns(collectionId),
    'retrieval.runs.create': (spec) => s.retrieval.startRun(spec),
    'retrieval.runs.get': ({ runId, queryId, perQuery }) => s.retrieval.getRun(runId, { perQuery, ...(queryId !== undefined ? { queryId } : {}) }),
    'retrieval.runs.exportTrec': ({ runId, tag, metadata }) => s.retrieval.exportTrec(runId, { metadata, ...(tag !== undefined ? { tag } : {}) }),
    'retrieval.runs.delete': ({ runId }) => ({ deleted: s.retrieval.deleteRun(runId) }),
    'retrieval.dense.build': (input) => s.retrieval.startDenseBuild(input),
    'retrieval.dense.sets': ({ collectionId }) => s.retrieval.embeddingSets(collectionId),
  };
}
