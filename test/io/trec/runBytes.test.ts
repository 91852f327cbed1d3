import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DocLabelTable, rankedLabelsOfBytes } from '../../../src-main/core/ir/docBytes';
import { RankingEvaluator } from '../../../src-main/core/ir/evaluateRun';
import { forEachRunQuery } from '../../../src-main/io/trec/run';
import { byteAt, charAt, plainDecimal, plainInteger } from '../../../src-main/io/trec/plainNumber';
import { readRunBytesByQuery } from '../../../src-main/io/trec/runBytes';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-runbytes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileNo = 0;
function file(content: string | Buffer): string {
  const p = path.join(dir, `r${fileNo++}.trec`);
  writeFileSync(p, content);
  return p;
}

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

type Query = { qid: string; docnos: string[]; scores: number[] };

function fast(p: string, chunkBytes?: number): { done: boolean; queries: Query[] } {
  const queries: Query[] = [];
  const r = readRunBytesByQuery(
    p,
    (qid, q) => {
      const docnos: string[] = [];
      for (let i = 0; i < q.length; i++) docnos.push(Buffer.from(q.bytes.subarray(q.docStart[i]!, q.docEnd[i]!)).toString('utf8'));
      queries.push({ qid, docnos, scores: Array.from(q.score.subarray(0, q.length)) });
    },
    chunkBytes === undefined ? {} : { chunkBytes },
  );
  return { done: r.done, queries };
}

async function general(p: string): Promise<Query[]> {
  const queries: Query[] = [];
  await forEachRunQuery(p, (qid, run, rows) => {
    const idx = rows ?? Array.from({ length: run.length }, (_, i) => i);
    queries.push({ qid, docnos: idx.map((i) => run.docno[i]!), scores: idx.map((i) => run.score[i]!) });
  });
  return queries;
}

/** plainDecimal over the text's UTF-8 bytes (runBytes.ts) and over its char codes (run.ts): the one parser both readers use. */
function bothDecimals(text: string): number {
  const bytes = plainDecimal(Buffer.from(text), byteAt, 0, text.length);
  const chars = plainDecimal(text, charAt, 0, text.length);
  if (!Object.is(bytes, chars)) throw new Error(`${text}: bytes ${bytes} vs chars ${chars}`);
  return bytes;
}

describe('plainDecimal (the fast path for scores)', () => {
  it('is NaN or exactly the double Number() gives, on random decimals of every form', () => {
    const seed = 25_4;
    console.log(`plainDecimal seed ${seed}`);
    const rnd = lcg(seed);
    const digits = (n: number) => Array.from({ length: n }, () => String(Math.floor(rnd() * 10))).join('');
    const forms = [
      () => digits(1 + Math.floor(rnd() * 17)),
      () => `${digits(1 + Math.floor(rnd() * 9))}.${digits(1 + Math.floor(rnd() * 9))}`,
      () => `.${digits(1 + Math.floor(rnd() * 16))}`,
      () => `${digits(1 + Math.floor(rnd() * 8))}.`,
      () => `${digits(1 + Math.floor(rnd() * 5))}.${digits(1 + Math.floor(rnd() * 5))}e${rnd() < 0.5 ? '-' : ''}${digits(1 + Math.floor(rnd() * 2))}`,
      () => `0.${'0'.repeat(Math.floor(rnd() * 6))}${digits(1 + Math.floor(rnd() * 12))}`,
    ];
    let fastHits = 0;
    for (let k = 0; k < 20000; k++) {
      const sign = ['', '-', '+'][Math.floor(rnd() * 3)]!;
      const text = sign + forms[Math.floor(rnd() * forms.length)]!();
      const got = bothDecimals(text);
      if (!Number.isNaN(got)) {
        fastHits++;
        if (!Object.is(got, Number(text))) throw new Error(`${text}: ${got} vs ${Number(text)}`);
      }
    }
    expect(fastHits).toBeGreaterThan(12000);
    for (const [text, want] of [
      ['.5', 0.5],
      ['+.5', 0.5],
      ['-0', -0],
      ['5.', 5],
      ['0.1', 0.1],
      ['123456789012345', 123456789012345],
    ] as const) {
      expect(Object.is(bothDecimals(text), want)).toBe(true);
    }
    for (const text of ['.', '-', '+', '1e5', '1.2.3', '1234567890123456', '0x1A', '1_0', '']) expect(bothDecimals(text)).toBeNaN();
  });

  it('plainInteger reads [-+]digits of at most 15 digits, the same over bytes and char codes', () => {
    for (const [text, want] of [
      ['0', 0],
      ['-0', -0],
      ['+17', 17],
      ['-42', -42],
      ['999999999999999', 999999999999999],
      ['1234567890123456', Number.NaN],
      ['1.0', Number.NaN],
      ['', Number.NaN],
      ['-', Number.NaN],
      ['1e3', Number.NaN],
      ['٣', Number.NaN],
    ] as const) {
      expect(Object.is(plainInteger(Buffer.from(text), byteAt, 0, Buffer.byteLength(text)), want)).toBe(true);
      expect(Object.is(plainInteger(text, charAt, 0, text.length), want)).toBe(true);
    }
  });
});

describe('readRunBytesByQuery', () => {
  it('hands over the same queries, docnos and scores as the general reader, at any buffer size', async () => {
    const seed = 20251128;
    console.log(`runBytes seed ${seed}`);
    const rnd = lcg(seed);
    for (let t = 0; t < 12; t++) {
      const lines: string[] = [];
      if (t % 3 === 0) lines.push('# ir_metadata.start', '   ', '# tag: x');
      const nq = 1 + Math.floor(rnd() * 8);
      for (let q = 0; q < nq; q++) {
        const n = Math.floor(rnd() * 40) + (q === 0 ? 1 : 0);
        for (let d = 0; d < n; d++) {
          const doc = `${['d', 'é', 'doc\u00a0', 'x'][Math.floor(rnd() * 4)]}${d}`;
          const score = [String(Math.floor(rnd() * 5)), (rnd() * 10).toFixed(3), `${(rnd() * 9 + 1).toFixed(2)}e-3`, `-${rnd().toFixed(6)}`][Math.floor(rnd() * 4)];
          const sep = [' ', '\t', '  ', ' \t'][Math.floor(rnd() * 4)]!;
          lines.push(`${sep.length > 1 && rnd() < 0.3 ? sep : ''}q${q}${sep}Q0${sep}${doc}${sep}${d + 1}${sep}${score}${sep}tag${rnd() < 0.2 ? ' ' : ''}`);
          if (rnd() < 0.05) lines.push('');
        }
      }
      let text = lines.join(t % 4 === 1 ? '\r\n' : '\n');
      if (t % 2 === 0) text += '\n';
      const p = file((t % 5 === 2 ? '\uFEFF' : '') + text);
      const want = await general(p);
      for (const chunk of [16, 100, 1 << 18]) {
        const got = fast(p, chunk);
        expect(got.done, `file ${t} chunk ${chunk}`).toBe(true);
        expect(got.queries, `file ${t} chunk ${chunk}`).toEqual(want);
      }
    }
  });

  it('gives up, for the general reader to decide, on what it does not read exactly as that reader', () => {
    const cases: [string, string | Buffer][] = [
      ['a repeated docno', 'q1 Q0 d1 1 1 t\nq1 Q0 d1 2 0.5 t\n'],
      ['seven columns', 'q1 Q0 d1 1 1 t extra\n'],
      ['five columns', 'q1 Q0 d1 1 1\n'],
      ['a query that comes back', 'q1 Q0 d1 1 1 t\nq2 Q0 d1 1 1 t\nq1 Q0 d2 2 0.5 t\n'],
      ['several samples in a query', 'q1 Q0 d1 1 1 t\nq1 Q1 d2 1 1 t\n'],
      ['a rank that is not a plain integer', 'q1 Q0 d1 1.0 1 t\n'],
      ['a score that is not a finite number', 'q1 Q0 d1 1 inf t\n'],
      ['a Fair-RAG header', 'qid\tsample\tdocno\trank\tsim\trun_id\n'],
      ['invalid UTF-8', Buffer.from([0x71, 0x20, 0x51, 0x20, 0xff, 0x20, 0x31, 0x20, 0x31, 0x20, 0x74, 0x0a])],
    ];
    for (const [what, content] of cases) expect(fast(file(content)).done, what).toBe(false);
    expect(readRunBytesByQuery(path.join(dir, 'missing.trec'), () => {}).done).toBe(false);
    expect(fast(file('q1 Q0 d1 1 1e-3 t\nq1 Q0 d2 2 0x10 t\n')).queries).toEqual([{ qid: 'q1', docnos: ['d1', 'd2'], scores: [0.001, 16] }]);
    expect(fast(file('')).queries).toEqual([]);
  });

  it('gives the evaluator the same labels in the same order as the general path, ties and unsorted rows included', async () => {
    const seed = 4242;
    console.log(`ranking seed ${seed}`);
    const rnd = lcg(seed);
    let run = '';
    let qrels = '';
    for (let q = 0; q < 30; q++) {
      const n = 1 + Math.floor(rnd() * 60);
      for (let d = 0; d < n; d++) run += `q${q} Q0 d${Math.floor(d * 7 + rnd() * 7)}${rnd() < 0.1 ? 'é' : ''}-${d} ${d + 1} ${Math.floor(rnd() * 6) / 2} r\n`;
      for (let d = 0; d < 40; d++) if (rnd() < 0.5) qrels += `q${q} 0 d${d * 7 + Math.floor(rnd() * 7)}-${d} ${Math.floor(rnd() * 3) - (rnd() < 0.1 ? 1 : 0)}\n`;
    }
    qrels += 'q99 0 dx 1\n';
    const runFile = file(run);
    const qrelsRows = qrels
      .trim()
      .split('\n')
      .map((l) => l.split(' '))
      .map(([qid, , docno, rel]) => ({ qid: qid!, docno: docno!, rel: Number(rel) }));
    for (const depth of [undefined, 5]) {
      const measures = ['AP', 'nDCG@10', 'P@5', 'RR', 'Judged@10', 'NumRet'];
      const a = new RankingEvaluator(qrelsRows, measures, { depth });
      const b = new RankingEvaluator(qrelsRows, measures, { depth });
      const r = readRunBytesByQuery(runFile, (qid, rows) => {
        const j = a.judgementsOf(qid);
        a.addRanked(qid, j ? rankedLabelsOfBytes(rows, new DocLabelTable(j), a.cutDepth) : []);
      });
      expect(r.done).toBe(true);
      await forEachRunQuery(runFile, (qid, c, rows) => {
        const idx = rows ?? Array.from({ length: c.length }, (_, i) => i);
        b.add(qid, { docnos: idx.map((i) => c.docno[i]!), scores: idx.map((i) => c.score[i]!) });
      });
      expect(a.finish()).toEqual(b.finish());
    }
  });
});

describe('eval ir through the fast path', () => {
  it('prints what it prints for the same run read from standard input (the general reader)', async () => {
    const seed = 77;
    console.log(`eval ir seed ${seed}`);
    const rnd = lcg(seed);
    let run = '';
    let qrels = '';
    for (let q = 0; q < 40; q++) {
      for (let d = 0; d < 50; d++) run += `${q} Q0 doc${q}-${d} ${d + 1} ${(50 - d + Math.floor(rnd() * 3)).toFixed(1)} bm25\n`;
      for (let d = 0; d < 60; d++) if (rnd() < 0.3) qrels += `${q} 0 doc${q}-${d} ${Math.floor(rnd() * 3)}\n`;
    }
    const runFile = file(run);
    const qrelsFile = file(qrels);
    const args = ['eval', 'ir', '--qrels', qrelsFile, '-m', 'AP', '-m', 'nDCG@10', '-m', 'P@10', '-m', 'RR', '-q'];
    const fromFile = await runCliCaptured([...args, '--run', runFile], { cwd: dir });
    const fromStdin = await runCliCaptured([...args, '--run', '-'], { cwd: dir, stdin: run });
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toBe(fromStdin.stdout);
    expect(fromFile.stdout.split('\n').length).toBe(40 * 4 + 4 + 1);
    // A run the fast path gives up on half-way is read again from the start: same output as from stdin.
    const late = `${run}0 Q0 late 1 99 bm25\n`;
    const lateArgs = [...args.slice(0, 3), file(`${qrels}0 0 late 2\n`), ...args.slice(4)];
    const lateFile = await runCliCaptured([...lateArgs, '--run', file(late)], { cwd: dir });
    const lateStdin = await runCliCaptured([...lateArgs, '--run', '-'], { cwd: dir, stdin: late });
    expect(lateFile.code).toBe(0);
    expect(lateFile.stdout).toBe(lateStdin.stdout);
    expect(lateFile.stdout).not.toBe(fromFile.stdout);
    expect(lateFile.stdout).toContain('RR\t0\t1.0000\n');
  });
});
