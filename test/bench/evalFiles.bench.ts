/**
 * Issue 18 item 1: run files read without an object per line. `eval ir` on the issue's workload
 * (500 queries × 1,000 documents; AP, nDCG@10, P@10, RR), the command in-process against the
 * previous implementation (one object per line, a regex split and trim per line, one global Set
 * of joined keys: test/bench/baselines/runParserV0.ts, then evaluateRun on the row objects), and
 * the reading of `eval exposure`'s 500k-line stochastic run (1,000 queries × 100 samples × k = 5)
 * by both readers, in alternating repetitions.
 *
 * The issue's peers (trec_eval 10.0 in C, Fair-RAG's expected_exposure in Python) cannot be built
 * or installed here (no network), so the previous implementation is the baseline; the issue
 * measured it at 4.05× trec_eval (eval ir) and 1.9× expected_exposure (eval exposure).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { runCli } from '../../src-main/cli/main';
import { evaluateRun } from '../../src-main/core/ir/evaluateRun';
import { formatMeasureTsv, measureRows } from '../../src-main/io/measureCsv';
import { readQrelsFile } from '../../src-main/io/trec/qrels';
import { readRunColumns } from '../../src-main/io/trec/run';
import { readRunFileV0 } from './baselines/runParserV0';
import { alternate, alternationRow, type BenchContext, type BenchRow } from './harness';

const MEASURES = ['AP', 'nDCG@10', 'P@10', 'RR'];

function lcg(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

export async function evalFilesBench(ctx: BenchContext): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-eval-'));
  try {
    const queries = Math.max(20, Math.round(500 * ctx.scale));
    const rnd = lcg(18);
    let run = '';
    let qrels = '';
    for (let q = 0; q < queries; q++) {
      const judged = new Set<number>();
      for (let d = 0; d < 1000; d++) run += `${q} Q0 doc${q}-${d} ${d + 1} ${(1000 - d + rnd()).toFixed(4)} bm25\n`;
      while (judged.size < 50) judged.add(Math.floor(rnd() * 1500));
      for (const d of judged) qrels += `${q} 0 doc${q}-${d} ${Math.floor(rnd() * 3)}\n`;
    }
    writeFileSync(join(dir, 'run.trec'), run);
    writeFileSync(join(dir, 'test.qrels'), qrels);

    const sink = () => {
      const s = new PassThrough();
      s.resume();
      return s;
    };
    const candidate = async () => {
      const code = await runCli(['eval', 'ir', '--run', 'run.trec', '--qrels', 'test.qrels', ...MEASURES.flatMap((m) => ['-m', m])], { stdout: sink(), stderr: sink(), stdin: new PassThrough(), cwd: dir, env: {} });
      if (code !== 0) throw new Error(`eval ir exited ${code}`);
    };
    const baseline = () => {
      const ev = evaluateRun(readRunFileV0(join(dir, 'run.trec')), readQrelsFile(join(dir, 'test.qrels')), MEASURES);
      return formatMeasureTsv(measureRows(ev, { perQuery: false }));
    };
    const ir = await alternate(baseline, candidate, { pairs: 5 });
    ctx.log(`eval ir ${queries}×1000: previous ${ir.baselineMs.toFixed(0)} ms, columns ${ir.candidateMs.toFixed(0)} ms`);

    const stochQueries = Math.max(20, Math.round(1000 * ctx.scale));
    let stoch = '';
    for (let q = 0; q < stochQueries; q++) {
      for (let s = 0; s < 100; s++) {
        const start = Math.floor(rnd() * 20);
        for (let r = 0; r < 5; r++) stoch += `q${q} Q${s} d${(start + r * 3) % 20} ${r + 1} ${5 - r} pl\n`;
      }
    }
    writeFileSync(join(dir, 'stochastic.trec'), stoch);
    const lines = stochQueries * 500;
    const exp = await alternate(
      () => readRunFileV0(join(dir, 'stochastic.trec')).length,
      async () => (await readRunColumns(join(dir, 'stochastic.trec'))).length,
      { pairs: 5 },
    );
    ctx.log(`stochastic run ${lines} lines: previous ${exp.baselineMs.toFixed(0)} ms, columns ${exp.candidateMs.toFixed(0)} ms`);
    return [
      alternationRow(
        {
          suite: 'evalfiles',
          name: `eval ir (in-process CLI), ${queries} queries × 1000 docs, AP nDCG@10 P@10 RR`,
          metric: 'ms',
          better: 'lower',
          baselineLabel: 'previous reader + row objects',
          candidateLabel: 'streamed columns',
          note: 'same output; trec_eval cannot be built here (no network): the issue measured the previous implementation at 4.05× trec_eval',
        },
        ir,
      ),
      alternationRow(
        {
          suite: 'evalfiles',
          name: `reading eval exposure's stochastic run, ${lines} lines (${stochQueries} queries × 100 samples × k=5)`,
          metric: 'ms',
          better: 'lower',
          baselineLabel: 'previous reader',
          candidateLabel: 'streamed columns',
          note: "Fair-RAG's expected_exposure cannot be installed here; the issue put 63% of eval exposure in the previous reader, at 1.9× the peer",
        },
        exp,
      ),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
