/**
 * Word counting as in the FairWeb-2 CS subtask (Sakai, Tao & Song 2025, Sec. 4 and fn. 11): the turns
 * are concatenated, each prefixed with its role marker "U:" or "S:" glued to the turn's first word,
 * and words are whitespace-separated. Word positions run 1-based over the whole conversation; the
 * topic tag (`<R112>`) is not part of the conversation. Tokenising Fig. 3 this way puts ORG's nuggets
 * exactly at words 37-39, 40-42, 43-45, 103-105 and 106-108.
 */

export type Role = 'user' | 'system';

export const ROLE_PREFIX: Record<Role, string> = { user: 'U:', system: 'S:' };

export interface TurnText {
  role: Role;
  text: string;
}

export interface WordSpan {
  /** Character offsets in the prefixed turn text, end exclusive. */
  start: number;
  end: number;
}

/** The turn as it appears in the word stream: role marker glued to the first word. */
export function prefixedTurnText(turn: TurnText): string {
  return ROLE_PREFIX[turn.role] + turn.text.replace(/^\s+/u, '');
}

/** Whitespace-separated words of a prefixed turn text, with their character spans. */
export function wordSpans(text: string): WordSpan[] {
  const spans: WordSpan[] = [];
  for (const m of text.matchAll(/\S+/gu)) spans.push({ start: m.index, end: m.index + m[0].length });
  return spans;
}

/**
 * Number of words in each turn. An empty turn still counts its bare role marker as a word, as the
 * concatenated "S:" string would.
 */
export function turnWordCounts(turns: readonly TurnText[]): number[] {
  return turns.map((t) => wordSpans(prefixedTurnText(t)).length);
}

/** Total words in a conversation. */
export function conversationWordCount(turns: readonly TurnText[]): number {
  return turnWordCounts(turns).reduce((s, n) => s + n, 0);
}
