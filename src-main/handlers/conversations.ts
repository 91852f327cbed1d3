import type { AppServices } from '../services/appServices';
import { loadDemoConversations } from '../services/conversations/demo';
import { exportSetEvaluation } from '../services/conversations/evaluationExport';
import { conversationsFromAnswers, conversationsFromFairRagRun } from '../services/conversations/ragBridge';
import { ApiFailure, type Handlers } from '../api/router';

type ConversationHandlers = Pick<
  Handlers,
  | 'conversations.sets.list'
  | 'conversations.sets.get'
  | 'conversations.sets.create'
  | 'conversations.sets.update'
  | 'conversations.sets.delete'
  | 'conversations.attributeSets.put'
  | 'conversations.attributeSets.delete'
  | 'conversations.import'
  | 'conversations.export'
  | 'conversations.get'
  | 'conversations.nuggets.create'
  | 'conversations.nuggets.update'
  | 'conversations.nuggets.delete'
  | 'conversations.evaluate'
  | 'conversations.evaluateSet'
  | 'conversations.exportEvaluation'
  | 'conversations.loadDemo'
  | 'conversations.fromAnswers'
  | 'conversations.fromFairRagRun'
>;

export function conversationHandlers(s: Pick<AppServices, 'conversations'>): ConversationHandlers {
  const c = s.conversations;
  return {
    'conversations.sets.list': () => c.listSets(),
    'conversations.sets.get': ({ setId }) => ({ set: c.getSet(setId), conversations: c.repo.listConversations(setId) }),
    'conversations.sets.create': (req) => c.createSet(req),
    'conversations.sets.update': ({ setId, ...fields }) => c.updateSet(setId, fields),
    'conversations.sets.delete': ({ setId }) => ({ deleted: c.deleteSet(setId) }),
    'conversations.attributeSets.put': ({ setId, attributeSet }) => c.putAttributeSet(setId, attributeSet),
    'conversations.attributeSets.delete': ({ setId, name }) => c.deleteAttributeSet(setId, name),
    'conversations.import': ({ file, ...req }) => c.importText(req, file),
    'conversations.export': ({ setId, conversationId, format }) => {
      if ((setId === undefined) === (conversationId === undefined)) throw new ApiFailure('validation', 'give exactly one of setId and conversationId', 'setId');
      if (format === 'jsonl') {
        if (setId === undefined) throw new ApiFailure('validation', 'the JSONL export is of a whole set: give setId', 'setId');
        return { files: [c.exportJsonl(setId)] };
      }
      return { files: c.exportGfrcInputs(setId !== undefined ? { setId } : { conversationId: conversationId! }) };
    },
    'conversations.get': ({ conversationId }) => c.getConversation(conversationId),
    'conversations.nuggets.create': (req) => c.createNugget(req),
    'conversations.nuggets.update': (req) => c.updateNugget(req),
    'conversations.nuggets.delete': ({ nuggetId }) => ({ deleted: c.deleteNugget(nuggetId) }),
    'conversations.evaluate': ({ conversationId, rVariant }) => c.evaluateConversation(conversationId, rVariant),
    'conversations.evaluateSet': ({ setId, ...options }) => c.evaluateSet(setId, options),
    'conversations.exportEvaluation': ({ evaluation, format, latex }) => exportSetEvaluation(evaluation, format, latex),
    'conversations.loadDemo': () => loadDemoConversations(s),
    'conversations.fromAnswers': (req) => conversationsFromAnswers(c, req),
    'conversations.fromFairRagRun': (req) => conversationsFromFairRagRun(c, req),
  };
}
