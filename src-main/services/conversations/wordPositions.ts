/**
 * Word positions of a stored conversation, counted exactly as core/fairness/wordCount does (turns
 * concatenated, "U:"/"S:" glued to each turn's first word, whitespace-separated words, 1-based over
 * the whole conversation), mapped back to character offsets in each turn's own text, so that a
 * selection in the UI (characters) and a nugget's word positions (wc) are two views of one span.
 */
import { DataError } from '../../core/errors';
import { prefixedTurnText, ROLE_PREFIX, wordSpans, type Role } from '../../core/fairness/wordCount';
import type { GluedFirstWord } from '../../store/conversationsRepo';

export interface TurnWord {
  /** Character offsets in the turn's text, end exclusive (the glued role marker is not in the text). */
  start: number;
  end: number;
  /** 1-based word position in the whole conversation. */
  wc: number;
}

export interface TurnLayout {
  role: Role;
  /** 1-based number among the system turns; null for user turns. */
  systemTurn: number | null;
  /** Words of the turn; words[0] is the one glued to the role marker. */
  words: TurnWord[];
}

export function conversationLayout(turns: readonly { role: Role; text: string }[]): TurnLayout[] {
  let offset = 0;
  let systemTurns = 0;
  return turns.map((t) => {
    const prefixed = prefixedTurnText(t);
    const prefix = ROLE_PREFIX[t.role].length;
    // prefixedTurnText drops the text's leading whitespace; put it back to get offsets in the text.
    const lead = t.text.length - t.text.replace(/^\s+/u, '').length;
    const toText = (x: number) => Math.max(x - prefix, 0) + lead;
    const words = wordSpans(prefixed).map((w, k) => ({ start: toText(w.start), end: toText(w.end), wc: offset + k + 1 }));
    offset += words.length;
    return { role: t.role, systemTurn: t.role === 'system' ? ++systemTurns : null, words };
  });
}

export interface NuggetPlacement {
  systemTurn: number;
  /** The span snapped to whole words (character offsets in the turn's text). */
  start: number;
  end: number;
  /** wc(n): the nugget's last word in the whole conversation. */
  wordEnd: number;
  /** Counted words: without the word glued to "S:" when the set excludes it. */
  wordLength: number;
}

/**
 * Places a character span of a turn: the words it touches (snapped outwards to whole words), their
 * positions, and — as FairWeb-2 counts (fn. 11) — without the turn's first word when it is glued to
 * "S:" and the set says 'exclude'. Fields in errors are `turn`, `start` and `end`.
 */
export function placeNugget(layout: readonly TurnLayout[], turn: number, start: number, end: number, glued: GluedFirstWord, textLength: number): NuggetPlacement {
  const t = layout[turn];
  if (!t) throw new DataError(`no turn ${turn} (the conversation has ${layout.length})`, { field: 'turn' });
  if (t.role !== 'system' || t.systemTurn === null) throw new DataError('nuggets are only allowed in system turns', { field: 'turn' });
  if (start < 0 || start > textLength) throw new DataError(`must be within the turn's ${textLength} characters, got ${start}`, { field: 'start' });
  if (end <= start || end > textLength) throw new DataError(`must be after start (${start}) and within the turn's ${textLength} characters, got ${end}`, { field: 'end' });
  let covered = t.words.map((w, k) => ({ w, k })).filter(({ w }) => w.start < end && w.end > start);
  if (covered.length === 0) throw new DataError('the selection contains no words', { field: 'start' });
  const snapped = { start: covered[0]!.w.start, end: covered[covered.length - 1]!.w.end };
  if (glued === 'exclude' && covered[0]!.k === 0) {
    covered = covered.slice(1);
    if (covered.length === 0) {
      throw new DataError("the nugget is only the turn's first word, which is glued to 'S:' and not counted in this set", { field: 'start' });
    }
  }
  const last = covered[covered.length - 1]!.w;
  return { systemTurn: t.systemTurn, ...snapped, wordEnd: last.wc, wordLength: covered.length };
}
