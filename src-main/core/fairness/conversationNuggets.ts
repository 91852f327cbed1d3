/**
 * Turns a conversation with nuggets marked by their text into positioned nuggets (turn, end, length),
 * counting words the FairWeb-2 way (wordCount.ts).
 */
import { DataError } from '../errors';
import type { Nugget } from './gfrcInput';
import { prefixedTurnText, ROLE_PREFIX, wordSpans, type Role, type WordSpan } from './wordCount';

export interface TurnNugget {
  /** The nugget's words as they appear in the turn (whitespace may differ). */
  text: string;
  level: number;
  groups?: Record<string, number[]>;
}

export interface ConversationTurn {
  role: Role;
  text: string;
  /** Nuggets are parts of system turns (Sec. 2.1). */
  nuggets?: TurnNugget[];
}

export interface ConversationNuggetOptions {
  /**
   * The first word of a turn is fused with its role marker ("S:Yoshua"), so the official FairWeb-2 data
   * leaves it out of a nugget that starts the turn (fn. 11). 'exclude' (default) does the same;
   * 'include' counts the fused word as part of the nugget.
   */
  gluedFirstWord?: 'exclude' | 'include';
}

export interface PositionedNuggets {
  nuggets: Nugget[];
  /** For nuggets[k]: where it came from, conversation[turnIndex].nuggets[nuggetIndex]. */
  origins: { turnIndex: number; nuggetIndex: number }[];
  /** Words in the whole conversation. */
  totalWords: number;
}

export function nuggetsFromConversation(conversation: readonly ConversationTurn[], options: ConversationNuggetOptions = {}): PositionedNuggets {
  const gluedFirstWord = options.gluedFirstWord ?? 'exclude';
  const nuggets: Nugget[] = [];
  const origins: PositionedNuggets['origins'] = [];
  let offset = 0;
  let systemTurn = 0;
  conversation.forEach((turn, i) => {
    const text = prefixedTurnText(turn);
    const words = wordSpans(text);
    if (turn.role === 'system') systemTurn++;
    const list = turn.nuggets ?? [];
    if (list.length > 0 && turn.role !== 'system') {
      throw new DataError('nuggets are only allowed in system turns', { field: `conversation[${i}].nuggets` });
    }
    const claimed = new Set<number>();
    list.forEach((nug, j) => {
      const field = `conversation[${i}].nuggets[${j}].text`;
      let covered = locate(text, words, nug.text, claimed, ROLE_PREFIX[turn.role].length);
      if (covered === undefined) {
        throw new DataError(`nugget text not found in the turn${claimed.size ? ' (outside the words of its earlier nuggets)' : ''}: '${clip(nug.text)}'`, { field });
      }
      covered.forEach((w) => claimed.add(w));
      if (gluedFirstWord === 'exclude' && covered[0] === 0) {
        covered = covered.slice(1);
        if (covered.length === 0) {
          throw new DataError("the nugget is only the turn's first word, which is fused with 'S:' and not counted (gluedFirstWord: 'include' counts it)", { field });
        }
      }
      nuggets.push({
        turn: systemTurn,
        end: offset + covered[covered.length - 1]! + 1,
        length: covered.length,
        level: nug.level,
        groups: nug.groups ?? {},
      });
      origins.push({ turnIndex: i, nuggetIndex: j });
    });
    offset += words.length;
  });
  return { nuggets, origins, totalWords: offset };
}

const ENDS_IN_WORD_CHAR = /[\p{L}\p{M}\p{N}]$/u;
const STARTS_WITH_WORD_CHAR = /^[\p{L}\p{M}\p{N}]/u;

/**
 * Indices of the words covered by the first occurrence of `needle` in `text` that does not cut a run of
 * letters/digits at either end and touches no claimed word. Whitespace inside the needle matches any
 * whitespace run. Searching past claimed words lets two nuggets with the same text take successive
 * occurrences.
 */
function locate(text: string, words: readonly WordSpan[], needle: string, claimed: ReadonlySet<number>, minStart: number): number[] | undefined {
  const tokens = needle.trim().split(/\s+/u).filter((t) => t !== '');
  if (tokens.length === 0) return undefined;
  const re = new RegExp(tokens.map(escapeRegExp).join('\\s+'), 'gu');
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    re.lastIndex = start + 1;
    if (start < minStart) continue; // inside the role marker itself
    if (cutsWord(text, start) || cutsWord(text, end)) continue;
    const covered: number[] = [];
    words.forEach((w, k) => {
      if (w.start < end && w.end > start) covered.push(k);
    });
    if (covered.some((k) => claimed.has(k))) continue;
    return covered;
  }
  return undefined;
}

/** True if a boundary at `pos` would split letters/digits on both sides. */
function cutsWord(text: string, pos: number): boolean {
  if (pos <= 0 || pos >= text.length) return false;
  // Two UTF-16 units on each side so that a surrogate pair is read as one character.
  return ENDS_IN_WORD_CHAR.test(text.slice(Math.max(0, pos - 2), pos)) && STARTS_WITH_WORD_CHAR.test(text.slice(pos, pos + 2));
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}
