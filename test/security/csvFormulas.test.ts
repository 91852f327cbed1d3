/**
 * Issue 36 item 3: a query id `=HYPERLINK("http://evil.example/x","tag-u1")` was accepted at import and written as a
 * formula cell in the per-query and per-sample CSVs. Every CSV writer now neutralises a field that begins with `=`,
 * `+`, `-`, `@`, a tab or a CR and is not a number (OWASP: a single quote in front, the field quoted); numbers stay
 * as they are. Ids with NUL or a bidirectional control are refused at import and by `eval ir`, naming file and line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError } from '../../src-main/core/errors';
import { csvField, csvTable } from '../../src-main/core/format/csv';
import { csvField as fairRagField } from '../../src-main/experiments/fair-rag/exports';
import { csvField as moiField } from '../../src-main/experiments/moi/exports';
import { idProblem } from '../../src-main/io/importers/index';
import { formatMeasureCsv } from '../../src-main/io/measureCsv';
import { readQrels } from '../../src-main/io/trec/qrels';
import { readRunBytesByQuery } from '../../src-main/io/trec/runBytes';
import { CollectionsService } from '../../src-main/services/collectionsService';
import { EventBus } from '../../src-main/services/eventBus';
import { JobRunner } from '../../src-main/services/jobRunner';
import { openWorkspace } from '../../src-main/store/workspace';
import { runCliCaptured } from '../support/cli';

const EVIL = '=HYPERLINK("http://evil.example/x","tag-u1")';
/** What a spreadsheet gets: the text with a quote in front, in one quoted field with its quotes doubled. */
const EVIL_CSV = `"'=HYPERLINK(""http://evil.example/x"",""tag-u1"")"`;

const dir = mkdtempSync(join(tmpdir(), 'fg-csv-formulas-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

describe('a CSV field is never a formula', () => {
  it('core csvField: formula-like text gets a quote in front and is quoted; numbers and plain text stay', () => {
    expect(csvField(EVIL)).toBe(EVIL_CSV);
    expect(csvField('+1+cmd|calc')).toBe(`"'+1+cmd|calc"`);
    expect(csvField('-2+3')).toBe(`"'-2+3"`);
    expect(csvField('@SUM(A1:A9)')).toBe(`"'@SUM(A1:A9)"`);
    expect(csvField('\t=1+1')).toBe(`"'\t=1+1"`);
    expect(csvField('\r=1+1')).toBe(`"'\r=1+1"`);
    expect(csvField('-')).toBe(`"'-"`);
    for (const n of ['-0.25', '+1', '-1e-7', '+.5', '-3.', '-Infinity', '0', '12', 'a=b', 'tag-u1', "'=x", '']) expect(csvField(n), n).toBe(n);
    expect(csvField('a,b')).toBe('"a,b"'); // RFC 4180 as before
  });

  it('every writer: csvTable (renderer downloads), Fair-RAG and MoI exports, the measure CSV', () => {
    expect(csvTable(['query_id', 'value'], [[EVIL, -0.5], ['q2', 1]])).toBe(`query_id,value\n${EVIL_CSV},-0.5\nq2,1\n`);
    expect(fairRagField(EVIL)).toBe(EVIL_CSV);
    expect(fairRagField(-0.5)).toBe('-0.5');
    expect(moiField(EVIL)).toBe(EVIL_CSV);
    expect(moiField(-1)).toBe('-1');
    expect(formatMeasureCsv([{ measure: 'RR', qid: EVIL, value: -0 }, { measure: 'RR', qid: '@q', value: 0.5 }])).toContain(`RR,${EVIL_CSV},`);
  });

  it('`eval ir --csv` with the issue\'s qid writes it neutralised', async () => {
    const run = file('evil.run', `${EVIL} Q0 d1 1 2.0 t\n${EVIL} Q0 d2 2 1.0 t\n`);
    const qrels = file('evil.qrels', `${EVIL} 0 d2 1\n`);
    const r = await runCliCaptured(['eval', 'ir', '--run', run, '--qrels', qrels, '-m', 'RR', '-q', '--csv'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`measure,qid,value\nRR,${EVIL_CSV},0.5\nRR,all,0.5\n`);
  });
});

describe('ids with NUL or a bidirectional control are refused', () => {
  it('idProblem names the bidirectional control and where it is', () => {
    for (const c of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c']) {
      expect(idProblem(`tag${c}u1`), c).toBe(`contains the bidirectional control U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} at character 4; ids may not contain bidirectional controls (they would show in another order than they are stored)`);
    }
    expect(idProblem('a\u0000b')).toMatch(/^contains NUL at character 2/);
    expect(idProblem('tag-u1')).toBeNull();
  });

  it('import of queries with U+202E: refused naming file, line and field, nothing stored', async () => {
    const ws = openWorkspace(':memory:');
    try {
      const svc = new CollectionsService(ws.db, new JobRunner(ws.db, new EventBus()));
      const q = file('q.jsonl', `{"qid":"u1","query":"x"}\n{"qid":"tag\\u202Eu1","query":"y"}\n`);
      let err: unknown;
      try {
        await svc.importFiles({ collectionName: 'C', kind: 'queries', files: [q] });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(DataError);
      expect((err as DataError).message).toContain('contains the bidirectional control U+202E at character 4');
      expect((err as DataError).file).toBe(q);
      expect((err as DataError).line).toBe(2);
      expect((ws.db.prepare('SELECT count(*) AS n FROM queries').get() as { n: number }).n).toBe(0);
    } finally {
      ws.close();
    }
  });

  it('`eval ir`: NUL in a docno of the run, U+202E in a qid of the qrels: exit 2, file and line named', async () => {
    const okRun = file('ok.run', 'q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\n');
    const okQrels = file('ok.qrels', 'q1 0 d1 1\n');
    const nulRun = file('nul.run', 'q1 Q0 d1 1 2.0 t\nq1 Q0 d\u00002 2 1.0 t\n');
    const bidiQrels = file('bidi.qrels', 'q1 0 d1 1\nq\u202e2 0 d1 1\n');
    const a = await runCliCaptured(['eval', 'ir', '--run', nulRun, '--qrels', okQrels, '-m', 'RR'], { cwd: dir });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(`${nulRun}:2`);
    expect(a.stderr).toContain('docno');
    expect(a.stderr).toContain('contains NUL');
    const b = await runCliCaptured(['eval', 'ir', '--run', okRun, '--qrels', bidiQrels, '-m', 'RR'], { cwd: dir });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`${bidiQrels}:2`);
    expect(b.stderr).toContain('contains the bidirectional control U+202E');
    // The byte readers leave such files to the general readers (which refuse them); clean ones they read.
    expect(readRunBytesByQuery(nulRun, () => {}).done).toBe(false);
    expect(readRunBytesByQuery(okRun, () => {}).done).toBe(true);
    await expect(readQrels(bidiQrels)).rejects.toThrow(`${bidiQrels}:2: qid: contains the bidirectional control U+202E`);
  });
});
