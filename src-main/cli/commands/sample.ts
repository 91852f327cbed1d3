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
import path from 'node:path';
import type { Writable } from 'node:stream';
import { DataError } from '../../core/errors';
import { createRng } from '../../core/random/rng';
import { compareIds } from '../../core/sampling/itemChecks';
import { plackettLuceLogits, topKSampler, type ScoredItem, type TopKSampler } from '../../core/sampling/plackettLuce';
import type { ScoreNormalization } from '../../core/sampling/scoreNormalization';
import { checkToken } from '../../io/trec/fields';
import { readRunByQuery, readRunColumnsSync, runQueries, RunNotGroupedError, type RunColumns } from '../../io/trec/run';
import { openPartialOutput, type OutputTarget, type PartialOutput } from '../../io/outputTarget';
import { OUTPUT_HELP, checkOutputs, outputOptionSpec } from '../writeOutput';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand } from '../command';

const NORMALIZATIONS: readonly ScoreNormalization[] = ['paper', 'code'];

/**
 * Most rankings per query. The output is streamed, so memory does not limit N; the cap keeps a
 * typo (an extra zero or three) from writing hundreds of gigabytes: 10^6 rankings of depth 5 are
 * about 150 MB per query.
 */
export const SAMPLES_MAX = 1_000_000;

/** Characters buffered before a write (about 1 MB). */
const FLUSH_CHARS = 1 << 20;

const help = `Usage: fairground sample --run RUN --alpha A --samples N -k K --seed S [--normalization paper|code] [--tag TAG] [--output FILE]

Turns a deterministic TREC run into a stochastic one with the fairness-aware Plackett-Luce
retriever of Fair RAG (Kim & Diaz, Sec. 3.2): per query, the scores of all its candidates are
min-max normalised to [1, 2], raised to the power alpha and used as PL log-weights; N top-k
rankings are drawn with the Gumbel trick.

Options:
  --run FILE             deterministic run (qid Q0 docno rank score tag, or Fair-RAG's TSV); every row
                         of a query is a candidate, ranked by its score
  --alpha A              fairness control, A >= 0: 0 = uniform, 8 = practically deterministic
  --samples N            rankings per query (the paper uses 100; at most 1000000). The output is
                         streamed, so memory does not grow with N
  -k K                   ranking depth (the paper uses 5); queries with fewer than K candidates
                         get rankings of all of them
  --seed S               integer seed (0..4294967295); each query uses its own stream forked by qid
  --normalization M      paper (default): 1 + (s - min)/(max - min); code: the released code, which
                         shifts negative scores once more (range [1 + |min|/(max-min), 2 + |min|/(max-min)])
  --tag TAG              run tag (default pl_alphaA)
  --output FILE          write the run here instead of stdout (written beside FILE and renamed into
                         place when complete: an error leaves no partial file)
${OUTPUT_HELP}

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
      ...outputOptionSpec,
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
    const samples = numberOption(requireOption(values.samples, 'samples'), 'samples', { integer: true, min: 1, max: SAMPLES_MAX }) as number;
    const k = numberOption(requireOption(values.k, 'k'), 'k', { integer: true, min: 1 }) as number;
    const seed = numberOption(requireOption(values.seed, 'seed'), 'seed', { integer: true, min: 0, max: 0xffffffff }) as number;
    const normalization = values.normalization ?? 'paper';
    if (!(NORMALIZATIONS as readonly string[]).includes(normalization)) {
      throw new CliError(`--normalization: expected one of ${NORMALIZATIONS.join(', ')}, got '${normalization}'`);
    }
    const tag = values.tag ?? `pl_alpha${String(alpha)}`;

    checkToken(tag, 'tag');
    // The output is checked before the run is read: never a FIFO, device, socket, folder or (by default) a link.
    const outTarget = values.output === undefined ? undefined : checkOutputs(io, [values.output], values['follow-symlinks'])[0]!;

    const resolved = path.resolve(io.cwd, runFile);
    const root = createRng(seed);
    const prepare = (qid: string, items: ScoredItem[]): Prepared => {
      checkToken(qid, 'qid');
      const docnos = items.map((it) => it.id);
      for (const docno of docnos) checkToken(docno, 'docno');
      try {
        const logits = plackettLuceLogits(
          items.map((it) => it.score),
          alpha,
          normalization as ScoreNormalization,
        );
        return { qid, docnos, sampler: topKSampler({ ids: docnos, logits, k, samples }) };
      } catch (err) {
        if (err instanceof RangeError) throw new CliError(`query '${qid}': ${err.message}`);
        throw err;
      }
    };
    // Streamed (issue 25 item 3): the run is read one query at a time and each query's rankings are
    // written as soon as it is complete, so memory is bounded by the largest query, not the run
    // (nor N: the rankings are never held). A file is written beside its final name and renamed
    // into place at the end, so an error in any query leaves no partial run. Standard output
    // cannot be taken back: there every query is read and checked first (a bad query fails the
    // command with no output), then read again and sampled.
    const emit = async (sink: Sink, { qid, docnos, sampler }: Prepared): Promise<void> => {
      const rng = root.fork(qid);
      const top = new Int32Array(sampler.depth);
      const prefix = `${qid} Q`;
      for (let s = 0; s < samples; s++) {
        sampler.draw(rng, top);
        const head = `${prefix}${s} `;
        for (let i = 0; i < top.length; i++) {
          // rank i + 1, score depth − i: strictly decreasing, so formatRun would keep it too.
          sink.text += `${head}${docnos[top[i] as number] as string} ${i + 1} ${top.length - i} ${tag}\n`;
        }
        if (sink.text.length >= FLUSH_CHARS) await sink.flush();
      }
    };
    if (values.output === undefined) {
      const grouped = await eachQuery(resolved, runFile, true, (qid, items) => void prepare(qid, items));
      const sink = streamSink(io.stdout);
      try {
        await eachQuery(resolved, runFile, grouped, (qid, items) => emit(sink, prepare(qid, items)));
        await sink.finish();
      } catch (err) {
        sink.abort();
        throw err;
      }
    } else {
      const target = outTarget as OutputTarget;
      let sink = fileSink(target);
      try {
        const grouped = await eachQuery(resolved, runFile, true, (qid, items) => emit(sink, prepare(qid, items)), () => {
          // Queries come back after others: start over on the whole run.
          sink.abort();
          sink = fileSink(target);
        });
        void grouped;
        await sink.finish();
      } catch (err) {
        sink.abort();
        throw err;
      }
    }
    return 0;
  },
};

interface Prepared {
  qid: string;
  docnos: string[];
  sampler: TopKSampler;
}

/**
 * Each query's candidates, sorted by docno, queries in order of first appearance; `onQuery` may
 * be asynchronous (it is awaited between blocks of the file, and the queries of a block are handed
 * over in order). A run whose rows of a query are consecutive is read one query at a time
 * (`grouped`); one whose queries come back after others is read whole, after `restart` is called.
 * Returns whether the run was read grouped. A deterministic run has one ranking per query: a
 * second column-2 value for the same query means the input is already stochastic, which is
 * refused rather than silently pooled.
 */
async function eachQuery(
  resolved: string,
  given: string,
  grouped: boolean,
  onQuery: (qid: string, items: ScoredItem[]) => void | Promise<void>,
  restart?: () => void,
): Promise<boolean> {
  const items = (qid: string, run: RunColumns, rows: readonly number[] | undefined): ScoredItem[] => {
    const n = rows ? rows.length : run.length;
    const out: ScoredItem[] = new Array(n);
    const first = rows ? (rows[0] as number) : 0;
    const iter = run.iter[first] as string;
    for (let j = 0; j < n; j++) {
      const i = rows ? (rows[j] as number) : j;
      // trec_eval keeps Unicode spaces (U+00A0) inside a field; the run we write may not (formatRun).
      for (const field of ['qid', 'docno'] as const) {
        const value = run[field][i] as string;
        if (/\s/.test(value)) throw new DataError(`contains a Unicode space, which the written run cannot keep: '${value}'`, { file: given, line: run.line[i] as number, field });
      }
      if (run.iter[i] !== iter) {
        throw new DataError(`query '${qid}' has rankings '${iter}' and '${run.iter[i] as string}'; expected one deterministic ranking per query`, {
          file: given,
          line: run.line[i] as number,
          field: 'iter',
        });
      }
      out[j] = { id: run.docno[i] as string, score: run.score[i] as number };
    }
    return out.sort((a, b) => compareIds(a.id, b.id));
  };
  try {
    if (grouped) {
      const queue: { qid: string; items: ScoredItem[] }[] = [];
      try {
        await readRunByQuery(resolved, (qid, run) => void queue.push({ qid, items: items(qid, run, undefined) }), {
          afterBlock: async () => {
            for (const q of queue) await onQuery(q.qid, q.items);
            queue.length = 0;
          },
        });
        return true;
      } catch (err) {
        if (!(err instanceof RunNotGroupedError)) throw err;
        restart?.();
      }
    }
    const run = readRunColumnsSync(resolved);
    for (const [qid, { rows }] of runQueries(run)) await onQuery(qid, items(qid, run, rows));
    return false;
  } catch (err) {
    throw err instanceof DataError ? err.inFile(given) : err;
  }
}

interface Sink {
  /** Text not yet written; callers append and call `flush` once it is large. */
  text: string;
  flush(): Promise<void>;
  finish(): Promise<void>;
  abort(): void;
}

/** Writes to a stream, waiting for 'drain' when it asks to (a slow pipe never grows the heap). */
function streamSink(stream: Writable): Sink {
  let failure: Error | undefined;
  const onError = (err: Error) => (failure = err);
  stream.on('error', onError);
  const sink: Sink = {
    text: '',
    async flush() {
      if (failure) throw failure;
      const chunk = sink.text;
      sink.text = '';
      if (chunk === '' || stream.write(chunk)) return;
      await new Promise<void>((resolve, reject) => {
        const done = (err?: Error) => {
          stream.off('drain', done);
          stream.off('close', done);
          stream.off('error', done);
          if (err) reject(err);
          else if (failure) reject(failure);
          else resolve();
        };
        stream.on('drain', done);
        stream.on('close', done);
        stream.on('error', done);
      });
    },
    async finish() {
      await sink.flush();
      stream.off('error', onError);
    },
    abort() {
      sink.text = '';
      stream.off('error', onError);
    },
  };
  return sink;
}

/** Writes a temporary sibling of the checked target, renamed onto it by `finish` (the target checked again), removed by `abort`. */
function fileSink(target: OutputTarget): Sink {
  const fail = (err: unknown): never => {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(code ? `cannot write ${target.shown} (${code})` : (err as Error).message);
  };
  let partial: PartialOutput | undefined;
  try {
    partial = openPartialOutput(target);
  } catch (err) {
    fail(err);
  }
  const out = partial as PartialOutput;
  const sink: Sink = {
    text: '',
    flush() {
      const chunk = sink.text;
      sink.text = '';
      try {
        out.write(chunk);
      } catch (err) {
        fail(err);
      }
      return Promise.resolve();
    },
    async finish() {
      await sink.flush();
      try {
        out.commit();
      } catch (err) {
        fail(err);
      }
    },
    abort() {
      sink.text = '';
      out.abort();
    },
  };
  return sink;
}
