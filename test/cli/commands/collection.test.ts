import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-collection-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FIX = path.join(process.cwd(), 'test', 'fixtures', 'collections');

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(['collection', ...argv, '--workspace', 'w.fairground'], { cwd: dir });
}

describe('fairground collection', () => {
  it('imports with a column mapping, lists and shows a collection', async () => {
    const imp = await cli(['import', '--kind', 'corpus', '--name', 'weather', '--id-column', 'doc', '--text-column', 'body', '--attr-column', 'provider', path.join(FIX, 'corpus.csv')]);
    expect(imp).toMatchObject({ code: 0, stderr: '' });
    expect(imp.stdout).toMatch(/^added 3 documents to 'weather'\ncollection weather \(id 1\), content hash [0-9a-f]{64}\n$/);
    writeFileSync(path.join(dir, 'q.jsonl'), '{"qid": "q1", "query": "rain?", "answers": ["yes"], "task": "qa"}\n');
    expect((await cli(['import', '--kind', 'queries', '--name', 'weather', 'q.jsonl'])).code).toBe(0);
    const again = await cli(['import', '--kind', 'queries', '--name', 'weather', 'q.jsonl']);
    expect(again.stdout).toMatch(/^no change: 'weather' already has all 1 rows/);
    const list = await cli(['list']);
    expect(list.stdout).toBe('  id   documents  queries  judgments  name\n   1           3        1          0  weather\n');
    const info = await cli(['info', 'weather']);
    expect(info.stdout).toContain('  documents     3\n  queries       1\n  judgments     0\n');
    expect(info.stdout).toContain('    qa                              1 queries');
    expect(info.stdout).toContain('    weather-desk                   2 documents');
    expect(info.stdout).toMatch(/corpus\s+3 rows {2}sha256 [0-9a-f]{12} {2}.*corpus\.csv/);
    expect(JSON.parse((await cli(['info', 'weather', '--json'])).stdout)).toMatchObject({ name: 'weather', counts: { documents: 3, queries: 1 } });
  });

  it('fails with file and line on a malformed file and writes nothing', async () => {
    writeFileSync(path.join(dir, 'bad.jsonl'), '{"id": "z1", "text": "ok"}\n{"id": "z2", "text": \n');
    const r = await cli(['import', '--kind', 'corpus', '--name', 'broken', 'bad.jsonl']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`^fairground collection import: ${path.join(dir, 'bad.jsonl').replace(/[/.]/g, '\\$&')}:2: invalid JSON`));
    expect((await cli(['info', 'broken'])).stderr).toBe("fairground collection info: no collection named 'broken'\n");
  });

  it('checks its options', async () => {
    expect((await cli(['import', '--kind', 'nope', '--name', 'x', 'f'])).stderr).toContain("--kind: expected one of corpus, queries, qrels, lamp, msmarco, fairrag-mapping, got 'nope'");
    expect((await cli(['import', '--kind', 'corpus', 'f'])).stderr).toContain('missing required option --name');
  });
});
