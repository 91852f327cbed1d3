/**
 * The run-file reader before #18.1, kept as the benchmark baseline: the whole file read and split
 * into one object per line (readLinesSync + splitLines), a regex split and trim per line, one row
 * object per line and one global Set of joined `qid\niter\ndocno` keys.
 */
import { readFileSync } from 'node:fs';
import { DataError } from '../../../src-main/core/errors';
import { isSkippable, parseScore, splitWhitespace, type Where } from '../../../src-main/io/trec/fields';
import type { RunRow } from '../../../src-main/io/trec/run';

const decoder = new TextDecoder('utf-8', { fatal: true });

interface NumberedLine {
  line: number;
  text: string;
}

function splitLines(text: string): NumberedLine[] {
  const parts = text.split(/\r?\n/);
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts.map((t, i) => ({ line: i + 1, text: t }));
}

function readLinesSync(file: string): NumberedLine[] {
  return splitLines(decoder.decode(readFileSync(file)).replace(/^\uFEFF/, ''));
}

export function readRunFileV0(path: string): RunRow[] {
  const rows: RunRow[] = [];
  const seen = new Set<string>();
  for (const { line, text } of readLinesSync(path)) {
    if (isSkippable(text)) continue;
    const where: Where = { file: path, line };
    const f = splitWhitespace(text);
    if (f.length !== 6) throw new DataError(`expected 6 columns 'qid iter docno rank score tag', got ${f.length}`, { ...where, field: 'columns' });
    const rank = Number(f[3]);
    if (f[3] === '' || !Number.isInteger(rank)) throw new DataError(`not an integer: '${f[3]}'`, { ...where, field: 'rank' });
    const row: RunRow = { qid: f[0]!, iter: f[1]!, docno: f[2]!, rank, score: parseScore(f[4]!, 'score', where), tag: f[5]!, line };
    const key = `${row.qid}\n${row.iter}\n${row.docno}`;
    if (seen.has(key)) throw new DataError(`duplicate document '${row.docno}' for query '${row.qid}' and iteration '${row.iter}'`, { ...where, field: 'docno' });
    seen.add(key);
    rows.push(row);
  }
  return rows;
}
