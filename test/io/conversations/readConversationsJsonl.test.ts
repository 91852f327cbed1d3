import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseConversationsJsonl, readConversationsJsonlFile } from '../../../src-main/io/conversations/readConversationsJsonl';
import { formatConversationsJsonl } from '../../../src-main/io/conversations/writeConversationsJsonl';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-conv-jsonl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const conv = { id: 'c1', topic: 'T', run: 'R', turns: [{ role: 'user', text: 'q' }, { role: 'system', text: 'a b', nuggets: [{ text: 'b', level: 1, groups: { G: 'x' } }] }] };
const header = { conversation_set: { L: 50, l_max: 3, attribute_sets: [{ name: 'G', kind: 'ordinal' as const, groups: ['x', 'y'] }] } };

function error(text: string): string {
  try {
    parseConversationsJsonl(text, 'f.jsonl');
  } catch (err) {
    return (err as Error).message;
  }
  return 'no error';
}

describe('conversations JSONL', () => {
  it('reads the optional set line and one conversation per line, skipping blank lines and a BOM', () => {
    const file = parseConversationsJsonl(`\uFEFF${JSON.stringify(header)}\r\n\r\n${JSON.stringify(conv)}\n${JSON.stringify({ ...conv, id: 7, topic: 3 })}`, 'f.jsonl');
    expect(file.header).toEqual(header.conversation_set);
    expect(file.conversations.map((c) => [c.line, c.conversation.id, c.conversation.topic])).toEqual([
      [3, 'c1', 'T'],
      [4, '7', '3'],
    ]);
  });

  it('names the line and field of the first problem', () => {
    expect(error(`${JSON.stringify(conv)}\n{"id": 1,}`)).toMatch(/^f\.jsonl:2: invalid JSON: /);
    expect(error(JSON.stringify({ ...conv, extra: 1 }))).toMatch(/^f\.jsonl:1: Unrecognized key: "extra"/);
    expect(error(JSON.stringify({ ...conv, turns: [] }))).toBe('f.jsonl:1: turns: a conversation needs at least one turn');
    expect(error(JSON.stringify({ ...conv, turns: [{ role: 'system', text: 'a', nuggets: [{ text: ' ', level: 1 }] }] }))).toBe('f.jsonl:1: turns[0].nuggets[0].text: must not be empty');
    expect(error(`${JSON.stringify(conv)}\n${JSON.stringify(header)}`)).toBe('f.jsonl:2: conversation_set: the set description must be the first line');
    expect(error(JSON.stringify({ turns: conv.turns }))).toBe('f.jsonl:1: id: required: the conversation id');
    expect(error(JSON.stringify(header))).toBe('f.jsonl: no conversations in the file');
    expect(error(JSON.stringify({ conversation_set: { ...header.conversation_set, attribute_sets: [{ name: 'G', kind: 'ordinal', groups: ['x'] }] } }))).toBe(
      'f.jsonl:1: conversation_set.attribute_sets[0].groups: an attribute set needs at least 2 groups',
    );
  });

  it('reads files, refusing invalid UTF-8 with its line', () => {
    const good = path.join(dir, 'good.jsonl');
    writeFileSync(good, formatConversationsJsonl(header.conversation_set, [conv as never]));
    expect(readConversationsJsonlFile(good).conversations).toHaveLength(1);
    const bad = path.join(dir, 'bad.jsonl');
    writeFileSync(bad, Buffer.concat([Buffer.from(`${JSON.stringify(conv)}\n{"id": "`), Buffer.from([0xff]), Buffer.from('"}\n')]));
    expect(() => readConversationsJsonlFile(bad)).toThrow(`${bad}:2: invalid UTF-8`);
    expect(() => readConversationsJsonlFile(path.join(dir, 'none.jsonl'))).toThrow(/none\.jsonl: cannot read file \(ENOENT\)/);
  });
});
