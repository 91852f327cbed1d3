/**
 * `fairground sample`: the Fair RAG stochastic retriever (Sec. 3.2) as a file transformation. A
 * deterministic TREC run (every candidate of a query with its retrieval score) becomes a
 * stochastic run: N Plackett–Luce top-k rankings per query, sample ids `Q0..Q{N−1}` in column 2
 * (the ids Fair-RAG writes for expeval, reference/fair-rag.md §5), ranks 1..k and strictly
 * decreasing scores k..1 (the score of a stochastic run is ignored by expeval; these keep
 * trec_eval's score order equal to the rank order).
 *
 * Reproducibility: each query draws from `createRng(seed).fork(qid)`, so a query's samples do not
 * depend on which other queries the run holds (Fair-RAG instead uses one numpy stream across all
 * queries, so its samples cannot be reproduced query by query). Within a query the candidates are
 * ordered by docno before the Gumbel draws, so reordering the input lines changes nothing.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DataError } from '../../core/errors';
import { createRng } from '../../core/random/rng';
import { compareIds } from '../../core/sampling/itemChecks';
import { samplePlackettLuce, type ScoredItem } from '../../core/sampling/plackettLuce';
import type { ScoreNormalization } from '../../core/sampling/scoreNormalization';
import { formatRun, readRunFile, type RunRow, type RunWriteRow } from '../../io/trec';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';

const NORMALIZATIONS: readonly ScoreNormalization[] = ['paper', 'code'];

const help = `Usage: fairground sample --run RUN --alpha A --samples N -k K --seed S [--normalization paper|code] [--tag TAG] [--output FILE]

Turns a deterministic TREC run into a stochastic one with the fairness-aware Plackett-Luce
retriever of Fair RAG (Kim & Diaz, Sec. 3.2): per query, the scores of all its candidates are
min-max normalised to [1, 2], raised to the power alpha and used as PL log-weights; N top-k
rankings are drawn with the Gumbel trick.

Options:
  --run FILE             deterministic run (qid Q0 docno rank score tag, or Fair-RAG's TSV); every row
                         of a query is a candidate, ranked by its score
  --alpha A              fairness control, A >= 0: 0 = uniform, 8 = practically deterministic
  --samples N            rankings per query (the paper uses 100)
  -k K                   ranking depth (the paper uses 5); queries with fewer than K candidates
                         get rankings of all of them
  --seed S               integer seed (0..4294967295); each query uses its own stream forked by qid
  --normalization M      paper (default): 1 + (s - min)/(max - min); code: the released code, which
                         shifts negative scores once more (range [1 + |min|/(max-min), 2 + |min|/(max-min)])
  --tag TAG              run tag (default pl_alphaA)
  --output FILE          write the run here instead of stdout

All-equal scores give uniform rankings (the released code freezes one ranking instead).
Output: qid Q<sample> docno rank score tag, samples Q0..Q(N-1), ranks 1..K, scores K..1.

Example:
  fairground sample --run bm25.trec --alpha 2 --samples 100 -k 5 --seed 42 --output bm25.a2.trec
`;

export const sampleCommand: CliCommand = {
  path: ['sample'],
  summary: 'Sample a stochastic run from a deterministic one (Plackett-Luce, fairness control alpha)',
  help,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      run: { type: 'string' },
      alpha: { type: 'string' },
      samples: { type: 'string' },
      k: { type: 'string', short: 'k' },
      seed: { type: 'string' },
      normalization: { type: 'string' },
      tag: { type: 'string' },
      output: { type: 'string', short: 'o' },
    });
    const runFile = requireOption(values.run, 'run');
    const alpha = numberOption(requireOption(values.alpha, 'alpha'), 'alpha', { min: 0 }) as number;
    const samples = numberOption(requireOption(values.samples, 'samples'), 'samples', { integer: true, min: 1 }) as number;
    const k = numberOption(requireOption(values.k, 'k'), 'k', { integer: true, min: 1 }) as number;
    const seed = numberOption(requireOption(values.seed, 'seed'), 'seed', { integer: true, min: 0, max: 0xffffffff }) as number;
    const normalization = values.normalization ?? 'paper';
    if (!(NORMALIZATIONS as readonly string[]).includes(normalization)) {
      throw new CliError(`--normalization: expected one of ${NORMALIZATIONS.join(', ')}, got '${normalization}'`);
    }
    const tag = values.tag ?? `pl_alpha${String(alpha)}`;

    const rows = readRows(path.resolve(io.cwd, runFile), runFile);
    const root = createRng(seed);
    const out: RunWriteRow[] = [];
    for (const [qid, items] of candidatesByQuery(rows, runFile)) {
      let rankings: string[][];
      try {
        rankings = samplePlackettLuce({ items, alpha, k, samples, rng: root.fork(qid), normalization: normalization as ScoreNormalization });
      } catch (err) {
        if (err instanceof RangeError) throw new CliError(`query '${qid}': ${err.message}`);
        throw err;
      }
      rankings.forEach((ranking, s) => {
        ranking.forEach((docno, i) => out.push({ qid, iter: `Q${s}`, docno, score: ranking.length - i }));
      });
    }
    const text = formatRun(out, { tag });
    if (values.output === undefined) {
      io.stdout.write(text);
    } else {
      try {
        writeFileSync(path.resolve(io.cwd, values.output), text);
      } catch (err) {
        throw new CliError(`cannot write ${values.output} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
    }
    return 0;
  },
};

function readRows(resolved: string, given: string): RunRow[] {
  try {
    return readRunFile(resolved);
  } catch (err) {
    throw err instanceof DataError ? err.inFile(given) : err;
  }
}

/**
 * Candidates per query, queries in order of first appearance, candidates sorted by docno. A
 * deterministic run has one ranking per query; a second column-2 value for the same query means
 * the input is already stochastic, which is refused rather than silently pooled.
 */
function candidatesByQuery(rows: readonly RunRow[], file: string): Map<string, ScoredItem[]> {
  const byQuery = new Map<string, { iter: string; items: ScoredItem[] }>();
  for (const row of rows) {
    // trec_eval keeps Unicode spaces (U+00A0) inside a field; the run we write may not (formatRun).
    for (const field of ['qid', 'docno'] as const) {
      if (/\s/.test(row[field])) throw new DataError(`contains a Unicode space, which the written run cannot keep: '${row[field]}'`, { file, line: row.line, field });
    }
    let q = byQuery.get(row.qid);
    if (!q) byQuery.set(row.qid, (q = { iter: row.iter, items: [] }));
    if (row.iter !== q.iter) {
      throw new DataError(`query '${row.qid}' has rankings '${q.iter}' and '${row.iter}'; expected one deterministic ranking per query`, {
        file,
        line: row.line,
        field: 'iter',
      });
    }
    q.items.push({ id: row.docno, score: row.score });
  }
  const out = new Map<string, ScoredItem[]>();
  for (const [qid, q] of byQuery) out.set(qid, q.items.sort((a, b) => compareIds(a.id, b.id)));
  return out;
}
