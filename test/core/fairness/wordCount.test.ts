import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { nuggetsFromConversation, type ConversationTurn } from '../../../src-main/core/fairness/conversationNuggets';
import { conversationWordCount, prefixedTurnText, turnWordCounts, wordSpans } from '../../../src-main/core/fairness/wordCount';
import { org } from './r112';

const orgConversation = (): ConversationTurn[] =>
  (JSON.parse(readFileSync(new URL('../../fixtures/gfrc/r112-org-conversation.json', import.meta.url), 'utf8')) as { conversation: ConversationTurn[] }).conversation;

describe('word counting', () => {
  it('glues the role marker to the first word and splits on any whitespace', () => {
    expect(prefixedTurnText({ role: 'system', text: '  Hello\n world' })).toBe('S:Hello\n world');
    expect(wordSpans('U:a  b\tc\n')).toEqual([{ start: 0, end: 3 }, { start: 5, end: 6 }, { start: 7, end: 8 }]);
    expect(turnWordCounts([{ role: 'user', text: 'More please.' }, { role: 'system', text: 'Sure!' }])).toEqual([2, 1]);
  });

  it('counts an empty turn as its bare marker and an empty conversation as 0 words', () => {
    expect(turnWordCounts([{ role: 'system', text: '' }])).toEqual([1]);
    expect(conversationWordCount([])).toBe(0);
  });

  it('counts ORG\'s Fig. 3 conversation: "S:Here" is word 24 and "S:Sure!" word 87', () => {
    const turns = orgConversation();
    // 23 + 61 + 2 = 86 words before the second system turn; its 13th word, "Pieter", is word 100.
    expect(turnWordCounts(turns)).toEqual([23, 61, 2, 43]);
    expect(conversationWordCount(turns)).toBe(129);
  });
});

describe('nuggetsFromConversation', () => {
  it('places ORG\'s nuggets at the words of Fig. 3 (37-39, 40-42, 43-45, 103-105, 106-108)', () => {
    const { nuggets, origins, totalWords } = nuggetsFromConversation(orgConversation());
    expect(nuggets).toEqual(org().nuggets);
    expect(origins).toEqual([
      { turnIndex: 1, nuggetIndex: 0 },
      { turnIndex: 1, nuggetIndex: 1 },
      { turnIndex: 1, nuggetIndex: 2 },
      { turnIndex: 3, nuggetIndex: 0 },
      { turnIndex: 3, nuggetIndex: 1 },
    ]);
    expect(totalWords).toBe(129);
  });

  const bengio: ConversationTurn[] = [
    { role: 'user', text: 'Who?' },
    { role: 'system', text: 'Yoshua Bengio https://x.org/yb and others.', nuggets: [{ text: 'Yoshua Bengio https://x.org/yb', level: 2 }] },
  ];

  it('leaves the word fused with "S:" out of a nugget that starts the turn, unless asked to include it (fn. 11)', () => {
    // U:Who?(1) S:Yoshua(2) Bengio(3) https://x.org/yb(4)
    expect(nuggetsFromConversation(bengio).nuggets[0]).toMatchObject({ turn: 1, end: 4, length: 2 });
    expect(nuggetsFromConversation(bengio, { gluedFirstWord: 'include' }).nuggets[0]).toMatchObject({ end: 4, length: 3 });
  });

  it('rejects a nugget that is nothing but the fused first word', () => {
    const turns: ConversationTurn[] = [{ role: 'system', text: 'Yes indeed', nuggets: [{ text: 'Yes', level: 1 }] }];
    expect(() => nuggetsFromConversation(turns)).toThrow(/conversation\[0\]\.nuggets\[0\]\.text: the nugget is only the turn's first word/);
    expect(nuggetsFromConversation(turns, { gluedFirstWord: 'include' }).nuggets[0]).toMatchObject({ end: 1, length: 1 });
  });

  it('matches across different whitespace, swallows trailing punctuation, and gives repeated texts successive occurrences', () => {
    const turns: ConversationTurn[] = [
      { role: 'system', text: 'Try Ada  Lovelace, then\nAda Lovelace.', nuggets: [{ text: 'Ada Lovelace', level: 1 }, { text: 'Ada\nLovelace', level: 2 }] },
    ];
    // S:Try(1) Ada(2) Lovelace,(3) then(4) Ada(5) Lovelace.(6)
    expect(nuggetsFromConversation(turns).nuggets.map((n) => [n.end, n.length, n.level])).toEqual([
      [3, 2, 1],
      [6, 2, 2],
    ]);
  });

  it('does not match inside a word', () => {
    const turns: ConversationTurn[] = [{ role: 'system', text: 'Lisa and Li', nuggets: [{ text: 'Li', level: 1 }] }];
    expect(nuggetsFromConversation(turns).nuggets[0]).toMatchObject({ end: 3, length: 1 });
  });

  it('numbers nuggets by system turn and keeps L0 nuggets', () => {
    const turns: ConversationTurn[] = [
      { role: 'user', text: 'q' },
      { role: 'system', text: 'a b', nuggets: [{ text: 'b', level: 0 }] },
      { role: 'user', text: 'more' },
      { role: 'system', text: 'c d', nuggets: [{ text: 'd', level: 1, groups: { G: [1, 0] } }] },
    ];
    expect(nuggetsFromConversation(turns).nuggets).toEqual([
      { turn: 1, end: 3, length: 1, level: 0, groups: {} },
      { turn: 2, end: 6, length: 1, level: 1, groups: { G: [1, 0] } },
    ]);
  });

  it('names conversation[i].nuggets[j].text when a nugget is not in its turn', () => {
    const turns: ConversationTurn[] = [
      { role: 'user', text: 'Geoffrey Hinton?' },
      { role: 'system', text: 'Yann LeCun', nuggets: [{ text: 'LeCun', level: 2 }, { text: 'Geoffrey Hinton', level: 2 }] },
    ];
    try {
      nuggetsFromConversation(turns);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(DataError);
      expect((err as DataError).field).toBe('conversation[1].nuggets[1].text');
      expect((err as DataError).message).toMatch(/not found in the turn/);
    }
  });

  it('rejects a second nugget that only fits inside an earlier one', () => {
    const turns: ConversationTurn[] = [{ role: 'system', text: 'x Yoshua Bengio', nuggets: [{ text: 'Yoshua Bengio', level: 2 }, { text: 'Bengio', level: 2 }] }];
    expect(() => nuggetsFromConversation(turns)).toThrow(/nuggets\[1\]\.text: nugget text not found in the turn \(outside the words of its earlier nuggets\)/);
  });

  it('rejects nuggets in user turns', () => {
    const turns: ConversationTurn[] = [{ role: 'user', text: 'a', nuggets: [{ text: 'a', level: 1 }] }];
    expect(() => nuggetsFromConversation(turns)).toThrow(/conversation\[0\]\.nuggets: nuggets are only allowed in system turns/);
  });

  it('an empty conversation has no nuggets', () => {
    expect(nuggetsFromConversation([])).toEqual({ nuggets: [], origins: [], totalWords: 0 });
  });
});
