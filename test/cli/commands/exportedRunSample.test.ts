/**
 * #16.1: a run written by formatRun (retrieve --output, the Fair RAG export) carries the retrieval
 * scores, so `fairground sample` draws from the same Plackett–Luce distribution as from the
 * retriever's own scores. Before, a tie (every candidate without a query term scores 0) replaced the
 * group's scores by n, n−1, …, 1 and the sampler drew from ranks.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sampleCommand } from '../../../src-main/cli/commands/sample';
import { formatRun, parseRun } from '../../../src-main/io/trec';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fg-exported-sample-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// BM25-like scores with ties at 0 (candidates without a query term), in the retriever's order.
const scores: Record<string, [string, number][]> = {
  q1: [['d3', 7.25], ['d1', 3.5], ['d2', 0], ['d4', 0], ['d5', 0]],
  q2: [['a', 2.0000000000000004], ['b', 2], ['c', 0.1], ['e', 0], ['f', 0]],
};

describe('sample on an exported run (#16.1)', () => {
  it('draws exactly what it draws from the in-memory scores', async () => {
    const rows = Object.entries(scores).flatMap(([qid, docs]) => docs.map(([docno, score]) => ({ qid, docno, score })));
    const exported = formatRun(rows, { tag: 'bm25' });
    // The exported scores are the in-memory scores, bit for bit.
    const back = parseRun(exported, 'bm25.run', { columns: 'strict' });
    for (const r of back) expect(r.score).toBe(new Map(scores[r.qid]!).get(r.docno));
    writeFileSync(path.join(dir, 'exported.run'), exported);
    // The same scores written by hand, one line per candidate in the retriever's order.
    writeFileSync(path.join(dir, 'memory.run'), rows.map((r, i) => `${r.qid} Q0 ${r.docno} ${i + 1} ${r.score} mem`).join('\n') + '\n');
    const sample = (run: string, out: string) =>
      runCliCaptured(['sample', '--run', run, '--alpha', '2', '--samples', '200', '-k', '3', '--seed', '7', '--output', out], { cwd: dir, commands: [sampleCommand] });
    expect((await sample('exported.run', 'a.run')).code).toBe(0);
    expect((await sample('memory.run', 'b.run')).code).toBe(0);
    const strip = (f: string) => readFileSync(path.join(dir, f), 'utf8').replace(/ \S+$/gm, '');
    expect(strip('a.run')).toBe(strip('b.run'));
  });
});
