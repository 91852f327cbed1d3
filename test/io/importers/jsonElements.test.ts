import { describe, expect, it } from 'vitest';
import { DataError } from '../../../src-main/core/errors';
import { splitLines } from '../../../src-main/io/lines';
import { parseElement, streamJsonElements, type JsonElement } from '../../../src-main/io/importers/jsonElements';

async function elements(text: string): Promise<{ container: string | undefined; items: JsonElement[] }> {
  const stream = streamJsonElements(
    (async function* () {
      yield* splitLines(text);
    })(),
    'x.json',
  );
  const items: JsonElement[] = [];
  for await (const e of stream.elements) items.push(e);
  return { container: stream.container(), items };
}

async function failure(text: string): Promise<DataError> {
  try {
    await elements(text);
  } catch (err) {
    if (err instanceof DataError) return err;
    throw err;
  }
  throw new Error('expected a DataError');
}

describe('streaming the elements of a JSON container', () => {
  it('splits a top-level array with nested brackets and strings containing brackets and commas', async () => {
    const { container, items } = await elements('[\n  {"a": [1, 2], "s": "x],{\\"y"},\n  {"b": {}}\n  , 3]\n');
    expect(container).toBe('[');
    expect(items).toEqual([
      { line: 2, text: '{"a": [1, 2], "s": "x],{\\"y"}' },
      { line: 3, text: '{"b": {}}' },
      { line: 4, text: '3' },
    ]);
    expect(parseElement(items[0]!, 'x.json')).toEqual({ a: [1, 2], s: 'x],{"y' });
  });

  it('splits the members of a top-level object', async () => {
    const { container, items } = await elements('{"task": "LaMP_2",\n "golds": [\n  {"id": "1"}\n ]}');
    expect(container).toBe('{');
    expect(items.map((i) => i.line)).toEqual([1, 2]);
    expect(parseElement(items[1]!, 'x.json', true)).toEqual({ golds: [{ id: '1' }] });
  });

  it('gives an empty array no elements', async () => {
    expect((await elements(' [ ] ')).items).toEqual([]);
  });

  it('names the line of a syntax error inside a multi-line element', async () => {
    const { items } = await elements('[\n{"a": 1,\n "b": 2,,\n "c": 3}\n]');
    const err = (() => {
      try {
        parseElement(items[0]!, 'x.json');
      } catch (e) {
        return e as DataError;
      }
    })();
    expect(err).toBeInstanceOf(DataError);
    expect(err).toMatchObject({ file: 'x.json', line: 3 });
    expect(err!.message).toMatch(/^x\.json:3: invalid JSON/);
  });

  it('rejects text after the container, a missing element, an unclosed container and a non-container', async () => {
    expect(await failure('[1]\nx')).toMatchObject({ line: 2 });
    expect(await failure('[1,\n,2]')).toMatchObject({ line: 2 });
    expect(await failure('[1,\n]')).toMatchObject({ line: 2 });
    expect((await failure('[1,\n2')).message).toContain('not closed');
    expect((await failure('"just a string"')).message).toContain('expected a JSON array or object');
    expect((await failure('')).message).toContain('empty');
  });
});
