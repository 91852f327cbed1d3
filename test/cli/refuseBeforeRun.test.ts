/**
 * A spec that a run would refuse is refused before anything is written (issue 26): an unknown
 * placeholder or an unterminated block in a Fair RAG template, a task no query has, a dense
 * retriever naming no model of the library. Each used to create the experiment and a failed run
 * first; now `fairground run` exits 2 naming the field, and the workspace has no experiment or run.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src-main/store/workspace';
import { makeDemoWorkspace } from '../experiments/fixture';
import { runCliCaptured } from '../support/cli';

let dir: string;
let ws: string;
const demo = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-refuse-'));
  ws = await makeDemoWorkspace(dir, 'w.fairground');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function written(): { experiments: number; runs: number } {
  const w = openWorkspace(ws);
  try {
    const n = (sql: string) => (w.db.prepare(sql).get() as { n: number }).n;
    return { experiments: n('SELECT count(*) AS n FROM experiments'), runs: n('SELECT count(*) AS n FROM runs') };
  } finally {
    w.close();
  }
}

const cases: Array<[string, Record<string, unknown>, string]> = [
  ['an unknown placeholder', { promptTemplate: '{{#documents}}{{text}}{{/documents}} {{nosuch}} {{query}}' }, 'promptTemplate: template: unknown placeholder {{nosuch}}; known here: query, answer, documents (line 1, column 38)'],
  ['an unterminated block', { promptTemplate: '{{#documents}}{{text}} {{query}}' }, 'promptTemplate: template: {{#documents}} is never closed with {{/documents}} (line 1, column 1)'],
  ['a task no query has', { tasks: ['no-such-task'] }, "tasks[0]: no query of collection 'Fairground demo' has task 'no-such-task' (its tasks: headline, movie-tag, multi-aspect)"],
  ['a dense retriever naming no model', { retrievers: [{ name: 'dense', method: 'dense', params: { model: 'nope' } }] }, "retrievers[0].params.model: no model named 'nope' in the library"],
];

describe('fairground run refuses before writing a run', () => {
  it.each(cases)('%s', async (label, change, message) => {
    const spec = join(dir, `${label.replace(/\W+/g, '-')}.json`);
    writeFileSync(spec, JSON.stringify({ ...demo, name: label, ...change }));
    const r = await runCliCaptured(['run', spec, '--workspace', ws], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(written()).toEqual({ experiments: 0, runs: 0 });
  }, 120_000);
});
