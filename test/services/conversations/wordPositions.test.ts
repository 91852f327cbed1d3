import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { nuggetsFromConversation } from '../../../src-main/core/fairness/conversationNuggets';
import { conversationLayout, placeNugget } from '../../../src-main/services/conversations/wordPositions';

// U:What  is  up?  |  S:Yoshua  Bengio  https://x  and  Ng.
//   1      2   3        4        5       6          7    8
const turns = [
  { role: 'user' as const, text: 'What is up?' },
  { role: 'system' as const, text: '  Yoshua Bengio https://x\n\nand  Ng.' },
];

describe('word positions of a stored conversation', () => {
  it('counts words as FairWeb-2 (role marker glued, 1-based over the conversation) and maps them to the turn text', () => {
    const layout = conversationLayout(turns);
    expect(layout.map((t) => [t.role, t.systemTurn])).toEqual([
      ['user', null],
      ['system', 1],
    ]);
    expect(layout[0]!.words).toEqual([
      { start: 0, end: 4, wc: 1 },
      { start: 5, end: 7, wc: 2 },
      { start: 8, end: 11, wc: 3 },
    ]);
    const text = turns[1]!.text;
    expect(layout[1]!.words.map((w) => [text.slice(w.start, w.end), w.wc])).toEqual([
      ['Yoshua', 4], // "S:Yoshua" — leading whitespace dropped, marker glued
      ['Bengio', 5],
      ['https://x', 6],
      ['and', 7],
      ['Ng.', 8],
    ]);
  });

  it('places a span by the words it touches, snapped to whole words', () => {
    const layout = conversationLayout(turns);
    const text = turns[1]!.text;
    // "ngio https" touches Bengio and https://x
    const p = placeNugget(layout, 1, text.indexOf('ngio'), text.indexOf('https') + 5, 'exclude', text.length);
    expect(p).toEqual({ systemTurn: 1, start: text.indexOf('Bengio'), end: text.indexOf('\n'), wordEnd: 6, wordLength: 2 });
  });

  it("leaves the word glued to 'S:' out of a nugget that starts the turn, unless the set includes it (fn. 11)", () => {
    const layout = conversationLayout(turns);
    const text = turns[1]!.text;
    const start = text.indexOf('Yoshua');
    const end = text.indexOf('\n');
    expect(placeNugget(layout, 1, start, end, 'exclude', text.length)).toMatchObject({ start, end, wordEnd: 6, wordLength: 2 });
    expect(placeNugget(layout, 1, start, end, 'include', text.length)).toMatchObject({ start, end, wordEnd: 6, wordLength: 3 });
    expect(() => placeNugget(layout, 1, start, start + 3, 'exclude', text.length)).toThrow(/only the turn's first word/);
    // and agrees with core's counting of the same nugget given by text
    for (const glued of ['exclude', 'include'] as const) {
      const core = nuggetsFromConversation([turns[0]!, { ...turns[1]!, nuggets: [{ text: 'Yoshua Bengio https://x', level: 2 }] }], { gluedFirstWord: glued });
      const mine = placeNugget(layout, 1, start, end, glued, text.length);
      expect([mine.wordEnd, mine.wordLength]).toEqual([core.nuggets[0]!.end, core.nuggets[0]!.length]);
    }
  });

  it('refuses user turns, spans without words and spans outside the text, naming the field', () => {
    const layout = conversationLayout(turns);
    const text = turns[1]!.text;
    const err = (f: () => unknown): (string | undefined)[] | undefined => {
      try {
        f();
      } catch (e) {
        if (e instanceof DataError) return [e.field, e.reason];
        throw e;
      }
      return undefined;
    };
    expect(err(() => placeNugget(layout, 0, 0, 4, 'exclude', 11))).toEqual(['turn', 'nuggets are only allowed in system turns']);
    expect(err(() => placeNugget(layout, 1, text.indexOf('\n'), text.indexOf('and'), 'exclude', text.length))).toEqual(['start', 'the selection contains no words']);
    expect(err(() => placeNugget(layout, 1, 5, 99, 'exclude', text.length))?.[0]).toBe('end');
    expect(err(() => placeNugget(layout, 3, 0, 1, 'exclude', 1))?.[0]).toBe('turn');
  });
});
