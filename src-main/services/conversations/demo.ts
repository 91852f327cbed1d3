/**
 * The demo conversation set shipped in resources/demo/conversations/ (README there): two runs × three
 * topics with hand-marked nuggets, so the Conversations screen and `conversation evaluate` can be
 * tried at once. Idempotent: when a set of that name exists, nothing is written.
 */
import { join } from 'node:path';
import { resourcesDir } from '../paths';
import type { ConversationsService } from './conversationsService';

export const DEMO_CONVERSATION_SET = 'Fairground demo conversations';

export interface DemoConversationsResult {
  setId: number;
  /** True when the set was imported by this call. */
  changed: boolean;
}

export function loadDemoConversations(services: { conversations: ConversationsService }, file = join(resourcesDir(), 'demo', 'conversations', 'demo.jsonl')): DemoConversationsResult {
  const present = services.conversations.findSet(DEMO_CONVERSATION_SET);
  if (present) return { setId: present.id, changed: false };
  const report = services.conversations.importFile({ setName: DEMO_CONVERSATION_SET }, file);
  return { setId: report.setId, changed: true };
}
