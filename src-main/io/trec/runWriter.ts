/**
 * Writing TREC run files (conventions.md §4). Apart from the readers in run.ts, so that reading a
 * run (eval ir, eval exposure) does not load the YAML library the ir_metadata header needs.
 */
import { DataError } from '../../core/errors';
import { compareRankOrder } from '../../core/ir/rankOrder';
import { formatIrMetadataHeader, type IrMetadata } from './irMetadata';
import { checkToken } from './fields';

/** What a writer needs of a row; `RunRow` fits. */
export interface RunWriteRow {
  qid: string;
  /** Default `Q0`. */
  iter?: string;
  docno: string;
  /** Optional: a group with a row without a finite score gets scores from positions (see formatRun). */
  score?: number;
}

export interface RunWriteOptions {
  tag: string;
  /**
   * Written first as an ir_metadata header (`#` lines); its `tag` defaults to the run tag. Off
   * unless given: pytrec_eval's, ranx's and ir_measures' run parsers fail on `#` lines, so callers
   * write it only when asked (`--metadata`) or as a sidecar file (formatIrMetadataHeader).
   */
  metadata?: IrMetadata;
}

/**
 * Write a run that every common reader (trec_eval, pytrec_eval, ranx, ir_measures) reads as six
 * columns, in the order trec_eval reads it.
 *
 * Groups are the (qid, iter) pairs, in order of first appearance. When every row of a group has a
 * finite score, the real scores are written and the rows are put in trec_eval's order (score
 * descending, equal scores by docno descending, byte-wise), ranks 1..n: the written rank order and
 * trec_eval's order agree without touching a score, and a Plackett–Luce sampler reading the file
 * sees the retriever's scores. A group with a row without a finite score keeps its row order and
 * gets the scores n, n−1, …, 1 (one rule for the whole group). Scores are printed with JS's shortest
 * round-trip form, so a reader parses back the same doubles.
 */
export function formatRun(rows: readonly RunWriteRow[], opts: RunWriteOptions): string {
  checkToken(opts.tag, 'tag');
  const groups = new Map<string, RunWriteRow[]>();
  rows.forEach((r, i) => {
    const iter = r.iter ?? 'Q0';
    checkToken(r.qid, `row ${i + 1} qid`);
    checkToken(iter, `row ${i + 1} iter`);
    checkToken(r.docno, `row ${i + 1} docno`);
    const key = `${r.qid}\n${iter}`;
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(r);
  });

  let out = opts.metadata ? formatIrMetadataHeader({ ...opts.metadata, tag: opts.metadata.tag ?? opts.tag }) : '';
  for (const group of groups.values()) {
    const docnos = new Set<string>();
    for (const r of group) {
      if (docnos.has(r.docno)) throw new DataError(`duplicate document '${r.docno}' for query '${r.qid}' and iteration '${r.iter ?? 'Q0'}'`, { field: 'docno' });
      docnos.add(r.docno);
    }
    const scored = group.every((r) => Number.isFinite(r.score));
    const ordered = scored ? group.slice().sort((a, b) => compareRankOrder(a.score!, a.docno, b.score!, b.docno)) : group;
    const n = ordered.length;
    ordered.forEach((r, i) => {
      const score = scored ? r.score! : n - i;
      out += `${r.qid} ${r.iter ?? 'Q0'} ${r.docno} ${i + 1} ${String(score)} ${opts.tag}\n`;
    });
  }
  return out;
}
