import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src-main/cli/main';
import { htmlToText } from '../../src-main/cli/commands/retrieveSearch';
import { parseRun } from '../../src-main/io/trec';
import { openWorkspace } from '../../src-main/store/workspace';
import { writeTinyGguf } from '../../src-main/engine/gguf/tinyModel';
import { ZOO, addCollection, addDocuments, addQueries } from './fixture';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-retrieve-'));
const wsPath = path.join(dir, 'w.fairground');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(() => {
  const ws = openWorkspace(wsPath);
  const c = addCollection(ws.db, 'zoo');
  addDocuments(ws.db, c, ZOO);
  addQueries(ws.db, c, [
    { queryId: 'q1', text: 'penguins' },
    { queryId: 'q2', text: 'birds bees', candidates: ['z1', 'z2', 'z5'] },
  ]);
  ws.close();
});

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await runCli(argv, { stdout, stderr, stdin: new PassThrough(), cwd: dir, env: {} });
  return { code, stdout: out, stderr: err };
}

describe('fairground retrieve', () => {
  it('bm25: stores the run and writes a six-column TREC run (strict readers) with its ir_metadata beside it (#16.2)', async () => {
    const r = await cli(['retrieve', '-w', wsPath, '--collection', 'zoo', '--method', 'bm25', '--k', '3', '--output', 'bm25.trec']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("stored run 'bm25'");
    const text = readFileSync(path.join(dir, 'bm25.trec'), 'utf8');
    // Before: the run began with '# ir_metadata.start', which pytrec_eval, ranx and ir_measures cannot read.
    expect(text.startsWith('q1 Q0 ')).toBe(true);
    expect(readFileSync(path.join(dir, 'bm25.trec.ir_metadata.yaml'), 'utf8')).toMatch(/^schema-version: 0.1\ntag: bm25\n(.|\n)*method:\n {2}retrieval: bm25\n/);
    const rows = parseRun(text, 'bm25.trec', { columns: 'strict' });
    expect(rows.filter((x) => x.qid === 'q1').map((x) => x.docno)).toEqual(['z3', 'z1']);
    expect(rows.filter((x) => x.qid === 'q2')).toHaveLength(3);
    expect(new Set(rows.map((x) => x.tag))).toEqual(new Set(['bm25']));
  });

  it('rrf of two stored runs, to stdout, plain', async () => {
    const lucene = await cli(['retrieve', '-w', wsPath, '--collection', 'zoo', '--method', 'bm25', '--idf', 'lucene', '--name', 'lucene', '--plain']);
    expect(lucene.code, lucene.stderr).toBe(0);
    expect(lucene.stdout.startsWith('q1 Q0 z3 1 ')).toBe(true);
    const r = await cli(['retrieve', '-w', wsPath, '--collection', 'zoo', '--method', 'rrf', '--fuse', 'bm25', '--fuse', 'lucene', '--name', 'fused', '--plain']);
    expect(r.code, r.stderr).toBe(0);
    const rows = parseRun(r.stdout);
    const q1 = rows.filter((x) => x.qid === 'q1');
    expect(q1.map((x) => x.docno)).toEqual(['z3', 'z1']);
    expect(q1[0]!.score).toBeCloseTo(2 / 61, 15);
    // RAG-Fusion's first-seen tie order (issue 34 item 1): the stored order, the export and the stored params agree.
    const fs = await cli(['retrieve', '-w', wsPath, '--collection', 'zoo', '--method', 'rrf', '--fuse', 'lucene', '--fuse', 'bm25', '--rrf-ties', 'first-seen', '--name', 'fused-fs', '--plain']);
    expect(fs.code, fs.stderr).toBe(0);
    const ws = openWorkspace(wsPath);
    try {
      const run = ws.db.prepare(`SELECT id, params FROM retrieval_runs WHERE name = 'fused-fs'`).get() as { id: number; params: string };
      expect(JSON.parse(run.params)).toMatchObject({ tieOrder: 'first-seen' });
      const stored = ws.db.prepare(`SELECT query_id AS qid, doc_id AS docno FROM retrieval_results WHERE run_id = ? ORDER BY query_id, rank`).all(run.id);
      expect(parseRun(fs.stdout).map((x) => ({ qid: x.qid, docno: x.docno }))).toEqual(stored);
    } finally {
      ws.close();
    }
  });

  it('reports bad options and unknown names in one line', async () => {
    const cases: [string[], RegExp][] = [
      [['--collection', 'nope', '--method', 'bm25'], /no collection named 'nope'/],
      [['--collection', 'zoo', '--method', 'splade'], /--method: expected bm25, dense or rrf/],
      [['--collection', 'zoo', '--method', 'rrf', '--fuse', 'bm25'], /at least two/],
      [['--collection', 'zoo', '--method', 'rrf', '--fuse', 'bm25', '--fuse', 'missing'], /no run named 'missing'/],
      [['--collection', 'zoo', '--method', 'rrf', '--fuse', 'bm25', '--fuse', 'lucene', '--rrf-ties', 'random'], /--rrf-ties: expected trec_eval or first-seen, got 'random'/],
      [['--collection', 'zoo', '--method', 'bm25', '--idf', 'bm25+'], /candidates\.idf/],
      [['--collection', 'zoo', '--method', 'bm25', '--name', 'bm25'], /already exists/],
      [['--collection', 'zoo', '--method', 'dense'], /missing required option --model/],
      [['--collection', 'zoo', '--method', 'dense', '--model', 'x.gguf', '--overlong', 'trim'], /--overlong: expected refuse or cut, got 'trim'/],
      [['--collection', 'zoo', '--method', 'bm25', '--overlong', 'cut'], /--overlong applies to --method dense only/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(['retrieve', '-w', wsPath, ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('fairground retrieve --method dense with a text longer than the context (issue 34 item 8b)', () => {
  it('refuses by default naming the document and its size, and cuts with --overlong cut, saying how much', async () => {
    // The tiny model is trained for 512 tokens (the configured 4096 is capped): 510 tokens of text fit.
    const model = path.join(dir, 'tiny.gguf');
    await writeTinyGguf(model, { preset: 'tiny', seed: 4 });
    const ws = openWorkspace(wsPath);
    const c = addCollection(ws.db, 'long');
    addDocuments(ws.db, c, [...ZOO, { docId: 'long1', title: 'Long', text: Array.from({ length: 300 }, (_, i) => ['penguin', 'colony', 'winter', 'ice'][i % 4]).join(' ') }]);
    addQueries(ws.db, c, [{ queryId: 'q1', text: 'penguins' }]);
    ws.close();
    const args = ['retrieve', '-w', wsPath, '--collection', 'long', '--method', 'dense', '--model', 'tiny.gguf', '--threads', '1', '--k', '2'];

    const refused = await cli(args);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/document 'long1' has \d+ tokens; the embedding model's context is 512 tokens, which holds at most 510 tokens of text/);
    expect(refused.stderr).toContain('Nothing was embedded');

    const cut = await cli([...args, '--overlong', 'cut', '--name', 'dense-cut']);
    expect(cut.code, cut.stderr).toBe(0);
    expect(cut.stderr).toContain('embedding set 1: 6 embedded, 0 already there');
    expect(cut.stderr).toMatch(/warning: 1 document was cut to the embedding model's context \(512 tokens: at most 510 tokens of text\), \d+ tokens cut in all \(e\.g\. 'long1' \d+ → 51\d\)/);
    expect(cut.stdout.split('\n').filter(Boolean)).toHaveLength(2);
  }, 120_000);
});

describe('fairground retrieve search', () => {
  it('prints ranked hits with bracketed matches', async () => {
    const r = await cli(['retrieve', 'search', '-w', wsPath, '--collection', 'zoo', '--query', 'birds & bees', '--k', '2']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ {2}1\. z5 {2}\d+\.\d{4} {2}<script>alert\(1\)<\/script> \[Birds\] & \[bees\]$/);
    expect(lines[1]).toBe('     [Bees] pollinate flowers; [birds] eat [bees] sometimes.');
    const json = await cli(['retrieve', 'search', '-w', wsPath, '--collection', 'zoo', '--query', '"', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ terms: [], hits: [] });
    const none = await cli(['retrieve', 'search', '-w', wsPath, '--collection', 'zoo', '--query', 'zebra']);
    expect(none.stdout).toBe('no matches\n');
  });

  it('turns snippet HTML back into text', () => {
    expect(htmlToText('a <mark>b&amp;c</mark>\n&lt;d&gt; &#39;e&#39; &quot;f&quot;')).toBe("a [b&c] <d> 'e' \"f\"");
  });
});
