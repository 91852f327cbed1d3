import type { AppServices } from '../services/appServices';
import type { Handlers } from '../api/router';

type LabelingHandlers = Pick<Handlers, 'labels.utility.start' | 'labels.utility.preview' | 'labels.utility.summary' | 'labels.export'>;

export function labelingHandlers(s: AppServices): LabelingHandlers {
  return {
    'labels.utility.start': (req) => s.labeling.start(req),
    'labels.utility.preview': (req) => s.labeling.previewPrompts(req),
    'labels.utility.summary': ({ collectionId, minUseful }) => s.labeling.summary(collectionId, minUseful),
    'labels.export': ({ collectionId, format, minUseful }) => s.labeling.export(collectionId, format, minUseful),
  };
}
