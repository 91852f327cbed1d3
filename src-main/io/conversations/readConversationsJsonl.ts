/**
 * Reads a conversations JSONL file (jsonlSchema.ts) completely before anything is written: every
 * problem is a DataError naming the file, the line and the field as written in the file, e.g.
 * `runs.jsonl:3: turns[1].nuggets[0].level: must be an integer ≥ 0`.
 */
import { readFileSync } from 'node:fs';
import { DataError } from '../../core/errors';
import { formatFieldPath } from '../../core/fairness/gfrcInput';
import { decodeUtf8, splitLines } from '../lines';
import { conversationLineSchema, setHeaderSchema, type ConversationLine, type SetHeader } from './jsonlSchema';
import { checkJsonDepth } from '../jsonText';

export interface NumberedConversation {
  line: number;
  conversation: ConversationLine;
}

export interface ConversationsFile {
  file: string;
  /** The optional first line that describes the set. */
  header?: SetHeader;
  conversations: NumberedConversation[];
}

export function readConversationsJsonlFile(file: string): ConversationsFile {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (err) {
    throw new DataError(`cannot read file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { file });
  }
  return parseConversationsJsonl(decodeUtf8(bytes, file), file);
}

export function parseConversationsJsonl(text: string, file: string): ConversationsFile {
  const out: ConversationsFile = { file, conversations: [] };
  let first = true;
  for (const { line, text: raw } of splitLines(text.replace(/^\uFEFF/, ''))) {
    if (raw.trim() === '') continue;
    const value = parseJsonLine(raw, file, line);
    if (first && value !== null && typeof value === 'object' && !Array.isArray(value) && 'conversation_set' in value) {
      out.header = check(setHeaderSchema, value, file, line).conversation_set;
      first = false;
      continue;
    }
    first = false;
    if (value !== null && typeof value === 'object' && 'conversation_set' in value) throw new DataError('the set description must be the first line', { file, line, field: 'conversation_set' });
    out.conversations.push({ line, conversation: check(conversationLineSchema, value, file, line) });
  }
  if (out.conversations.length === 0) throw new DataError('no conversations in the file', { file });
  return out;
}

function parseJsonLine(raw: string, file: string, line: number): unknown {
  checkJsonDepth(raw, file, line);
  try {
    return JSON.parse(raw) as unknown;
  } catch (err) {
    const reason = (err as Error).message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/, ".*" is not valid JSON$/s, '');
    throw new DataError(`invalid JSON: ${reason}`, { file, line });
  }
}

function check<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }, value: unknown, file: string, line: number): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = formatFieldPath(issue.path.filter((p): p is string | number => typeof p !== 'symbol'));
  throw new DataError(issue.message, { file, line, ...(field ? { field } : {}) });
}
