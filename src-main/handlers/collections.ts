import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';

type CollectionHandlers = Pick<
  Handlers,
  | 'collections.list'
  | 'collections.get'
  | 'collections.create'
  | 'collections.delete'
  | 'collections.import'
  | 'collections.importText'
  | 'collections.importBundle'
  | 'collections.previewFile'
  | 'documents.list'
  | 'documents.get'
  | 'queries.list'
  | 'queries.get'
  | 'judgments.setManual'
>;

export function collectionHandlers(s: AppServices): CollectionHandlers {
  const c = s.collections;
  return {
    'collections.list': () => c.list(),
    'collections.get': ({ id }) => c.get(id),
    'collections.create': ({ name, description }) => c.create(name, description),
    'collections.delete': ({ id }) => c.delete(id),
    'collections.import': (req) => c.startImport(req),
    'collections.importText': (req) => c.startImportText(req),
    'collections.importBundle': (req) => c.startImportBundle(req),
    'collections.previewFile': (req) => c.previewFile(req),
    'documents.list': (req) => c.listDocuments(req),
    'documents.get': ({ collectionId, docId }) => c.getDocument(collectionId, docId),
    'queries.list': (req) => c.listQueries(req),
    'queries.get': ({ collectionId, queryId }) => c.getQuery(collectionId, queryId),
    'judgments.setManual': (req) => c.setManual(req),
  };
}
