import { describe, expect, it } from 'vitest';
import { formatIrMetadataHeader, parseIrMetadataHeader, parseRun } from '../../../src-main/io/trec';

describe('formatIrMetadataHeader', () => {
  it('writes # -prefixed YAML between the markers, keys in the PRIMAD order', () => {
    const text = formatIrMetadataHeader({
      data: { 'test collection': { name: 'LaMP-7' } },
      custom: 'x',
      tag: 'pl-a2',
      'run-version': '1.0',
      platform: { software: { libraries: ['node-llama-cpp 3.21.1'] } },
    });
    expect(text).toBe(
      [
        '# ir_metadata.start',
        '# schema-version: 0.1',
        '# run-version: "1.0"',
        '# tag: pl-a2',
        '# platform:',
        '#   software:',
        '#     libraries:',
        '#       - node-llama-cpp 3.21.1',
        '# data:',
        '#   test collection:',
        '#     name: LaMP-7',
        '# custom: x',
        '# ir_metadata.end',
        '',
      ].join('\n'),
    );
  });

  it('round-trips through parseIrMetadataHeader, multi-line strings included', () => {
    const meta = { tag: 't', method: { prompt: 'line one\n\nline three', seeds: [42, 7] }, 'research goal': { description: 'x: y # z' } };
    const text = formatIrMetadataHeader(meta) + 'q Q0 d 1 1 t\n';
    expect(parseIrMetadataHeader(text)).toEqual({ 'schema-version': 0.1, ...meta });
    // and the whole block is invisible to the run reader
    expect(parseRun(text)).toHaveLength(1);
  });
});

describe('parseIrMetadataHeader', () => {
  it('returns undefined when the file has no header', () => {
    expect(parseIrMetadataHeader('q Q0 d 1 1 t\n')).toBeUndefined();
    expect(parseIrMetadataHeader('# just a comment\nq Q0 d 1 1 t\n')).toBeUndefined();
    expect(parseIrMetadataHeader('')).toBeUndefined();
  });

  it('rejects an unclosed block and invalid YAML, naming file and line', () => {
    expect(() => parseIrMetadataHeader('# ir_metadata.start\n# tag: t\nq Q0 d 1 1 t\n', 'r.trec')).toThrow('r.trec:3: ir_metadata: block not closed with ir_metadata.end');
    expect(() => parseIrMetadataHeader('# ir_metadata.start\n# tag: [unclosed\n# ir_metadata.end\n', 'r.trec')).toThrow(/^r\.trec:3: ir_metadata: invalid YAML/);
    expect(() => parseIrMetadataHeader('# ir_metadata.start\n# - a\n# ir_metadata.end\n', 'r.trec')).toThrow('r.trec:3: ir_metadata: expected a YAML mapping');
  });
});
