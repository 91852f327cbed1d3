import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RankingEvaluator } from '../../../src-main/core/ir/evaluateRun';
import { readQrels } from '../../../src-main/io/trec/qrels';
import { readQrelsBytes } from '../../../src-main/io/trec/qrelsBytes';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-qrelsbytes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
function file(content: string | Buffer, ext = 'qrels'): string {
  const p = path.join(dir, `q${fileNo++}.${ext}`);
  writeFileSync(p, content);
  return p;
}

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** qid → docno → label as the general reader gives them, in its order. */
async function general(p: string): Promise<[string, [string, number][]][]> {
  const byQuery = new Map<string, [string, number][]>();
  for (const r of await readQrels(p)) {
    if (!byQuery.has(r.qid)) byQuery.set(r.qid, []);
    byQuery.get(r.qid)!.push([r.docno, r.rel]);
  }
  return [...byQuery];
}

function fast(p: string): [string, [string, number][]][] | undefined {
  const r = readQrelsBytes(p);
  if (!r) return undefined;
  return [...r.byQuery].map(([qid, table]) => [qid, [...table.toMap()]]);
}

describe('readQrelsBytes', () => {
  it('gives the same judgements as the general reader, and each table finds every docno by its bytes and by its string', async () => {
    const seed = 25_28;
    console.log(`qrelsBytes seed ${seed}`);
    const rnd = lcg(seed);
    for (let t = 0; t < 12; t++) {
      const lines: string[] = [];
      if (t % 3 === 0) lines.push('# qrels', '   ', '\t# more');
      const nq = 1 + Math.floor(rnd() * 8);
      for (let q = 0; q < nq; q++) {
        const n = 1 + Math.floor(rnd() * 40);
        for (let d = 0; d < n; d++) {
          const doc = `${['d', 'é', 'doc\u00a0', 'x'][Math.floor(rnd() * 4)]}${d}`;
          const rel = ['0', '1', '2', '-1', '+3', '007', '-0'][Math.floor(rnd() * 7)];
          const sep = [' ', '\t', '  ', ' \t', '\v'][Math.floor(rnd() * 5)]!;
          lines.push(`${rnd() < 0.2 ? sep : ''}q${q}${sep}${rnd() < 0.5 ? '0' : 'g1,g2'}${sep}${doc}${sep}${rel}${rnd() < 0.2 ? ' ' : ''}`);
          if (rnd() < 0.05) lines.push('');
        }
      }
      let text = lines.join(t % 4 === 1 ? '\r\n' : '\n');
      if (t % 2 === 0) text += '\n';
      const p = file((t % 5 === 2 ? '\uFEFF' : '') + text);
      const want = await general(p);
      const got = fast(p);
      expect(got, `file ${t}`).toEqual(want);
      const tables = readQrelsBytes(p)!.byQuery;
      for (const [qid, docs] of want) for (const [docno, rel] of docs) expect(tables.get(qid)!.getString(docno)).toBe(rel);
      expect(tables.get('q0')!.getString('absent')).toBeUndefined();
      expect(readQrelsBytes(p)!.rows).toBe(want.reduce((s, [, docs]) => s + docs.length, 0));
    }
  });

  it('gives up, for the general reader to decide, on what it does not read exactly as that reader', () => {
    const cases: [string, string | Buffer][] = [
      ['a document judged twice', 'q1 0 d1 1\nq1 0 d1 0\n'],
      ['five columns', 'q1 0 d1 1 x\n'],
      ['three columns', 'q1 0 d1\n'],
      ['a query whose lines are not in one block', 'q1 0 d1 1\nq2 0 d1 1\nq1 0 d2 1\n'],
      ['a label that is not a plain integer', 'q1 0 d1 1.0\n'],
      ['a label of 16 digits', 'q1 0 d1 1234567890123456\n'],
      ['the relevance-mapping header', 'qid\tpid\trelevance_label\n1\td1\t1\n'],
      ['invalid UTF-8', Buffer.from([0x71, 0x20, 0x30, 0x20, 0xff, 0x20, 0x31, 0x0a])],
    ];
    for (const [what, content] of cases) expect(readQrelsBytes(file(content)), what).toBeUndefined();
    expect(readQrelsBytes(path.join(dir, 'missing.qrels'))).toBeUndefined();
    expect(readQrelsBytes('/dev/zero')).toBeUndefined();
    expect(readQrelsBytes(file('q1 0 d1 1\n'), { format: 'relevance-mapping' })).toBeUndefined();
    expect(readQrelsBytes(file('q1 0 d1 1\n', 'qrels.gz'))).toBeUndefined();
    // No newline at the end, and an empty file.
    expect(fast(file('q1 0 d1 2'))).toEqual([['q1', [['d1', 2]]]]);
    expect(readQrelsBytes(file(''))).toEqual({ byQuery: new Map(), rows: 0 });
  });

  it('evaluates as the rows of the general reader do (the evaluator built from tables or rows)', async () => {
    const seed = 2511;
    console.log(`qrels tables seed ${seed}`);
    const rnd = lcg(seed);
    let qrels = '';
    for (let q = 0; q < 20; q++) for (let d = 0; d < 30; d++) if (rnd() < 0.5) qrels += `q${q} 0 d${d} ${Math.floor(rnd() * 4) - 1}\n`;
    const p = file(qrels);
    const measures = ['AP', 'nDCG@10', 'P@5', 'RR', 'R@10', 'Judged@10', 'NumRel', 'NumRet'];
    const a = new RankingEvaluator(readQrelsBytes(p)!.byQuery, measures, {});
    const b = new RankingEvaluator(await readQrels(p), measures, {});
    for (let q = 0; q < 22; q += 1 + Math.floor(rnd() * 2)) {
      const docnos = [...new Set(Array.from({ length: 15 }, () => `d${Math.floor(rnd() * 35)}`))];
      const ranking = { docnos, scores: docnos.map(() => Math.floor(rnd() * 4)) };
      a.add(`q${q}`, ranking);
      b.add(`q${q}`, ranking);
    }
    expect(a.finish()).toEqual(b.finish());
    expect(a.judgementsOf('q3')).toEqual(b.judgementsOf('q3'));
  });
});

describe('eval ir with qrels the fast path gives up on', () => {
  it('prints the same as with the same qrels read in place, and the general error for a bad file', async () => {
    const run = 'q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d3 3 1 r\nq2 Q0 d1 1 1 r\n';
    const runFile = file(run, 'trec');
    const grouped = 'q1 0 d1 0\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d9 1\n';
    const split = 'q1 0 d1 0\nq2 0 d1 1\nq1 0 d3 2\nq2 0 d9 1\n';
    const args = (qrels: string) => ['eval', 'ir', '--run', runFile, '--qrels', qrels, '-m', 'AP', '-m', 'nDCG@10', '-m', 'RR', '-q'];
    const inPlace = await runCliCaptured(args(file(grouped)), { cwd: dir });
    const general = await runCliCaptured(args(file(split)), { cwd: dir });
    expect(inPlace.code).toBe(0);
    expect(general.stdout).toBe(inPlace.stdout);
    // Hand-computed: q1 ranks d1 (0), d2 (unjudged), d3 (2): AP = (1/3)/1, RR = 1/3;
    // q2 ranks d1 (1) of 2 relevant: AP = 0.5, RR = 1.
    expect(inPlace.stdout).toContain('AP\tq1\t0.3333\n');
    expect(inPlace.stdout).toContain('AP\tq2\t0.5000\n');
    expect(inPlace.stdout).toContain('RR\tall\t0.6667\n');
    const dup = await runCliCaptured(args(file('q1 0 d1 0\nq1 0 d1 2\n', 'dup.qrels')), { cwd: dir });
    expect(dup.code).toBe(2);
    expect(dup.stderr).toMatch(/dup\.qrels:2: docno: duplicate judgement of 'd1' for query 'q1'/);
  });
});
