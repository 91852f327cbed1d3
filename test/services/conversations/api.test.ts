/**
 * The conversations API through the router: every method's request and response pass the contract
 * (the router validates both), and failures come back as typed errors with their field.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { conversationHandlers } from '../../../src-main/handlers/conversations';
import { createRouter, type Handlers } from '../../../src-main/api/router';
import { ConversationsService } from '../../../src-main/services/conversations/conversationsService';
import { loadDemoConversations } from '../../../src-main/services/conversations/demo';
import { openWorkspace } from '../../../src-main/store/workspace';

let call: (method: string, input: unknown) => Promise<{ ok: boolean; data?: unknown; error?: { code: string; message: string; field?: string; file?: string; line?: number } }>;
let setId: number;
const internal: unknown[] = [];

beforeAll(() => {
  const ws = openWorkspace(':memory:');
  const conversations = new ConversationsService(ws.db);
  setId = loadDemoConversations({ conversations }).setId;
  const router = createRouter(conversationHandlers({ conversations }) as unknown as Handlers, (e) => internal.push(e));
  call = (method, input) => router.call(method, input) as never;
});

const ok = async (method: string, input: unknown) => {
  const r = await call(method, input);
  if (!r.ok) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
  return r.data as Record<string, unknown> & unknown[];
};

describe('conversations API', () => {
  it('answers every method within the contract', async () => {
    expect(((await ok('conversations.sets.list', {})) as unknown[]).length).toBe(1);
    const got = await ok('conversations.sets.get', { setId });
    const conversations = got.conversations as { id: number; convId: string }[];
    expect(conversations.map((c) => c.convId)).toEqual(['balanced/D1', 'balanced/D2', 'balanced/D3', 'baseline/D1', 'baseline/D2', 'baseline/D3']);
    const id = conversations[0]!.id;
    const detail = await ok('conversations.get', { conversationId: id });
    expect((detail.nuggets as unknown[]).length).toBe(4);
    const turns = detail.turns as { text: string; words: { start: number; end: number; wc: number }[] }[];
    const scores = await ok('conversations.evaluate', { conversationId: id });
    expect((scores.gfrc2 as { clusters: unknown[] }).clusters).toHaveLength(4);

    const text = turns[1]!.text;
    const start = text.indexOf('Here are');
    const created = await ok('conversations.nuggets.create', { conversationId: id, turn: 1, start, end: start + 8, level: 0 });
    expect(created.text).toBe('Here are');
    expect((await ok('conversations.nuggets.update', { nuggetId: created.id, level: 1, groups: { REGION: 'Asia', AGE: [0, 0, 1] } })).level).toBe(1);
    expect(await ok('conversations.nuggets.delete', { nuggetId: created.id })).toEqual({ deleted: true });

    const ev = await ok('conversations.evaluateSet', { setId, rVariant: 'eq7' });
    expect(ev.runs).toEqual(['balanced', 'baseline']);
    for (const format of ['csv', 'csv-tests', 'latex']) {
      const out = await ok('conversations.exportEvaluation', { evaluation: ev, format });
      expect((out.file as { content: string }).content.length).toBeGreaterThan(50);
    }
    const jsonl = await ok('conversations.export', { setId, format: 'jsonl' });
    expect((jsonl.files as unknown[]).length).toBe(1);
    expect(((await ok('conversations.export', { setId, format: 'gfrc2-json' })).files as unknown[]).length).toBe(6);
    expect(((await ok('conversations.export', { conversationId: id, format: 'gfrc2-json' })).files as { fileName: string }[])[0]!.fileName).toBe('balanced-D1.gfrc2.json');

    const created2 = await ok('conversations.sets.create', { name: 'empty', attributeSets: [{ name: 'X', kind: 'ordinal', groups: ['lo', 'hi'] }] });
    expect(created2).toMatchObject({ L: 1000, lMax: 2, gluedFirstWord: 'exclude', attributeSets: [{ name: 'X', measure: 'rnod', target: [0.5, 0.5] }] });
    expect(await ok('conversations.sets.update', { setId: created2.id, L: 50 })).toMatchObject({ L: 50 });
    expect(await ok('conversations.attributeSets.put', { setId: created2.id, attributeSet: { name: 'Y', kind: 'nominal', groups: ['p', 'q'] } })).toMatchObject({ attributeSets: [{ name: 'X' }, { name: 'Y' }] });
    expect(await ok('conversations.attributeSets.delete', { setId: created2.id, name: 'X' })).toMatchObject({ attributeSets: [{ name: 'Y' }] });
    const imported = await ok('conversations.import', { setName: 'empty', file: { name: 'one.jsonl', content: JSON.stringify({ id: 'z', turns: [{ role: 'system', text: 'hi there', nuggets: [{ text: 'there', level: 1, groups: { Y: 'q' } }] }] }) } });
    expect(imported).toMatchObject({ createdSet: false, conversations: 1, nuggets: 1 });
    const fromAnswers = await ok('conversations.fromAnswers', { setName: 'rag', run: 'r', answers: [{ queryId: 'q', query: 'q?', answer: 'a.', documents: [{ docId: 'd', attrs: { provider: 'p1' } }, { docId: 'e', attrs: { provider: 'p2' } }] }] });
    expect(fromAnswers.attributeSet).toMatchObject({ name: 'PROVIDER', groups: ['p1', 'p2'] });
    expect(await ok('conversations.sets.delete', { setId: created2.id })).toEqual({ deleted: true });
    expect(internal).toEqual([]);
  });

  it('returns typed errors with their field, file and line', async () => {
    const conversations = (await ok('conversations.sets.get', { setId })).conversations as { id: number }[];
    const detail = await ok('conversations.get', { conversationId: conversations[0]!.id });
    const n = (detail.nuggets as { start: number; end: number }[])[0]!;
    expect(await call('conversations.nuggets.create', { conversationId: conversations[0]!.id, turn: 1, start: n.start, end: n.end, level: 0 })).toMatchObject({
      ok: false,
      error: { code: 'conflict', field: 'start', message: expect.stringMatching(/^overlaps the nugget 'Zhaozhou Bridge in Hebei/) },
    });
    expect(await call('conversations.nuggets.create', { conversationId: conversations[0]!.id, turn: 1, start: n.end + 1, end: n.end + 3, level: 7 })).toMatchObject({
      ok: false,
      error: { code: 'invalid-data', field: 'level' },
    });
    expect(await call('conversations.import', { setName: 'x', file: { name: 'bad.jsonl', content: '{"id": "a", "turns": [{"role": "user", "text": 1}]}' } })).toMatchObject({
      ok: false,
      error: { code: 'invalid-data', file: 'bad.jsonl', line: 1, field: 'turns[0].text' },
    });
    expect(await call('conversations.sets.create', { name: 'Fairground demo conversations' })).toMatchObject({ ok: false, error: { code: 'conflict', field: 'name' } });
    expect(await call('conversations.export', { format: 'jsonl' })).toMatchObject({ ok: false, error: { code: 'validation' } });
    expect(await call('conversations.get', { conversationId: 9999 })).toMatchObject({ ok: false, error: { code: 'not-found' } });
    expect(await call('conversations.fromFairRagRun', { setName: 'x', runId: 5, condition: 'oracle' })).toMatchObject({ ok: false, error: { code: 'not-found', field: 'runId' } });
    // Issue 34 item 8g: a condition, or conditions (all or a list), exactly one of them.
    expect(await call('conversations.fromFairRagRun', { setName: 'x', runId: 5, conditions: 'all' })).toMatchObject({ ok: false, error: { code: 'not-found', field: 'runId' } });
    expect(await call('conversations.fromFairRagRun', { setName: 'x', runId: 5 })).toMatchObject({ ok: false, error: { code: 'validation', field: 'condition' } });
    expect(await call('conversations.fromFairRagRun', { setName: 'x', runId: 5, condition: 'oracle', conditions: ['oracle'] })).toMatchObject({ ok: false, error: { code: 'validation', field: 'condition' } });
    expect(await call('conversations.fromFairRagRun', { setName: 'x', runId: 5, conditions: [] })).toMatchObject({ ok: false, error: { code: 'validation' } });
    // an evaluation sent back for export is checked: no internal errors from the table or manifest builders
    const ev = await ok('conversations.evaluateSet', { setId });
    expect(await call('conversations.exportEvaluation', { evaluation: { ...ev, dataSha256: 'x' }, format: 'csv' })).toMatchObject({ ok: false, error: { code: 'validation', field: 'evaluation.dataSha256' } });
    expect(await call('conversations.exportEvaluation', { evaluation: ev, format: 'latex', latex: { label: 'a b' } })).toMatchObject({ ok: false, error: { code: 'validation' } });
    const empty = { ...ev, runs: [], topics: [], cells: [], means: [], comparisons: [], conversations: [] };
    expect(await call('conversations.exportEvaluation', { evaluation: empty, format: 'latex' })).toMatchObject({ ok: false, error: { code: 'validation', field: 'evaluation.runs' } });
    expect(await call('conversations.exportEvaluation', { evaluation: empty, format: 'csv' })).toMatchObject({ ok: true });
    expect(internal).toEqual([]);
  });
});
