import { describe, expect, it } from 'vitest';
import { evaluateRun } from '../../src-main/core/ir/evaluateRun';
import { csvField, formatMeasureCsv, formatMeasureTsv, measureRows, type MeasureTable } from '../../src-main/io/measureCsv';

const table: MeasureTable = {
  measures: ['nDCG@10', 'NumRet'],
  perQuery: new Map([
    ['nDCG@10', new Map([['q1', 0.123456], ['q2', 1]])],
    ['NumRet', new Map([['q1', 10], ['q2', 3]])],
  ]),
  all: new Map([['nDCG@10', 0.561728], ['NumRet', 13]]),
};

describe('measureRows', () => {
  it('orders rows like trec_eval -q: per query, then all', () => {
    expect(measureRows(table).map((r) => `${r.measure}/${r.qid}`)).toEqual(['nDCG@10/q1', 'NumRet/q1', 'nDCG@10/q2', 'NumRet/q2', 'nDCG@10/all', 'NumRet/all']);
    expect(measureRows(table, { perQuery: false }).map((r) => r.qid)).toEqual(['all', 'all']);
    expect(measureRows(table, { all: false })).toHaveLength(4);
  });
});

describe('formatMeasureTsv', () => {
  it('prints 4 decimals, counts as integers', () => {
    expect(formatMeasureTsv(measureRows(table), { integerMeasures: new Set(['NumRet']) })).toBe(
      ['nDCG@10\tq1\t0.1235', 'NumRet\tq1\t10', 'nDCG@10\tq2\t1.0000', 'NumRet\tq2\t3', 'nDCG@10\tall\t0.5617', 'NumRet\tall\t13', ''].join('\n'),
    );
  });

  it('prints counts with decimals unless declared integer, and never -0.0000', () => {
    expect(formatMeasureTsv([{ measure: 'NumRet', qid: 'all', value: 13 }])).toBe('NumRet\tall\t13.0000\n');
    expect(formatMeasureTsv([{ measure: 'X', qid: 'q', value: -1e-9 }])).toBe('X\tq\t0.0000\n');
    expect(formatMeasureTsv([{ measure: 'X', qid: 'q', value: 2 / 3 }], { decimals: 2 })).toBe('X\tq\t0.67\n');
  });
});

describe('formatMeasureCsv', () => {
  it('writes header measure,qid,value at full precision', () => {
    expect(formatMeasureCsv(measureRows(table, { perQuery: false }))).toBe('measure,qid,value\nnDCG@10,all,0.561728\nNumRet,all,13\n');
    expect(formatMeasureCsv([{ measure: 'AP', qid: 'q', value: 1 / 3 }], { decimals: 4, lineEnding: '\r\n' })).toBe('measure,qid,value\r\nAP,q,0.3333\r\n');
  });

  it('quotes fields per RFC 4180', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(formatMeasureCsv([{ measure: 'X(a=1,b=2)@5', qid: 'q "7"', value: 0.5 }])).toBe('measure,qid,value\n"X(a=1,b=2)@5","q ""7""",0.5\n');
  });

  it('takes evaluateRun output directly', () => {
    const r = evaluateRun([{ qid: 'q', docno: 'a', score: 1 }], [{ qid: 'q', docno: 'a', rel: 1 }], ['P(rel=1)@2']);
    expect(formatMeasureCsv(measureRows(r))).toBe('measure,qid,value\nP@2,q,0.5\nP@2,all,0.5\n');
  });
});
