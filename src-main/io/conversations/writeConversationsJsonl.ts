/**
 * Writes conversations in the JSONL format they are imported from (jsonlSchema.ts), with the set
 * described on the first line and every nugget placed exactly by its character offsets, so that
 * importing the export gives back the same set.
 */
import type { AttributeSetLine, ConversationLine, SetHeader } from './jsonlSchema';

export function formatConversationsJsonl(header: SetHeader | undefined, conversations: readonly ConversationLine[]): string {
  const lines: string[] = [];
  if (header) lines.push(JSON.stringify({ conversation_set: header }));
  for (const c of conversations) lines.push(JSON.stringify(c));
  return `${lines.join('\n')}\n`;
}

/** `eval gfrc2 --input` JSON of one conversation, its nuggets given by position. */
export interface GfrcInputFileContent {
  L: number;
  l_max: number;
  attribute_sets: { name: string; kind: AttributeSetLine['kind']; measure: 'jsd' | 'nmd' | 'rnod'; target: number[] }[];
  nuggets: { turn: number; end: number; length: number; level: number; groups?: Record<string, number[]> }[];
}

export function formatGfrcInputFile(content: GfrcInputFileContent): string {
  return `${JSON.stringify(content, null, 2)}\n`;
}
