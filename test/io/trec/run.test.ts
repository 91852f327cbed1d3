import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { evaluateRun } from '../../../src-main/core/ir/evaluateRun';
import { sortTrecEvalOrder } from '../../../src-main/core/ir/rankOrder';
import { formatRun, parseRun, readRunByQuery, readRunColumns, readRunFile, RunNotGroupedError, type RunColumns } from '../../../src-main/io/trec';

const dir = mkdtempSync(join(tmpdir(), 'fg-trec-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(fn: () => unknown): DataError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DataError) return err;
    throw err;
  }
  throw new Error('expected a DataError');
}

describe('parseRun', () => {
  it('reads whitespace-separated rows and skips comments and blank lines', () => {
    const text = ['# ir_metadata.start', '# tag: bm25', '# ir_metadata.end', '', '301 Q0 FT911-1 1 12.5 bm25', '  301\tQ0  FT911-2 2 -3e-2 bm25  ', '   # indented comment'].join('\n');
    expect(parseRun(text, 'r.trec')).toEqual([
      { qid: '301', iter: 'Q0', docno: 'FT911-1', rank: 1, score: 12.5, tag: 'bm25', line: 5 },
      { qid: '301', iter: 'Q0', docno: 'FT911-2', rank: 2, score: -0.03, tag: 'bm25', line: 6 },
    ]);
  });

  it('keeps a docno with a non-breaking space whole, as trec_eval (isspace) does', () => {
    expect(parseRun('q Q0 a\u00a0b 1 1 t')[0]!.docno).toBe('a\u00a0b');
  });

  it('handles CRLF and a BOM', () => {
    expect(parseRun('\uFEFFq Q0 d 1 1 t\r\nq Q0 e 2 0 t\r\n').map((r) => r.docno)).toEqual(['d', 'e']);
  });

  it.each([
    ['q Q0 d 1 1', 'r.trec:1: columns: expected 6 columns'],
    ['q Q0 d one 1 t', "r.trec:1: rank: not an integer: 'one'"],
    ['q Q0 d 1.5 1 t', "r.trec:1: rank: not an integer: '1.5'"],
    ['q Q0 d 1 high t', "r.trec:1: score: not a number: 'high'"],
    ['q Q0 d 1 NaN t', "r.trec:1: score: not a number: 'NaN'"],
    ['q Q0 d 1 Infinity t', "r.trec:1: score: not a finite number: 'Infinity'"],
  ])('rejects %j', (line, message) => {
    expect(errorOf(() => parseRun(line, 'r.trec')).message).toContain(message);
  });

  it('names the line of a duplicate (qid, iter, docno) but allows the docno in another sample', () => {
    const ok = parseRun('q S0 d 1 1 t\nq S1 d 1 1 t');
    expect(ok.map((r) => r.iter)).toEqual(['S0', 'S1']);
    const err = errorOf(() => parseRun('# c\nq Q0 d 1 2 t\nq Q0 e 2 1 t\nq Q0 d 3 0 t', 'r.trec'));
    expect(err.line).toBe(4);
    expect(err.field).toBe('docno');
    expect(err.message).toMatch(/duplicate document 'd'/);
  });

  it('finds a duplicate in a long group, and in a group that comes back after other rows', () => {
    // Short first blocks are scanned, longer ones (16+ rows) and groups that come back use a set.
    const long = Array.from({ length: 40 }, (_, i) => `q Q0 d${i} ${i + 1} 1 t`);
    expect(parseRun(long.join('\n'))).toHaveLength(40);
    expect(errorOf(() => parseRun([...long, 'q Q0 d3 41 0 t'].join('\n'))).line).toBe(41);
    expect(errorOf(() => parseRun([...long.slice(0, 20), 'q Q0 d19 21 0 t'].join('\n'))).line).toBe(21);
    const back = ['q S0 a 1 1 t', 'q S0 b 2 1 t', 'q S1 a 1 1 t', 'p S0 a 1 1 t', 'q S0 c 3 1 t'];
    expect(parseRun(back.join('\n'))).toHaveLength(5);
    for (const docno of ['a', 'b']) {
      const err = errorOf(() => parseRun([...back, `q S0 ${docno} 4 0 t`].join('\n')));
      expect([err.line, err.message]).toEqual([6, `line 6: docno: duplicate document '${docno}' for query 'q' and iteration 'S0'`]);
    }
    expect(parseRun([...back, 'q S1 b 2 0 t', 'p S0 b 2 0 t'].join('\n'))).toHaveLength(7);
  });

  it('returns no rows for an empty or comment-only file', () => {
    expect(parseRun('')).toEqual([]);
    expect(parseRun('# only\n\n')).toEqual([]);
  });
});

describe('Fair-RAG tab-separated runs', () => {
  const fairRag = ['qid\tsample\tdocno\trank\tsim\trun_id', '310\tQ0\t3101\t1\t0.83\tmain_exp', '310\tQ1\t3101\t2\t0.83\t'].join('\n');

  it('is detected by its header and allows an empty run_id', () => {
    const rows = parseRun(fairRag, 'f.tsv');
    expect(rows).toEqual([
      { qid: '310', iter: 'Q0', docno: '3101', rank: 1, score: 0.83, tag: 'main_exp', line: 2 },
      { qid: '310', iter: 'Q1', docno: '3101', rank: 2, score: 0.83, tag: '', line: 3 },
    ]);
  });

  it('reads without a run_id column when the format is forced', () => {
    expect(parseRun('qid\tsample\tdocno\trank\tsim\n1\tQ0\td\t1\t2', undefined, { format: 'tsv' })[0]!.tag).toBe('');
  });

  it('errors on a TREC-format file forced to tsv, and on a header forced to trec', () => {
    expect(errorOf(() => parseRun('q Q0 d 1 1 t', 'x', { format: 'tsv' })).message).toMatch(/^x:1: header: expected the header 'qid<TAB>sample/);
    expect(errorOf(() => parseRun(fairRag, 'x', { format: 'trec' })).message).toBe("x:1: rank: not an integer: 'rank'");
  });

  it('names the line of a bad tab-separated row', () => {
    const err = errorOf(() => parseRun('qid\tsample\tdocno\trank\tsim\trun_id\n1\tQ0\td\t1\tx\tr', 'f.tsv'));
    expect(err.message).toBe("f.tsv:2: score: not a number: 'x'");
  });
});

describe('readRunFile', () => {
  it('reads a file and names it in errors', () => {
    const good = join(dir, 'good.trec');
    writeFileSync(good, 'q Q0 d 1 1 t\n');
    expect(readRunFile(good)).toHaveLength(1);
    const bad = join(dir, 'bad.trec');
    writeFileSync(bad, 'q Q0 d 1 1 t\nq Q0 e 2\n');
    expect(errorOf(() => readRunFile(bad)).message).toBe(`${bad}:2: columns: expected 6 columns 'qid iter docno rank score tag', got 4`);
    expect(errorOf(() => readRunFile(join(dir, 'missing.trec'))).message).toMatch(/missing\.trec: cannot read file \(ENOENT\)/);
  });
});

describe('readRunByQuery (one query at a time, #18.1)', () => {
  const collect = async (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    const got: { qid: string; docnos: string[]; iters: string[]; scores: number[]; lines: number[] }[] = [];
    const counts = await readRunByQuery(join(dir, name), (qid: string, c: RunColumns) =>
      // Copies: the columns are only valid during the call.
      got.push({ qid, docnos: c.docno.slice(0, c.length), iters: c.iter.slice(0, c.length), scores: [...c.score], lines: [...c.line] }),
    );
    return { got, counts };
  };

  it('hands over each query when its last row is read, in file order, rows in file order', async () => {
    const text = ['# ir_metadata.start', '# ir_metadata.end', 'q2 Q0 a 1 3.5 t', 'q2 Q0 b 2 1 t', '', 'q1 S0 a 1 2 t', 'q1 S1 a 1 2 t', 'q1 S1 c 2 -1e-3 t', 'q3 Q0 z 1 0 t'].join('\n');
    const { got, counts } = await collect('grouped.trec', text);
    expect(counts).toEqual({ queries: 3, rows: 6 });
    expect(got).toEqual([
      { qid: 'q2', docnos: ['a', 'b'], iters: ['Q0', 'Q0'], scores: [3.5, 1], lines: [3, 4] },
      // A stochastic query: every sample's rows in one hand-over; 'a' again in another sample is allowed.
      { qid: 'q1', docnos: ['a', 'a', 'c'], iters: ['S0', 'S1', 'S1'], scores: [2, 2, -0.001], lines: [6, 7, 8] },
      { qid: 'q3', docnos: ['z'], iters: ['Q0'], scores: [0], lines: [9] },
    ]);
  });

  it('holds the same rows as readRunColumns', async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `q${Math.floor(i / 700)} Q0 d${i % 701} ${i + 1} ${(i * 0.37).toFixed(3)} t`).join('\n') + '\n';
    const { got } = await collect('big.trec', text);
    const whole = await readRunColumns(join(dir, 'big.trec'));
    expect(got.map((g) => g.qid)).toEqual(['q0', 'q1', 'q2', 'q3', 'q4']);
    expect(got.flatMap((g) => g.docnos)).toEqual(whole.docno);
    expect(got.flatMap((g) => g.scores)).toEqual([...whole.score]);
    expect(got.flatMap((g) => g.lines)).toEqual([...whole.line]);
  });

  it('throws RunNotGroupedError naming the query and line when a query comes back', async () => {
    const err = await collect('interleaved.trec', 'q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\nq1 Q0 b 2 0 t\n').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunNotGroupedError);
    expect(err).toMatchObject({ qid: 'q1', line: 3, message: "query 'q1' comes back at line 3 after other queries" });
  });

  it('reports a bad line and a duplicate with the same errors as readRunColumns', async () => {
    for (const [name, text, message] of [
      ['dup.trec', 'q1 Q0 a 1 1 t\nq2 Q0 a 1 1 t\nq2 Q0 a 2 0 t\n', "dup.trec:3: docno: duplicate document 'a' for query 'q2' and iteration 'Q0'"],
      ['bad.trec', 'q1 Q0 a 1 1 t\nq2 Q0 b 1 nan? t\n', "bad.trec:2: score: not a number: 'nan?'"],
    ] as const) {
      const streamed = await collect(name, text).catch((e: unknown) => e);
      const whole = await readRunColumns(join(dir, name)).catch((e: unknown) => e);
      expect(streamed).toBeInstanceOf(DataError);
      expect((streamed as DataError).message).toBe((whole as DataError).message);
      expect((streamed as DataError).message).toBe(`${join(dir, message.split(':')[0]!)}${message.slice(name.length)}`);
    }
  });
});

describe('formatRun', () => {
  it('keeps strictly decreasing scores and numbers ranks from 1 per (qid, iter)', () => {
    const text = formatRun(
      [
        { qid: '1', docno: 'a', score: 2.5 },
        { qid: '1', docno: 'b', score: 0.125 },
        { qid: '2', docno: 'a', score: -1 },
      ],
      { tag: 'bm25' },
    );
    expect(text).toBe('1 Q0 a 1 2.5 bm25\n1 Q0 b 2 0.125 bm25\n2 Q0 a 1 -1 bm25\n');
  });

  it('writes the real scores of a group with ties, tied documents in trec_eval order (docno descending)', () => {
    // Before #16.1 a tie replaced every score of the group by n, n-1, ..., 1 (here 3 2 1).
    const tie = formatRun(
      [
        { qid: 'q', docno: 'a', score: 1 },
        { qid: 'q', docno: 'b', score: 1 },
        { qid: 'q', docno: 'c', score: 0 },
        { qid: 'r', docno: 'x', score: 9 },
      ],
      { tag: 't' },
    );
    expect(tie).toBe('q Q0 b 1 1 t\nq Q0 a 2 1 t\nq Q0 c 3 0 t\nr Q0 x 1 9 t\n');
    // Rank order = trec_eval order: d10 before d9 would be wrong (byte-wise 'd9' > 'd10').
    expect(formatRun([{ qid: 'q', docno: 'd10', score: 0 }, { qid: 'q', docno: 'd9', score: 0 }], { tag: 't' })).toBe('q Q0 d9 1 0 t\nq Q0 d10 2 0 t\n');
    // An increase: the scores decide the order.
    expect(formatRun([{ qid: 'q', docno: 'a', score: 1 }, { qid: 'q', docno: 'b', score: 2 }], { tag: 't' })).toBe('q Q0 b 1 2 t\nq Q0 a 2 1 t\n');
  });

  it('derives scores n+1-rank, keeping the row order, for a group with a row without a finite score', () => {
    expect(formatRun([{ qid: 'q', docno: 'a' }, { qid: 'q', docno: 'b' }], { tag: 't' })).toBe('q Q0 a 1 2 t\nq Q0 b 2 1 t\n');
    expect(formatRun([{ qid: 'q', docno: 'b', score: 5 }, { qid: 'q', docno: 'a', score: Number.NaN }], { tag: 't' })).toBe('q Q0 b 1 2 t\nq Q0 a 2 1 t\n');
  });

  it('writes stochastic samples as separate groups whose rank order is trec_eval order', () => {
    const rows = [
      { qid: 'q', iter: 'S0', docno: 'a', score: 2 },
      { qid: 'q', iter: 'S1', docno: 'b', score: 2 },
      { qid: 'q', iter: 'S0', docno: 'b', score: 1 },
      { qid: 'q', iter: 'S1', docno: 'a', score: 1 },
    ];
    const back = parseRun(formatRun(rows, { tag: 'pl' }), undefined, { columns: 'strict' });
    for (const [sample, expected] of [['S0', ['a', 'b']], ['S1', ['b', 'a']]] as const) {
      const group = back.filter((r) => r.iter === sample);
      expect(group.map((r) => r.rank)).toEqual([1, 2]);
      expect(group.map((r) => r.docno)).toEqual(expected);
      expect(sortTrecEvalOrder(group).map((r) => r.docno)).toEqual(expected);
    }
  });

  it('round-trips scores exactly and evaluates to the intended order', () => {
    const rows = [0.30000000000000004, 0.3, 1e-7, -2].map((score, i) => ({ qid: 'q', docno: `d${i}`, score }));
    const back = parseRun(formatRun(rows, { tag: 't' }));
    expect(back.map((r) => r.score)).toEqual(rows.map((r) => r.score));
    const r = evaluateRun(back, [{ qid: 'q', docno: 'd1', rel: 1 }], ['RR']);
    expect(r.all.get('RR')).toBe(1 / 2);
  });

  it('writes an ir_metadata header whose tag defaults to the run tag', () => {
    const text = formatRun([{ qid: 'q', docno: 'a', score: 1 }], { tag: 'fair-pl', metadata: { method: { retrieval: 'bm25' } } });
    expect(text).toBe(
      ['# ir_metadata.start', '# schema-version: 0.1', '# tag: fair-pl', '# method:', '#   retrieval: bm25', '# ir_metadata.end', 'q Q0 a 1 1 fair-pl', ''].join('\n'),
    );
    expect(parseRun(text)).toHaveLength(1);
  });

  it('rejects rows that would not read back', () => {
    expect(errorOf(() => formatRun([{ qid: 'q', docno: 'a b' }], { tag: 't' })).message).toMatch(/^row 1 docno: must be non-empty and contain no whitespace/);
    expect(errorOf(() => formatRun([{ qid: '', docno: 'a' }], { tag: 't' })).field).toBe('row 1 qid');
    expect(errorOf(() => formatRun([], { tag: 'my run' })).field).toBe('tag');
    expect(errorOf(() => formatRun([{ qid: 'q', docno: 'a' }, { qid: 'q', docno: 'a' }], { tag: 't' })).message).toMatch(/duplicate document 'a'/);
    expect(formatRun([], { tag: 't' })).toBe('');
  });
});

describe('run columns beyond six (#16.2)', () => {
  it('reads the first six columns with one warning, as trec_eval does; strict refuses', () => {
    const warnings: [string, number][] = [];
    const rows = parseRun('q Q0 a 1 2 t x y\nq Q0 b 2 1 t z', 'r.trec', { onWarning: (m, line) => warnings.push([m, line]) });
    expect(rows.map((r) => [r.docno, r.score, r.tag])).toEqual([
      ['a', 2, 't'],
      ['b', 1, 't'],
    ]);
    expect(warnings).toEqual([['more than 6 columns; reading the first six, as trec_eval does (warned once per file)', 1]]);
    expect(errorOf(() => parseRun('q Q0 a 1 2 t x y', 'r.trec', { columns: 'strict' })).message).toBe("r.trec:1: columns: expected 6 columns 'qid iter docno rank score tag', got 8");
  });
});

describe('number parsing fast path', () => {
  it('gives exactly the double Number() gives for decimals of every length and sign', () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const scores: string[] = ['0', '-0', '1.', '.5', '+2.25', '-0.000', '0.1', '0.30000000000000004', '123456789012345', '1234567890123456', '9007199254740993'];
    for (let i = 0; i < 3000; i++) {
      const int = String(rnd(10 ** (1 + rnd(9))));
      const frac = Array.from({ length: rnd(12) }, () => rnd(10)).join('');
      scores.push(`${rnd(3) === 0 ? '-' : ''}${int}${frac ? `.${frac}` : ''}`);
    }
    const text = scores.map((s, i) => `q Q0 d${i} ${i + 1} ${s} t`).join('\n');
    const rows = parseRun(text);
    rows.forEach((r, i) => expect(Object.is(r.score, Number(scores[i])), scores[i]).toBe(true));
    expect(parseRun('q Q0 d 0012 1 t')[0]!.rank).toBe(12);
    expect(parseRun('q Q0 d -3 1e3 t')[0]).toMatchObject({ rank: -3, score: 1000 });
  });
});
