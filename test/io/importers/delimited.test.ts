import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { splitLines } from '../../../src-main/io/lines';
import { readDelimitedRecords, type DelimitedRecord } from '../../../src-main/io/importers/delimited';

async function parse(text: string, delimiter = ',', quoted = true): Promise<DelimitedRecord[]> {
  const out: DelimitedRecord[] = [];
  const lines = (async function* () {
    yield* splitLines(text);
  })();
  for await (const r of readDelimitedRecords(lines, 'f.csv', { delimiter, quoted })) out.push(r);
  return out;
}

async function failure(text: string, delimiter = ','): Promise<DataError> {
  try {
    await parse(text, delimiter);
  } catch (err) {
    if (err instanceof DataError) return err;
    throw err;
  }
  throw new Error('expected a DataError');
}

describe('RFC 4180 CSV records', () => {
  it('splits plain fields and keeps empty ones', async () => {
    expect(await parse('a,b,c\n1,,3\n,,\n')).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', '', '3'] },
      { line: 3, fields: ['', '', ''] },
    ]);
  });

  it('reads quoted fields with delimiters, doubled quotes and empty quoted fields', async () => {
    expect(await parse('"a,b","say ""hi""",""\n')).toEqual([{ line: 1, fields: ['a,b', 'say "hi"', ''] }]);
  });

  it('keeps line breaks inside quotes and numbers records by their first line', async () => {
    const recs = await parse('id,text\n1,"first\nsecond\n\nfourth"\n2,x\r\n3,"a\r\nb"\n');
    expect(recs).toEqual([
      { line: 1, fields: ['id', 'text'] },
      { line: 2, fields: ['1', 'first\nsecond\n\nfourth'] },
      { line: 6, fields: ['2', 'x'] },
      { line: 7, fields: ['3', 'a\nb'] },
    ]);
  });

  it('skips blank lines between records; a last line without newline is a record', async () => {
    expect(await parse('a\n\n\nb')).toEqual([
      { line: 1, fields: ['a'] },
      { line: 4, fields: ['b'] },
    ]);
  });

  it('handles a quote right at a line end and an escaped quote across the break', async () => {
    expect(await parse('"x""\n""y"\n')).toEqual([{ line: 1, fields: ['x"\n"y'] }]);
  });

  it('supports another delimiter', async () => {
    expect(await parse('a;"b;c"\n', ';')).toEqual([{ line: 1, fields: ['a', 'b;c'] }]);
  });

  it('rejects a quote inside an unquoted field, with line and column', async () => {
    const err = await failure('a,b\nx,ab"c\n');
    expect(err).toMatchObject({ file: 'f.csv', line: 2, field: 'column 2' });
    expect(err.message).toContain('quote inside an unquoted field');
  });

  it('rejects text after a closing quote', async () => {
    const err = await failure('a\n"x"y,z\n');
    expect(err).toMatchObject({ line: 2, field: 'column 1' });
    expect(err.message).toContain('after the closing quote');
  });

  it('reports a quote never closed at the line where it opened', async () => {
    const err = await failure('a,b\n1,2\n3,"open\nstill\nopen\n');
    expect(err).toMatchObject({ line: 3, field: 'column 2' });
    expect(err.message).toContain('never closed');
  });
});

describe('TSV records (no quoting)', () => {
  it('treats quotes as ordinary characters', async () => {
    expect(await parse('1\tThe "quick" fox\n2\t"\n', '\t', false)).toEqual([
      { line: 1, fields: ['1', 'The "quick" fox'] },
      { line: 2, fields: ['2', '"'] },
    ]);
  });
});
