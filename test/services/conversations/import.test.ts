/**
 * Importing conversations JSONL: the R112 ORG conversation of the GFRC fixture gives the same word
 * positions and GFRC2 / GFRC as `fairground eval gfrc2` on that file (and the paper's Tables 2, 3, 5);
 * malformed files are refused with file:line:field and leave the workspace as it was; an export
 * imports back to the same set.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { evalGfrc2Command } from '../../../src-main/cli/commands/evalGfrc2';
import { ConversationsService } from '../../../src-main/services/conversations/conversationsService';
import { openWorkspace, type Workspace } from '../../../src-main/store/workspace';
import { runCliCaptured } from '../../support/cli';

const FIXTURE = path.join(process.cwd(), 'test', 'fixtures', 'gfrc', 'r112-org-conversation.json');
const dir = mkdtempSync(path.join(tmpdir(), 'fairground-conv-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let ws: Workspace;
let svc: ConversationsService;
beforeEach(() => {
  ws?.close();
  ws = openWorkspace(':memory:');
  svc = new ConversationsService(ws.db);
});

interface Fixture {
  L: number;
  l_max: number;
  attribute_sets: { name: string; kind: 'nominal' | 'ordinal'; measure: 'jsd' | 'rnod'; target: number[] }[];
  conversation: { role: 'user' | 'system'; text: string; nuggets?: unknown[] }[];
}
const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Fixture;
const GROUPS: Record<string, string[]> = { PRONOUN: ['he', 'she', 'other'], HINDEX: ['G1', 'G2', 'G3', 'G4'] };

/** The fixture's conversation as one JSONL line, the set described on the first line. */
function r112Jsonl(): string {
  const header = { conversation_set: { L: fixture.L, l_max: fixture.l_max, attribute_sets: fixture.attribute_sets.map((a) => ({ ...a, groups: GROUPS[a.name]! })) } };
  return `${JSON.stringify(header)}\n${JSON.stringify({ id: 'R112-ORG', topic: 'R112', run: 'ORG-CS-D-MN-1', turns: fixture.conversation })}\n`;
}

function message(f: () => unknown): string {
  try {
    f();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected an error');
}

describe('conversation import', () => {
  it('gives the R112 ORG conversation the same nuggets and scores as `eval gfrc2` on the fixture', async () => {
    const report = svc.importText({ setName: 'fairweb' }, { name: 'r112.jsonl', content: r112Jsonl() });
    expect(report).toMatchObject({ createdSet: true, conversations: 1, turns: 4, nuggets: 5, attributeSetsFrom: 'file' });
    const conv = svc.repo.listConversations(report.setId)[0]!;
    const detail = svc.getConversation(conv.id);
    // Fig. 3: the nuggets sit at words 37-39, 40-42, 43-45, 103-105 and 106-108.
    expect(detail.nuggets.map((n) => [n.wordStart, n.wordEnd, n.systemTurn])).toEqual([
      [37, 39, 1],
      [40, 42, 1],
      [43, 45, 1],
      [103, 105, 2],
      [106, 108, 2],
    ]);
    expect(detail.nuggets[3]!.text).toBe('Andrew Ng https://scholar.google.com/citations?user=mG4imMEAAAAJ');

    const cli = await runCliCaptured(['eval', 'gfrc2', '--input', FIXTURE], { cwd: dir, commands: [evalGfrc2Command] });
    expect(cli.code).toBe(0);
    const expected = JSON.parse(cli.stdout) as { clusters: { wc: number; GNP: number; Experience: number }[]; EGNP: number; EGF: Record<string, number>; GFRC2: number; GFRC: { R: number; GF: Record<string, number>; GFRC: number } };
    const scores = svc.evaluateConversation(conv.id);
    expect(scores.problems).toEqual([]);
    expect(scores.gfrc2!.GFRC2).toBe(expected.GFRC2);
    expect(scores.gfrc2!.EGNP).toBe(expected.EGNP);
    expect(scores.gfrc2!.EGF).toEqual(expected.EGF);
    expect(scores.gfrc2!.clusters.map((c) => [c.wc, c.GNP, c.Experience])).toEqual(expected.clusters.map((c) => [c.wc, c.GNP, c.Experience]));
    expect({ R: scores.gfrc!.R, GF: scores.gfrc!.GF, GFRC: scores.gfrc!.GFRC }).toEqual(expected.GFRC);
    // Table 3 and Table 5 (ORG) at the printed precision
    expect(scores.gfrc2!.GFRC2.toFixed(6)).toBe('0.002038');
    expect(scores.gfrc2!.EGNP.toFixed(6)).toBe('0.001175');
    expect(scores.gfrc!.GFRC.toFixed(6)).toBe('0.362287');

    // The set's `eval gfrc2` export is an input the CLI scores the same.
    const [exported] = svc.exportGfrcInputs({ conversationId: conv.id });
    writeFileSync(path.join(dir, exported!.fileName), exported!.content);
    const again = await runCliCaptured(['eval', 'gfrc2', '--input', exported!.fileName], { cwd: dir, commands: [evalGfrc2Command] });
    expect(JSON.parse(again.stdout)).toEqual(expected);
  });

  it('exports JSONL that imports back to the same conversations and nuggets', () => {
    const first = svc.importText({ setName: 'a' }, { name: 'r112.jsonl', content: r112Jsonl() });
    const exported = svc.exportJsonl(first.setId);
    expect(exported.fileName).toBe('a.jsonl');
    const second = svc.importText({ setName: 'b' }, { name: exported.fileName, content: exported.content });
    expect(second.attributeSetsFrom).toBe('file');
    const strip = (id: number) => {
      const [c] = svc.repo.listConversations(id);
      const d = svc.getConversation(c!.id);
      return { turns: d.turns, nuggets: d.nuggets.map(({ id: _i, conversationId: _c, updatedAt: _u, ...n }) => n), attributeSets: d.set.attributeSets, L: d.set.L };
    };
    expect(strip(second.setId)).toEqual(strip(first.setId));
    expect(svc.exportJsonl(second.setId).content.split('\n').slice(1)).toEqual(exported.content.split('\n').slice(1));
  });

  it('places a nugget given by offsets exactly, where its text alone would take the first occurrence', () => {
    const text = 'Two cats: a cat here and a cat there.';
    const second = text.lastIndexOf('a cat');
    const line = { id: 'c', turns: [{ role: 'user', text: 'Cats?' }, { role: 'system', text, nuggets: [{ text: 'a cat', start: second, end: second + 5, level: 1, groups: { G: 'x' } }] }] };
    const header = { conversation_set: { L: 100, l_max: 2, attribute_sets: [{ name: 'G', kind: 'nominal', groups: ['x', 'y'] }] } };
    const r = svc.importText({ setName: 's' }, { name: 'f.jsonl', content: `${JSON.stringify(header)}\n${JSON.stringify(line)}\n` });
    const n = svc.getConversation(svc.repo.listConversations(r.setId)[0]!.id).nuggets[0]!;
    // U:Cats? (1) | S:Two cats: a cat here and a(8) cat(9) there.
    expect([n.start, n.end, n.wordStart, n.wordEnd, n.groups]).toEqual([second, second + 5, 8, 9, { G: [1, 0] }]);
  });

  it('infers nominal attribute sets with uniform targets when the file does not describe them', () => {
    const lines = [
      { id: '1', run: 'A', topic: 't', turns: [{ role: 'system', text: 'Hello there alpha beta', nuggets: [{ text: 'alpha', level: 1, groups: { SIDE: 'left', K: [1, 0, 0] } }] }] },
      { id: '2', run: 'B', topic: 't', turns: [{ role: 'system', text: 'Hello there gamma', nuggets: [{ text: 'gamma', level: 2, groups: { SIDE: 'right', K: [0, 1, 0] } }] }] },
    ];
    const r = svc.importText({ setName: 'inferred' }, { name: 'f.jsonl', content: lines.map((l) => JSON.stringify(l)).join('\n') });
    expect(r.attributeSetsFrom).toBe('inferred');
    expect(r.notes[0]).toBe('attribute sets inferred from the nuggets (nominal, uniform target, JSD): SIDE [left, right]; K [G1, G2, G3]');
    expect(svc.getSet(r.setId)).toMatchObject({
      L: 1000,
      lMax: 2,
      attributeSets: [
        { name: 'SIDE', kind: 'nominal', groups: ['left', 'right'], target: [0.5, 0.5], measure: 'jsd' },
        { name: 'K', kind: 'nominal', groups: ['G1', 'G2', 'G3'], measure: 'jsd' },
      ],
    });
    // An attribute set added later has no memberships yet: the conversations are reported, not scored.
    svc.putAttributeSet(r.setId, { name: 'AGE', kind: 'ordinal', groups: ['old', 'new'] });
    const first = svc.repo.listConversations(r.setId)[0]!.id;
    expect(svc.evaluateConversation(first)).toMatchObject({ gfrc2: null, gfrc: null });
    expect(svc.evaluateConversation(first).problems[0]).toMatch(/^nugget #1 \(words 3-3\): groups\.AGE: missing/);
    // Mixed forms cannot be inferred.
    const mixed = [lines[0], { ...lines[1], turns: [{ ...lines[1]!.turns[0], nuggets: [{ text: 'gamma', level: 2, groups: { SIDE: [0, 1] } }] }] }];
    expect(message(() => svc.importText({ setName: 'x' }, { name: 'm.jsonl', content: mixed.map((l) => JSON.stringify(l)).join('\n') }))).toMatch(
      /^m\.jsonl:2: turns\[0\]\.nuggets\[0\]\.groups\.SIDE: 'SIDE' is given as labels elsewhere and as a vector here/,
    );
  });

  it('takes a nugget given by offsets alone (issue 34 item 8g): its text is the turn’s characters start..end', () => {
    const header = JSON.stringify({ conversation_set: { L: 1000, l_max: 2, attribute_sets: [{ name: 'G', kind: 'nominal', groups: ['a', 'b'] }] } });
    const turns = (nuggets: unknown[]) => [{ role: 'user', text: 'q' }, { role: 'system', text: 'alpha beta gamma delta', nuggets }];
    // 'alpha beta gamma delta': characters 6-16 are 'beta gamma'; after "U:q" (word 1), "S:alpha" is word 2, so the nugget is words 3-4.
    const byOffsets = svc.importText({ setName: 'offsets' }, { name: 'o.jsonl', content: `${header}\n${JSON.stringify({ id: 'c', turns: turns([{ start: 6, end: 16, level: 2, groups: { G: 'a' } }]) })}\n` });
    const byText = svc.importText({ setName: 'text' }, { name: 't.jsonl', content: `${header}\n${JSON.stringify({ id: 'c', turns: turns([{ text: 'beta gamma', level: 2, groups: { G: 'a' } }]) })}\n` });
    const nuggets = (setId: number) => svc.getConversation(svc.repo.listConversations(setId)[0]!.id).nuggets.map((n) => [n.wordStart, n.wordEnd, n.level]);
    expect(nuggets(byOffsets.setId)).toEqual([[3, 4, 2]]);
    expect(nuggets(byText.setId)).toEqual(nuggets(byOffsets.setId));
    // The export writes the derived text beside the offsets, and reads back to the same set.
    const exported = svc.exportJsonl(byOffsets.setId).content;
    const line = JSON.parse(exported.trim().split('\n')[1]!) as { turns: { nuggets?: { text: string; start: number; end: number }[] }[] };
    expect(line.turns[1]!.nuggets![0]).toMatchObject({ text: 'beta gamma', start: 6, end: 16 });
    const again = svc.importText({ setName: 'again' }, { name: 'e.jsonl', content: exported });
    expect(nuggets(again.setId)).toEqual([[3, 4, 2]]);
  });

  describe('malformed files', () => {
    const header = JSON.stringify({ conversation_set: { L: 1000, l_max: 2, attribute_sets: [{ name: 'G', kind: 'nominal', groups: ['a', 'b'] }] } });
    const good = JSON.stringify({ id: 'ok', turns: [{ role: 'user', text: 'q' }, { role: 'system', text: 'one two three', nuggets: [{ text: 'two', level: 2, groups: { G: 'a' } }] }] });
    const conv = (nuggets: unknown[], extra: Record<string, unknown> = {}) =>
      JSON.stringify({ id: 'x', turns: [{ role: 'user', text: 'q' }, { role: 'system', text: 'alpha beta gamma delta', nuggets }], ...extra });
    const cases: [string, string, string][] = [
      ['invalid JSON', `${header}\n${good}\n{"id": "x", "turns": [}\n`, 'bad.jsonl:3: invalid JSON'],
      ['a missing field', `${header}\n${good}\n\n${JSON.stringify({ id: 'x' })}\n`, 'bad.jsonl:4: turns: '],
      ['a bad role', `${header}\n${JSON.stringify({ id: 'x', turns: [{ role: 'bot', text: 'hi' }] })}\n`, 'bad.jsonl:2: turns[0].role: '],
      ['a level above l_max', `${header}\n${good}\n${conv([{ text: 'beta', level: 3, groups: { G: 'a' } }])}\n`, 'bad.jsonl:3: turns[1].nuggets[0].level: must be an integer from 0 to l_max = 2, got 3'],
      ['an unknown group', `${header}\n${conv([{ text: 'beta', level: 1, groups: { G: 'c' } }])}\n`, "bad.jsonl:2: turns[1].nuggets[0].groups.G: unknown group 'c' (G has 'a', 'b')"],
      ['a missing membership', `${header}\n${conv([{ text: 'beta', level: 1 }])}\n`, 'bad.jsonl:2: turns[1].nuggets[0].groups.G: missing'],
      ['a vector of the wrong size', `${header}\n${conv([{ text: 'beta', level: 1, groups: { G: [1, 0, 0] } }])}\n`, 'bad.jsonl:2: turns[1].nuggets[0].groups.G: expected 2 values'],
      ['text not in the turn', `${header}\n${conv([{ text: 'epsilon', level: 0 }])}\n`, "bad.jsonl:2: turns[1].nuggets[0].text: nugget text not found in the turn: 'epsilon'"],
      ['overlapping offsets', `${header}\n${conv([{ text: 'beta gamma', level: 0 }, { text: 'gamma', start: 11, end: 16, level: 0 }])}\n`, "bad.jsonl:2: turns[1].nuggets[1]: overlaps the nugget 'beta gamma' (words 3-4)"],
      ['offsets that do not match the text', `${header}\n${conv([{ text: 'beta', start: 0, end: 5, level: 0 }])}\n`, "bad.jsonl:2: turns[1].nuggets[0].text: does not match characters 0-5 of the turn ('alpha')"],
      // Issue 34 item 8g: a nugget may be given by offsets alone; without text and offsets, or with offsets outside the turn, file/line/field.
      ['neither text nor offsets', `${header}\n${conv([{ level: 0 }])}\n`, "bad.jsonl:2: turns[1].nuggets[0].text: required: the nugget's text, or its character offsets start and end in the turn's text"],
      ['offsets alone, end past the turn', `${header}\n${conv([{ start: 6, end: 99, level: 0 }])}\n`, "bad.jsonl:2: turns[1].nuggets[0].end: must be after start (6) and within the turn's 22 characters, got 99"],
      ['offsets alone, start past the turn', `${header}\n${conv([{ start: 22, end: 23, level: 0 }])}\n`, "bad.jsonl:2: turns[1].nuggets[0].start: must be within the turn's 22 characters (0 to 21), got 22"],
      ['offsets alone on white space', `${header}\n${conv([{ start: 5, end: 6, level: 0 }])}\n`, 'bad.jsonl:2: turns[1].nuggets[0].start: characters 5-6 of the turn are white space only'],
      ['offsets alone, only start', `${header}\n${conv([{ start: 5, level: 0 }])}\n`, "bad.jsonl:2: turns[1].nuggets[0].text: required: the nugget's text, or its character offsets"],
      ['a nugget in a user turn', `${header}\n${JSON.stringify({ id: 'x', turns: [{ role: 'user', text: 'q w', nuggets: [{ text: 'w', level: 1 }] }] })}\n`, 'bad.jsonl:2: turns[0].nuggets: nuggets are only allowed in system turns'],
      ['a duplicate id', `${header}\n${good}\n${good}\n`, "bad.jsonl:3: id: conversation 'ok' already appears on line 2"],
      ['a bad set description', `${JSON.stringify({ conversation_set: { L: 0, l_max: 2, attribute_sets: [] } })}\n${good}\n`, 'bad.jsonl:1: conversation_set.L: '],
      ['a target that is not a distribution', `${JSON.stringify({ conversation_set: { L: 9, l_max: 2, attribute_sets: [{ name: 'G', kind: 'nominal', groups: ['a', 'b'], target: [0.9, 0.9] }] } })}\n${good}\n`, 'bad.jsonl:1: conversation_set.attribute_sets[0].target: values sum to 1.8, not 1'],
    ];
    it.each(cases)('%s: names file, line and field, and writes nothing', (_what, content, expected) => {
      svc.importText({ setName: 'kept' }, { name: 'first.jsonl', content: `${header}\n${good}\n` });
      const before = svc.exportJsonl(svc.findSet('kept')!.id).content;
      expect(message(() => svc.importText({ setName: 'new' }, { name: 'bad.jsonl', content }))).toContain(expected);
      if (!expected.startsWith('bad.jsonl:1:')) {
        // into an existing set (whose description wins over the file's first line)
        expect(message(() => svc.importText({ setName: 'kept' }, { name: 'bad.jsonl', content: content.replaceAll('"id":"ok"', '"id":"other"') }))).toMatch(/^bad\.jsonl:\d+: /);
      }
      expect(svc.listSets().map((s) => s.name)).toEqual(['kept']);
      expect(svc.exportJsonl(svc.findSet('kept')!.id).content).toBe(before);
    });

    it('refuses a conversation id the set already has', () => {
      svc.importText({ setName: 'kept' }, { name: 'first.jsonl', content: `${header}\n${good}\n` });
      expect(message(() => svc.importText({ setName: 'kept' }, { name: 'again.jsonl', content: `${good}\n` }))).toBe("again.jsonl:1: id: conversation 'ok' is already in the set");
    });
  });
});
