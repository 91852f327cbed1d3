import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-eval-ir-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function file(text: string, name = `f${fileNo++}.txt`): string {
  writeFileSync(path.join(dir, name), text);
  return name;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(['eval', 'ir', ...argv], { cwd: dir });
}

/**
 * q1: d1 3.0, then d2 and d3 tied at 2.0 → trec_eval order d1, d3, d2 (docno descending).
 *     Labels d1 = 1, d3 = 2, d5 = 1 (never retrieved); d2 unjudged.
 *     nDCG@10 = (1 + 2/log2 3) / (2 + 1/log2 3 + 1/log2 4) = 2.2618595 / 3.1309298 = 0.7224242
 *     AP = (1/1 + 2/2) / 3 = 0.6667; P(rel=2)@2 = 1/2; RR = 1; NumRet = 3
 * q2: one unjudged document, qrels has only a non-relevant d1 → 0 everywhere, NumRet = 1
 * q3: in the qrels, absent from the run → 0 (counted, trec_eval -c), NumRet = 0
 * q9: in the run only → ignored
 * all: nDCG@10 = 0.7224242/3 = 0.2408; AP = 0.2222; P(rel=2)@2 = 0.1667; RR = 0.3333; NumRet = 4
 */
const RUN = file(
  [
    '# ir_metadata.start',
    '# tag: t',
    '# ir_metadata.end',
    'q1 Q0 d2 2 2.0 t',
    'q1 Q0 d1 1 3.0 t',
    'q1 Q0 d3 3 2.0 t',
    'q2 Q0 d9 1 1 t',
    'q9 Q0 d1 1 1 t',
    '',
  ].join('\n'),
  'run.trec',
);
const QRELS = file(['q1 0 d1 1', 'q1 0 d3 2', 'q1 0 d5 1', 'q2 0 d1 0', 'q3 0 x 1', ''].join('\n'), 'qrels.txt');
const MEASURES = ['-m', 'nDCG@10', '-m', 'AP', '-m', 'P(rel=2)@2', '-m', 'RR', '-m', 'NumRet'];

describe('fairground eval ir', () => {
  it('prints only the all lines without -q', async () => {
    const r = await cli(['--run', RUN, '--qrels', QRELS, ...MEASURES]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(['nDCG@10\tall\t0.2408', 'AP\tall\t0.2222', 'P(rel=2)@2\tall\t0.1667', 'RR\tall\t0.3333', 'NumRet\tall\t4', ''].join('\n'));
    expect(r.stderr).toBe('note: 1 qrels queries have no results and count as 0 (--intersection leaves them out)\n');
  });

  it('prints per-query lines with -q, queries in qid order, then all', async () => {
    const r = await cli(['--run', RUN, '--qrels', QRELS, '-m', 'nDCG@10', '-m', 'NumRet', '-q']);
    expect(r.stdout).toBe(
      [
        'nDCG@10\tq1\t0.7224',
        'NumRet\tq1\t3',
        'nDCG@10\tq2\t0.0000',
        'NumRet\tq2\t1',
        'nDCG@10\tq3\t0.0000',
        'NumRet\tq3\t0',
        'nDCG@10\tall\t0.2408',
        'NumRet\tall\t4',
        '',
      ].join('\n'),
    );
  });

  it('averages over the intersection with --intersection, and truncates with --depth', async () => {
    // q1 and q2 only: AP = 0.6667 / 2 = 0.3333
    expect((await cli(['--run', RUN, '--qrels', QRELS, '-m', 'AP', '--intersection'])).stdout).toBe('AP\tall\t0.3333\n');
    // depth 1 keeps d1 for q1: AP = (1/1)/3 → mean over 3 queries = 0.1111
    expect((await cli(['--run', RUN, '--qrels', QRELS, '-m', 'AP', '--depth', '1'])).stdout).toBe('AP\tall\t0.1111\n');
  });

  it('evaluates a run whose queries are not each in one block as the grouped run (files and stdin), warning once', async () => {
    // RUN's rows with the queries interleaved: the streaming reader meets q1 again and the command
    // reads the file whole instead; more than six columns, so the warning shows it is not doubled.
    const lines = ['q1 Q0 d2 2 2.0 t x', 'q2 Q0 d9 1 1 t x', 'q1 Q0 d1 1 3.0 t x', 'q9 Q0 d1 1 1 t x', 'q1 Q0 d3 3 2.0 t x', ''];
    const interleaved = file(lines.join('\n'), 'interleaved.trec');
    const grouped = await cli(['--run', RUN, '--qrels', QRELS, ...MEASURES, '-q']);
    const fromFile = await cli(['--run', interleaved, '--qrels', QRELS, ...MEASURES, '-q']);
    const fromStdin = await runCliCaptured(['eval', 'ir', '--run', '-', '--qrels', QRELS, ...MEASURES, '-q'], { cwd: dir, stdin: lines.join('\n') });
    expect(grouped.stdout).toContain('nDCG@10\tq1\t0.7224\n');
    expect(fromFile.stdout).toBe(grouped.stdout);
    expect(fromStdin.stdout).toBe(grouped.stdout);
    const warning = 'warning: interleaved.trec:1: more than 6 columns; reading the first six, as trec_eval does (warned once per file)\n';
    expect(fromFile.stderr).toBe(`${warning}${grouped.stderr}`);
    expect(fromStdin.stderr).toBe(`${warning.replace('interleaved.trec', '<stdin>')}${grouped.stderr}`);
  });

  it('writes CSV with --csv', async () => {
    const r = await cli(['--run', RUN, '--qrels', QRELS, '-m', 'RR', '-q', '--csv']);
    expect(r.stdout).toBe('measure,qid,value\nRR,q1,1\nRR,q2,0\nRR,q3,0\nRR,all,0.3333333333333333\n');
  });

  it('reads the Fair-RAG TSV run and relevance mapping', async () => {
    const run = file('qid\tsample\tdocno\trank\tsim\trun_id\n310\tQ0\t3102\t1\t0.9\tmain_exp\n310\tQ0\t3101\t2\t0.5\tmain_exp\n');
    const mapping = file('qid\tpid\trelevance_label\n310\t3101\t1\n310\t3102\t0\n');
    expect((await cli(['--run', run, '--qrels', mapping, '-m', 'RR'])).stdout).toBe('RR\tall\t0.5000\n');
  });

  it('warns when no run query is in the qrels', async () => {
    const run = file('x Q0 d1 1 1 t\n');
    const r = await cli(['--run', run, '--qrels', QRELS, '-m', 'P@1']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('P@1\tall\t0.0000\n');
    expect(r.stderr).toBe("warning: none of the run's 1 queries appear in the qrels; check the query ids\n");
  });

  it('documents the measures and an example in --help', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: fairground eval ir --run RUN --qrels QRELS -m MEASURE/);
    expect(r.stdout).toMatch(/Example:\n {2}fairground eval ir --run/);
    expect(r.stdout).toContain("nDCG(dcg='exp-log2')@10");
  });
});

describe('fairground eval ir errors', () => {
  const fail = async (argv: string[]) => {
    const r = await cli(argv);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toHaveLength(2); // one line
    return r.stderr.trim();
  };

  it('names a malformed run line', async () => {
    const run = file('q1 Q0 d1 1 1 t\nq1 Q0 d2 2 x t\n', 'bad.trec');
    expect(await fail(['--run', run, '--qrels', QRELS, '-m', 'AP'])).toBe("fairground eval ir: bad.trec:2: score: not a number: 'x'");
  });

  it('names a malformed qrels line', async () => {
    const qrels = file('q1 0 d1 1\nq1 0 d2\n', 'bad.qrels');
    expect(await fail(['--run', RUN, '--qrels', qrels, '-m', 'AP'])).toBe("fairground eval ir: bad.qrels:2: columns: expected 4 columns 'qid iter docno rel', got 3");
  });

  it('names a run that repeats a document across samples', async () => {
    const run = file('q1 S0 d1 1 1 t\nq1 S1 d1 1 1 t\n', 'samples.trec');
    expect(await fail(['--run', run, '--qrels', QRELS, '-m', 'AP'])).toMatch(/^fairground eval ir: samples\.trec:2: docno: document 'd1' appears twice for query 'q1'/);
  });

  it('reports missing files, options and measures', async () => {
    expect(await fail(['--run', 'nope.trec', '--qrels', QRELS, '-m', 'AP'])).toBe('fairground eval ir: nope.trec: cannot read file (ENOENT)');
    expect(await fail(['--qrels', QRELS, '-m', 'AP'])).toBe('fairground eval ir: missing required option --run');
    expect(await fail(['--run', RUN, '--qrels', QRELS])).toBe('fairground eval ir: missing required option -m/--measure (e.g. -m nDCG@10)');
    expect(await fail(['--run', RUN, '--qrels', QRELS, '-m', 'Bpref'])).toMatch(/^fairground eval ir: -m 'Bpref': unknown measure \(supported: nDCG, AP/);
    expect(await fail(['--run', RUN, '--qrels', QRELS, '-m', 'map_cut.10'])).toBe("fairground eval ir: -m 'map_cut.10': trec_eval name; write AP@10");
    expect(await fail(['--run', RUN, '--qrels', QRELS, '-m', 'AP', '--depth', '0'])).toBe('fairground eval ir: --depth: must be at least 1, got 0');
    expect(await fail(['--run', RUN, '--qrels', QRELS, '-m', 'AP', '--run-format', 'csv'])).toBe("fairground eval ir: --run-format: expected one of auto, trec, tsv, got 'csv'");
  });

  it('refuses empty qrels and an evaluation with no query', async () => {
    const empty = file('# nothing\n', 'empty.qrels');
    expect(await fail(['--run', RUN, '--qrels', empty, '-m', 'AP'])).toBe('fairground eval ir: empty.qrels: no relevance judgements');
    const other = file('x Q0 d1 1 1 t\n');
    const r = await cli(['--run', other, '--qrels', QRELS, '-m', 'AP', '--intersection']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('fairground eval ir: no query has both results and relevance judgements');
  });
});

describe('fairground eval ir: printing as the peers print (#16.3) and pipes (#16.4)', () => {
  // One relevant document at rank 32 of 32: AP = RR = P@32 = 1/32 = 0.03125 exactly.
  const run32 = file(Array.from({ length: 32 }, (_, i) => `q Q0 d${i + 1} ${i + 1} ${32 - i} t`).join('\n') + '\n', 'r32.trec');
  const qrels32 = file('q 0 d32 1\n', 'q32.qrels');

  it('rounds an exact tie to even as trec_eval printf does (0.0312, not 0.0313)', async () => {
    const r = await cli(['--run', run32, '--qrels', qrels32, '-m', 'AP', '-m', 'P@32']);
    expect(r.stdout).toBe('AP\tall\t0.0312\nP@32\tall\t0.0312\n');
  });

  it('prints with -p places and in the ir_measures and json formats', async () => {
    expect((await cli(['--run', run32, '--qrels', qrels32, '-m', 'AP', '-p', '6'])).stdout).toBe('AP\tall\t0.031250\n');
    expect((await cli(['--run', run32, '--qrels', qrels32, '-m', 'AP', '--places', '2'])).stdout).toBe('AP\tall\t0.03\n');
    const irm = await cli(['--run', RUN, '--qrels', QRELS, '-m', 'RR', '-m', 'NumRet', '-q', '--format', 'ir_measures']);
    expect(irm.stdout).toBe(['q1\tRR\t1.0000', 'q1\tNumRet\t3', 'q2\tRR\t0.0000', 'q2\tNumRet\t1', 'q3\tRR\t0.0000', 'q3\tNumRet\t0', 'RR\t0.3333', 'NumRet\t4', ''].join('\n'));
    const json = JSON.parse((await cli(['--run', RUN, '--qrels', QRELS, '-m', 'RR', '-q', '--format', 'json'])).stdout);
    expect(json).toEqual({
      measures: ['RR'],
      all: { RR: 1 / 3 },
      per_query: [
        { qid: 'q1', RR: 1 },
        { qid: 'q2', RR: 0 },
        { qid: 'q3', RR: 0 },
      ],
    });
  });

  it("reads the run from standard input ('-') and gzipped files", async () => {
    const { gzipSync } = await import('node:zlib');
    writeFileSync(path.join(dir, 'r32.trec.gz'), gzipSync(readFileSync(path.join(dir, run32))));
    writeFileSync(path.join(dir, 'q32.qrels.gz'), gzipSync('q 0 d32 1\n'));
    expect((await cli(['--run', 'r32.trec.gz', '--qrels', 'q32.qrels.gz', '-m', 'AP'])).stdout).toBe('AP\tall\t0.0312\n');
    const text = readFileSync(path.join(dir, run32), 'utf8');
    const r = await runCliCaptured(['eval', 'ir', '--run', '-', '--qrels', qrels32, '-m', 'AP'], { cwd: dir, stdin: text });
    expect(r.stdout).toBe('AP\tall\t0.0312\n');
    const bad = await runCliCaptured(['eval', 'ir', '--run', '-', '--qrels', qrels32, '-m', 'AP'], { cwd: dir, stdin: 'q Q0 d1 1 x t\n' });
    expect(bad.stderr).toBe("fairground eval ir: <stdin>:1: score: not a number: 'x'\n");
  });

  it('reads lines with more than six columns from the first six, warning once', async () => {
    const run = file('q Q0 d32 1 1 t extra\nq Q0 d1 2 0 t extra\n', 'wide.trec');
    const r = await cli(['--run', run, '--qrels', qrels32, '-m', 'RR']);
    expect(r.stdout).toBe('RR\tall\t1.0000\n');
    expect(r.stderr).toBe('warning: wide.trec:1: more than 6 columns; reading the first six, as trec_eval does (warned once per file)\n');
  });

  it('ends --run /dev/zero with the line-length error (bounded memory, #15.4)', async () => {
    const r = await cli(['--run', '/dev/zero', '--qrels', qrels32, '-m', 'AP']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('fairground eval ir: /dev/zero:1: line longer than 1048576 bytes (the maximum; is this a text file?)\n');
  });
});
