import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { formatQrels, parseQrels, parseRelevanceMappingTsv, readQrelsFile } from '../../../src-main/io/trec';

const dir = mkdtempSync(join(tmpdir(), 'fg-trec-qrels-'));
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

describe('parseQrels', () => {
  it('reads qid iter docno rel, including negative (unjudged) labels and group ids', () => {
    expect(parseQrels('301 0 FT-1 2\n\n301 0 FT-2 -1\n302 g1,g2 FT-1 0\n')).toEqual([
      { qid: '301', iter: '0', docno: 'FT-1', rel: 2, line: 1 },
      { qid: '301', iter: '0', docno: 'FT-2', rel: -1, line: 3 },
      { qid: '302', iter: 'g1,g2', docno: 'FT-1', rel: 0, line: 4 },
    ]);
  });

  it.each([
    ['1 0 d', 'q.txt:1: columns: expected 4 columns'],
    ['1 0 d 1 x', 'q.txt:1: columns: expected 4 columns'],
    ['1 0 d 1.5', "q.txt:1: rel: not an integer: '1.5'"],
    ['1 0 d yes', "q.txt:1: rel: not an integer: 'yes'"],
  ])('rejects %j', (line, message) => {
    expect(errorOf(() => parseQrels(line, 'q.txt')).message).toContain(message);
  });

  it('rejects a (qid, docno) judged twice, even under another iter', () => {
    const err = errorOf(() => parseQrels('1 0 d 1\n1 0 e 0\n1 1 d 0', 'q.txt'));
    expect(err.message).toBe("q.txt:3: docno: duplicate judgement of 'd' for query '1'");
  });
});

describe('Fair-RAG relevance mapping', () => {
  const mapping = 'qid\tpid\trelevance_label\n310\t3101\t1\n310\t3102\t0\n';

  it('reads the TSV with its header; iter is 0', () => {
    expect(parseRelevanceMappingTsv(mapping)).toEqual([
      { qid: '310', iter: '0', docno: '3101', rel: 1, line: 2 },
      { qid: '310', iter: '0', docno: '3102', rel: 0, line: 3 },
    ]);
  });

  it('is picked automatically by parseQrels and readQrelsFile', () => {
    expect(parseQrels(mapping)).toHaveLength(2);
    const path = join(dir, 'map.tsv');
    writeFileSync(path, mapping);
    expect(readQrelsFile(path).map((r) => r.docno)).toEqual(['3101', '3102']);
  });

  it('names the file and line of a bad header or row', () => {
    expect(errorOf(() => parseRelevanceMappingTsv('qid\tdoc\tlabel\n', 'm.tsv')).message).toBe("m.tsv:1: header: expected the header 'qid<TAB>pid<TAB>relevance_label'");
    expect(errorOf(() => parseRelevanceMappingTsv(mapping + '310\t3103\n', 'm.tsv')).message).toMatch(/^m\.tsv:4: columns: expected 3 tab-separated columns/);
    expect(errorOf(() => parseRelevanceMappingTsv(mapping + '310\t3103\tyes\n', 'm.tsv')).message).toBe("m.tsv:4: relevance_label: not an integer: 'yes'");
    expect(errorOf(() => parseRelevanceMappingTsv(mapping + '310\t3101\t0\n', 'm.tsv')).line).toBe(4);
  });
});

describe('readQrelsFile', () => {
  it('names the file in errors', () => {
    const path = join(dir, 'bad.qrels');
    writeFileSync(path, '1 0 d 1\n1 0 e\n');
    expect(errorOf(() => readQrelsFile(path)).message).toBe(`${path}:2: columns: expected 4 columns 'qid iter docno rel', got 3`);
  });

  it('rejects invalid UTF-8 with its line', () => {
    const path = join(dir, 'latin1.qrels');
    writeFileSync(path, Buffer.concat([Buffer.from('1 0 d 1\n1 0 '), Buffer.from([0xe9]), Buffer.from(' 0\n')]));
    expect(errorOf(() => readQrelsFile(path)).message).toBe(`${path}:2: invalid UTF-8`);
  });
});

describe('formatQrels', () => {
  it('writes qid iter docno rel lines that read back', () => {
    const rows = [
      { qid: '1', docno: 'a', rel: 2 },
      { qid: '1', iter: 'g1', docno: 'b', rel: -1 },
    ];
    const text = formatQrels(rows);
    expect(text).toBe('1 0 a 2\n1 g1 b -1\n');
    expect(parseQrels(text).map(({ qid, docno, rel }) => ({ qid, docno, rel }))).toEqual(rows.map(({ qid, docno, rel }) => ({ qid, docno, rel })));
    expect(formatQrels([])).toBe('');
  });

  it('rejects what a reader would reject', () => {
    expect(errorOf(() => formatQrels([{ qid: '1', docno: 'a', rel: 0.5 }])).field).toBe('row 1 rel');
    expect(errorOf(() => formatQrels([{ qid: '1', docno: 'a\tb', rel: 1 }])).field).toBe('row 1 docno');
    expect(errorOf(() => formatQrels([{ qid: '1', docno: 'a', rel: 1 }, { qid: '1', docno: 'a', rel: 0 }])).message).toMatch(/^row 2 docno: duplicate/);
  });
});
