/**
 * Marking nuggets as the annotation screen does: spans of system turns snapped to whole words,
 * levels and memberships checked as `eval gfrc2` checks them, overlaps refused with a message that
 * names the other nugget, edits and deletes, and the scores recomputed from what is stored.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiFailure } from '../../../src-main/api/router';
import { DataError } from '../../../src-main/core/errors';
import { ConversationsService } from '../../../src-main/services/conversations/conversationsService';
import { openWorkspace, type Workspace } from '../../../src-main/store/workspace';

let ws: Workspace;
let svc: ConversationsService;
let conversationId: number;
let setId: number;
// U:q (1) | S:alpha (2) beta (3) gamma (4) delta (5)
const TEXT = 'alpha beta gamma delta';
const at = (word: string) => [TEXT.indexOf(word), TEXT.indexOf(word) + word.length] as const;

beforeEach(() => {
  ws?.close();
  ws = openWorkspace(':memory:');
  svc = new ConversationsService(ws.db);
  const set = svc.createSet({ name: 'hand', L: 10, lMax: 2, attributeSets: [{ name: 'G', kind: 'nominal', groups: ['a', 'b'] }] });
  setId = set.id;
  const line = { id: 'r1/t1', run: 'r1', topic: 't1', turns: [{ role: 'user', text: 'q' }, { role: 'system', text: TEXT }] };
  svc.importText({ setName: 'hand' }, { name: 'c.jsonl', content: JSON.stringify(line) });
  conversationId = svc.repo.listConversations(setId)[0]!.id;
});

function mark(word: string, level: number, group?: string) {
  const [start, end] = at(word);
  return svc.createNugget({ conversationId, turn: 1, start, end, level, ...(group ? { groups: { G: group } } : {}) });
}

function failure(f: () => unknown): { kind: string; field: string | undefined; message: string } {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiFailure) return { kind: err.code, field: err.field, message: err.message };
    if (err instanceof DataError) return { kind: 'invalid-data', field: err.field, message: err.reason };
    throw err;
  }
  throw new Error('expected a failure');
}

describe('nugget annotation', () => {
  it('marks nuggets and recomputes GFRC2 and GFRC by hand-computed values', () => {
    expect(svc.evaluateConversation(conversationId)).toMatchObject({ scoredNuggets: 0, problems: [], gfrc2: { clusters: [], GFRC2: 0 }, gfrc: { R: 0, GFRC: 0 } });
    const beta = mark('beta', 2, 'a');
    expect(beta).toMatchObject({ turn: 1, systemTurn: 1, text: 'beta', wordStart: 3, wordEnd: 3, wordLength: 1, level: 2, groups: { G: [1, 0] }, source: 'manual' });
    mark('delta', 1, 'b');
    const s = svc.evaluateConversation(conversationId);
    // wc = 3: GNP = 2·1/(2 + 2) = 0.5; D = (1, 0): JSD against (½, ½) = ½(log2 4/3) + ½(½ log2 2/3 + ½) = 0.311278125
    // wc = 5: GWCrel = 3, WCnonrel = 3, GNP = 0.5; D = (½, ½): DistrSim = 1
    expect(s.gfrc2!.clusters.map((c) => [c.wc, c.GWCrel, c.WCnonrel, c.GNP])).toEqual([
      [3, 2, 2, 0.5],
      [5, 3, 3, 0.5],
    ]);
    const sim = 1 - 0.5 * (Math.log2(4 / 3) + 0.5 * Math.log2(2 / 3) + 0.5); // 0.688722
    expect(s.gfrc2!.clusters[0]!.DistrSim.G).toBeCloseTo(sim, 12);
    expect(s.gfrc2!.clusters[0]!.Experience).toBeCloseTo((0.5 + sim) / 2, 12);
    expect(s.gfrc2!.EGNP).toBeCloseTo(0.1, 12);
    expect(s.gfrc2!.EGF.G).toBeCloseTo((sim + 1) / 10, 12);
    expect(s.gfrc2!.GFRC2).toBeCloseTo(((0.5 + sim) / 2 + 0.75) / 10, 12);
    expect(s.gfrc2!.GFRC2.toFixed(6)).toBe('0.134436');
    // R (Eq. 6) = 2/11 · (0.8 · 3/4 + 0.6 · 1/4) = 1.5/11; GF = 1 (one turn, D = (½, ½)); GFRC = (R + GF)/2
    expect(s.gfrc!.R).toBeCloseTo(1.5 / 11, 12);
    expect(s.gfrc!.GF.G).toBeCloseTo(1, 12);
    expect(s.gfrc!.GFRC).toBeCloseTo((1.5 / 11 + 1) / 2, 12);
    expect(svc.evaluateConversation(conversationId, 'eq7').gfrc!.R).toBeCloseTo((2 / 11) * (0.7 * 0.75 + 0.5 * 0.25), 12);
  });

  it('refuses overlapping nuggets with a message naming the other one', () => {
    const bg = svc.createNugget({ conversationId, turn: 1, start: TEXT.indexOf('beta'), end: TEXT.indexOf('gamma') + 5, level: 0 });
    expect(bg.text).toBe('beta gamma');
    // a selection that only touches 'gamma' is snapped to the whole word, which is taken
    const f = failure(() => svc.createNugget({ conversationId, turn: 1, start: TEXT.indexOf('mma'), end: TEXT.length, level: 0 }));
    expect(f).toEqual({ kind: 'conflict', field: 'start', message: "overlaps the nugget 'beta gamma' (words 3-4); nuggets must not overlap — delete or shrink that one first" });
    // touching is fine
    expect(mark('delta', 0).wordStart).toBe(5);
    // an edit that would overlap is refused too, and leaves the nugget as it was
    const d = svc.repo.nuggets(conversationId).find((n) => n.wordEnd === 5)!;
    expect(failure(() => svc.updateNugget({ nuggetId: d.id, start: TEXT.indexOf('gamma') })).kind).toBe('conflict');
    expect(svc.repo.getNugget(d.id)).toMatchObject({ start: TEXT.indexOf('delta'), end: TEXT.length });
  });

  it('checks levels, memberships and spans the way eval gfrc2 does', () => {
    expect(failure(() => mark('beta', 3, 'a'))).toMatchObject({ field: 'level', message: 'must be an integer from 0 to l_max = 2, got 3' });
    expect(failure(() => mark('beta', 1))).toMatchObject({ field: 'groups.G', message: 'missing: a relevant nugget needs a membership vector for every attribute set' });
    expect(failure(() => svc.createNugget({ conversationId, turn: 1, start: 6, end: 10, level: 1, groups: { G: [0.6, 0.6] } }))).toMatchObject({ field: 'groups.G', message: 'values sum to 1.2, not 1' });
    expect(failure(() => svc.createNugget({ conversationId, turn: 1, start: 6, end: 10, level: 1, groups: { H: 'a' } }))).toMatchObject({ field: 'groups.H' });
    expect(failure(() => svc.createNugget({ conversationId, turn: 0, start: 0, end: 1, level: 0 }))).toMatchObject({ field: 'turn', message: 'nuggets are only allowed in system turns' });
    expect(failure(() => mark('alpha', 1, 'a'))).toMatchObject({ field: 'start', message: "the nugget is only the turn's first word, which is glued to 'S:' and not counted in this set" });
    // soft memberships and L0 nuggets without groups are fine
    expect(svc.createNugget({ conversationId, turn: 1, start: 6, end: 10, level: 1, groups: { G: [0.25, 0.75] } }).groups).toEqual({ G: [0.25, 0.75] });
    expect(mark('gamma', 0).groups).toEqual({});
    expect(svc.repo.nuggets(conversationId)).toHaveLength(2);
  });

  it('edits and deletes nuggets; an edited suggestion becomes accepted and suggestions are not scored', () => {
    const n = svc.createNugget({ conversationId, turn: 1, start: 6, end: 10, level: 1, groups: { G: 'b' }, source: 'llm-suggested' });
    expect(svc.evaluateConversation(conversationId)).toMatchObject({ scoredNuggets: 0, suggestedNuggets: 1, gfrc2: { GFRC2: 0 } });
    const edited = svc.updateNugget({ nuggetId: n.id, level: 2, end: TEXT.indexOf('gamma') + 2 });
    expect(edited).toMatchObject({ text: 'beta gamma', wordStart: 3, wordEnd: 4, level: 2, groups: { G: [0, 1] }, source: 'accepted' });
    expect(svc.evaluateConversation(conversationId).gfrc2!.clusters.map((c) => c.GWCrel)).toEqual([4]);
    expect(svc.updateNugget({ nuggetId: n.id, groups: { G: 'a' } }).groups).toEqual({ G: [1, 0] });
    expect(svc.deleteNugget(n.id)).toBe(true);
    expect(failure(() => svc.deleteNugget(n.id)).kind).toBe('not-found');
    expect(svc.evaluateConversation(conversationId).scoredNuggets).toBe(0);
  });

  it('keeps attribute sets and L / l_max consistent with the stored nuggets', () => {
    mark('beta', 2, 'a');
    expect(failure(() => svc.updateSet(setId, { lMax: 1 }))).toMatchObject({ kind: 'conflict', field: 'lMax' });
    expect(svc.updateSet(setId, { L: 4 }).L).toBe(4);
    expect(svc.evaluateConversation(conversationId).gfrc2!.EGNP).toBeCloseTo(0.5 / 4, 12);
    expect(failure(() => svc.putAttributeSet(setId, { name: 'G', kind: 'nominal', groups: ['a', 'b', 'c'] })).kind).toBe('conflict');
    expect(svc.putAttributeSet(setId, { name: 'G', kind: 'nominal', groups: ['left', 'right'], target: [0.8, 0.2] }).attributeSets[0]).toEqual({ name: 'G', kind: 'nominal', groups: ['left', 'right'], target: [0.8, 0.2], measure: 'jsd' });
    expect(failure(() => svc.putAttributeSet(setId, { name: 'O', kind: 'ordinal', groups: ['x', 'y'], measure: 'jsd' })).message).toBe("an ordinal attribute set needs 'nmd' or 'rnod'");
    expect(failure(() => svc.putAttributeSet(setId, { name: 'Z', kind: 'nominal', groups: ['x', 'y'], target: [1] }))).toMatchObject({ field: 'attributeSet.target', message: 'expected 2 values (one per group), got 1' });
    expect(svc.deleteAttributeSet(setId, 'G').attributeSets).toEqual([]);
    expect(svc.repo.nuggets(conversationId)[0]!.groups).toEqual({});
    expect(svc.evaluateConversation(conversationId).gfrc2!.GFRC2).toBeCloseTo(0.5 / 4, 12); // M = 0: GFRC2 = EGNP
  });

  it('shows a conversation with its words, nuggets and neighbours', () => {
    mark('gamma', 1, 'a');
    const d = svc.getConversation(conversationId);
    expect(d.totalWords).toBe(5);
    expect(d.turns[1]).toMatchObject({ role: 'system', systemTurn: 1, words: [{ start: 0, end: 5, wc: 2 }, { start: 6, end: 10, wc: 3 }, { start: 11, end: 16, wc: 4 }, { start: 17, end: 22, wc: 5 }] });
    expect(d.nuggets.map((n) => n.text)).toEqual(['gamma']);
    expect([d.previousId, d.nextId]).toEqual([null, null]);
    expect(failure(() => svc.getConversation(999)).kind).toBe('not-found');
  });
});
