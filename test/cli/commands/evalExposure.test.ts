import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-eval-exposure-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function file(text: string, name = `f${fileNo++}.txt`): string {
  writeFileSync(path.join(dir, name), text);
  return name;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(argv, { cwd: dir });
}

/** `measure qid value` rows → { 'measure qid': value }. */
function table(stdout: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of stdout.trim().split('\n')) {
    const [m, q, v] = line.split('\t');
    out[`${m} ${q}`] = v as string;
  }
  return out;
}

/**
 * q1 = worked example E1 (see test/core/exposure/expectedExposure.test.ts): n = 6, m = 2, k = 3,
 *   rankings [a b c] [a c d] [b d e] [a e f]; written out of rank order on purpose.
 *   paper: EE-D 1.625, EE-R 27/16, EE-L 0.5, EE-D̄ 13/24, EE-R̄ 0.75, EE-L̄ 2/21
 *   code:  EE-R 1.25, EE-L 9/8, EE-R̄ 5/9, EE-L̄ 3/14
 * q2: n = 5, useful a b c d (m = 4 > k = 3), rankings [a b c] [d e a]:
 *   ε = (1, ½, ½, ½, ½); EE-D = 2, EE-D̄ = 2/3; ε* = ¾ for useful, 0 else (both targets);
 *   EE-R = ¾·2.5 = 1.875, bound k²/m = 9/4 → EE-R̄ = 5/6; EE-L = 2 − 3.75 + 2.25 = 0.5, EE-L̄ = 0.5/5.25 = 2/21.
 */
const RUN = [
  'q1 Q0 b 2 0.9 pl',
  'q1 Q0 a 1 1.0 pl',
  'q1 Q0 c 3 0.8 pl',
  'q1 Q1 a 1 3 pl',
  'q1 Q1 c 2 2 pl',
  'q1 Q1 d 3 1 pl',
  'q1 Q2 b 1 3 pl',
  'q1 Q2 d 2 2 pl',
  'q1 Q2 e 3 1 pl',
  'q1 Q3 a 1 3 pl',
  'q1 Q3 e 2 2 pl',
  'q1 Q3 f 3 1 pl',
  'q2 Q0 a 1 3 pl',
  'q2 Q0 b 2 2 pl',
  'q2 Q0 c 3 1 pl',
  'q2 Q1 d 1 3 pl',
  'q2 Q1 e 2 2 pl',
  'q2 Q1 a 3 1 pl',
].join('\n');

const QRELS = ['q1 0 a 1', 'q1 0 b 1', 'q1 0 c 0', 'q1 0 d 0', 'q1 0 e 0', 'q1 0 f 0', 'q2 0 a 1', 'q2 0 b 2', 'q2 0 c 1', 'q2 0 d 1', 'q2 0 e 0'].join('\n');

/**
 * NLI labels. q1 as in the attribution core test: AR (2/3, 0, 2/3, 1/3), EAR 5/12, EAE-D 7/16, EAE-D̄ 7/48.
 * q2: [a b c] all entail, [d e a] none: AR (1, 0), EAR ½; ε^a = (½, ½, ½, 0, 0), EAE-D ¾, EAE-D̄ ¼.
 */
const LABELS = [
  'q1 Q0 a 1',
  'q1 Q0 b 0',
  'q1 Q0 c 1',
  'q1 Q1 a 0',
  'q1 Q1 c 0',
  'q1 Q1 d 0',
  'q1 Q2 b 1',
  'q1 Q2 d 1',
  'q1 Q2 e 0',
  'q1 Q3 a 1',
  'q1 Q3 e 0',
  'q1 Q3 f 0',
  'q2 Q0 a 1',
  'q2 Q0 b 1',
  'q2 Q0 c 1',
  'q2 Q1 d 0',
  'q2 Q1 e 0',
  'q2 Q1 a 0',
].join('\n');

describe('fairground eval exposure', () => {
  const run = file(RUN, 'run.trec');
  const qrels = file(QRELS, 'utility.qrels');

  it('prints per-query and mean rows for the paper target', async () => {
    const r = await cli(['eval', 'exposure', '--run', run, '--qrels', qrels, '-k', '3', '-q']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const t = table(r.stdout);
    expect(t['EE-D q1']).toBe('1.625000');
    expect(t['EE-R q1']).toBe('1.687500');
    expect(t['EE-L q1']).toBe('0.500000');
    expect(t['EE-D_norm q1']).toBe('0.541667');
    expect(t['EE-R_norm q1']).toBe('0.750000');
    expect(t['EE-L_norm q1']).toBe('0.095238');
    expect(t['EE-D q2']).toBe('2.000000');
    expect(t['EE-R q2']).toBe('1.875000');
    expect(t['EE-R_norm q2']).toBe('0.833333');
    expect(t['EE-L_norm q2']).toBe('0.095238');
    // means: EE-D (1.625 + 2)/2; EE-D̄ (13/24 + 16/24)/2 = 29/48; EE-R̄ (3/4 + 5/6)/2 = 19/24.
    expect(t['EE-D all']).toBe('1.812500');
    expect(t['EE-D_norm all']).toBe('0.604167');
    expect(t['EE-R_norm all']).toBe('0.791667');
    expect(t['EE-L all']).toBe('0.500000');
    // per-query rows first (query by query), then the means; no attribution rows without --attribution.
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(18);
    expect(lines[0]).toBe('EE-D\tq1\t1.625000');
    expect(lines[12]).toBe('EE-D\tall\t1.812500');
    expect(r.stdout).not.toContain('EAR');
  });

  it('gives the same rows for a run whose queries are interleaved (read whole) and from standard input', async () => {
    // q2's rankings between q1's: the streaming reader meets q1 again and the command reads the
    // file whole instead, with the attribution labels' bookkeeping started over.
    const lines = RUN.split('\n');
    const interleaved = file([...lines.slice(0, 6), ...lines.slice(12, 15), ...lines.slice(6, 12), ...lines.slice(15)].join('\n'), 'interleaved.trec');
    const labels = file(LABELS, 'labels-interleaved.txt');
    const args = (r: string) => ['eval', 'exposure', '--run', r, '--qrels', qrels, '-k', '3', '--attribution', labels, '-q'];
    const grouped = await cli(args(run));
    expect(grouped.code).toBe(0);
    expect(table(grouped.stdout)['EAR all']).toBe('0.458333'); // (5/12 + 1/2)/2
    expect(await cli(args(interleaved))).toEqual(grouped);
    expect(await runCliCaptured(args('-'), { cwd: dir, stdin: [...lines.slice(12), ...lines.slice(0, 12)].join('\n') })).toEqual(grouped);
  });

  it('--judged-only leaves out run queries the qrels do not hold, names them, and means over the rest (#26)', async () => {
    // q3 and q9 have no qrels: without the option the first is an error; with it the means are q1's and q2's alone.
    const extra = file(`${RUN}\nq3 Q0 a 1 3 pl\nq9 Q0 a 1 3 pl\n`, 'extra.trec');
    const strict = await cli(['eval', 'exposure', '--run', extra, '--qrels', qrels, '-k', '3']);
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/extra\.trec:19: qid: query 'q3' is not in the qrels utility\.qrels \(--judged-only leaves such queries out\)/);
    const r = await cli(['eval', 'exposure', '--run', extra, '--qrels', qrels, '-k', '3', '--judged-only']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('note: 2 run queries are not in the qrels and left out (--judged-only): q3, q9\n');
    const t = table(r.stdout);
    expect(t['EE-D all']).toBe('1.812500');
    expect(t['EE-R_norm all']).toBe('0.791667');
    // Only unjudged queries: an error that says so.
    const none = await cli(['eval', 'exposure', '--run', file('q9 Q0 a 1 3 pl\n', 'none.trec'), '--qrels', qrels, '-k', '3', '--judged-only']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/none\.trec: none of the run's 1 queries is in the qrels utility\.qrels/);
  });

  it('without -q prints only the mean rows; --target code reproduces E1 = 0.5556', async () => {
    const r = await cli(['eval', 'exposure', '--run', run, '--qrels', qrels, '-k', '3', '--target', 'code']);
    expect(r.code).toBe(0);
    const t = table(r.stdout);
    expect(Object.keys(t).every((key) => key.endsWith(' all'))).toBe(true);
    // EE-R (1.25 + 1.875)/2 = 1.5625; EE-R̄ (5/9 + 5/6)/2 = 25/36; EE-L (9/8 + 1/2)/2; EE-L̄ (3/14 + 2/21)/2 = 13/84.
    expect(t['EE-R all']).toBe('1.562500');
    expect(t['EE-R_norm all']).toBe('0.694444');
    expect(t['EE-L all']).toBe('0.812500');
    expect(t['EE-L_norm all']).toBe('0.154762');
    const q = table((await cli(['eval', 'exposure', '--run', run, '--qrels', qrels, '-k', '3', '--target', 'code', '-q'])).stdout);
    expect(q['EE-R_norm q1']).toBe('0.555556');
  });

  it('adds EAR, EAE-D and EAE-D_norm with --attribution', async () => {
    const labels = file(LABELS, 'nli.txt');
    const r = await cli(['eval', 'exposure', '--run', run, '--qrels', qrels, '-k', '3', '--attribution', labels, '-q']);
    expect(r.stderr).toBe('');
    const t = table(r.stdout);
    expect(t['EAR q1']).toBe('0.416667');
    expect(t['EAE-D q1']).toBe('0.437500');
    expect(t['EAE-D_norm q1']).toBe('0.145833');
    expect(t['EAR q2']).toBe('0.500000');
    expect(t['EAE-D q2']).toBe('0.750000');
    // means: EAR (5/12 + 1/2)/2 = 11/24; EAE-D (7/16 + 3/4)/2; EAE-D̄ (7/48 + 12/48)/2 = 19/96.
    expect(t['EAR all']).toBe('0.458333');
    expect(t['EAE-D all']).toBe('0.593750');
    expect(t['EAE-D_norm all']).toBe('0.197917');
  });

  it("reads Fair-RAG's TSV run and relevance-mapping layouts", async () => {
    const tsvRun = file(
      ['qid\tsample\tdocno\trank\tsim\trun_id', ...RUN.split('\n').filter((l) => l.startsWith('q1')).map((l) => l.split(' ').join('\t'))].join('\n'),
    );
    const mapping = file(['qid\tpid\trelevance_label', ...QRELS.split('\n').map((l) => l.split(' ')).map(([q, , d, r]) => `${q}\t${d}\t${r}`)].join('\n'));
    const r = await cli(['eval', 'exposure', '--run', tsvRun, '--qrels', mapping, '-k', '3', '--target', 'code']);
    expect(r.stderr).toContain('note: 1 qrels query has no rankings in the run and is skipped');
    expect(table(r.stdout)['EE-R_norm all']).toBe('0.555556');
  });

  it('ignores positions after k with a warning', async () => {
    // Same q2 rankings with one extra item at rank 4 in each: the top 3 are unchanged.
    const longer = file(`${RUN}\nq2 Q0 e 4 0 pl\nq2 Q1 b 4 0 pl\n`);
    const r = await cli(['eval', 'exposure', '--run', longer, '--qrels', qrels, '-k', '3', '-q']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: 2 ranking(s) are longer than k = 3');
    expect(table(r.stdout)['EE-D q2']).toBe('2.000000');
  });

  describe('errors name the file and line', () => {
    const fail = async (runText: string, extra: string[] = []) => {
      const r = await cli(['eval', 'exposure', '--run', file(runText, 'bad.trec'), '--qrels', qrels, '-k', '3', ...extra]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      return r.stderr;
    };

    it('a ranked document missing from the qrels', async () => {
      expect(await fail('q1 Q0 a 1 3 pl\nq1 Q0 zz 2 2 pl\n')).toMatch(/bad\.trec:2: docno: document 'zz' of query 'q1' is not in the qrels/);
    });

    it('a rank gap, a repeated rank, ranks not starting at 1', async () => {
      expect(await fail('q1 Q0 a 1 3 pl\nq1 Q0 b 3 2 pl\n')).toMatch(/bad\.trec:2: rank: rank gap in sample 'Q0' of query 'q1': rank 2 is missing before rank 3/);
      expect(await fail('q1 Q0 a 1 3 pl\nq1 Q0 b 1 2 pl\n')).toMatch(/bad\.trec:2: rank: rank 1 repeated .* \(also on line 1\)/);
      expect(await fail('q1 Q0 a 2 3 pl\n')).toMatch(/bad\.trec:1: rank: .*ranks must start at 1/);
    });

    it('a malformed line and a query without qrels', async () => {
      expect(await fail('q1 Q0 a 1 3 pl\nq1 Q0 b two 2 pl\n')).toMatch(/bad\.trec:2: rank: not an integer/);
      expect(await fail('q1 Q0 a 1 3 pl\nq9 Q0 a 1 3 pl\n')).toMatch(/bad\.trec:2: qid: query 'q9' is not in the qrels/);
    });

    it('attribution labels: bad value, missing, extra, duplicate', async () => {
      const q1 = RUN.split('\n')
        .filter((l) => l.startsWith('q1'))
        .join('\n');
      const q1Labels = LABELS.split('\n').filter((l) => l.startsWith('q1'));
      const withLabels = async (lines: string[]) => fail(q1, ['--attribution', file(lines.join('\n'), 'nli.bad')]);
      expect(await withLabels([...q1Labels.slice(0, 11), 'q1 Q3 f 2'])).toMatch(/nli\.bad:12: label: expected 0 or 1, got '2'/);
      expect(await withLabels(q1Labels.slice(0, 11))).toMatch(/bad\.trec:\d+: no attribution label in nli\.bad for 'f' of sample 'Q3' of query 'q1'/);
      expect(await withLabels([...q1Labels, 'q1 Q3 b 1'])).toMatch(/nli\.bad:13: 'b' is not among the top 3 of sample 'Q3' of query 'q1'/);
      expect(await withLabels([...q1Labels, 'q1 Q3 f 1'])).toMatch(/nli\.bad:13: docno: .*labelled twice \(also on line 12\)/);
    });

    it('bad options', async () => {
      expect((await cli(['eval', 'exposure', '--run', run, '--qrels', qrels])).stderr).toMatch(/missing required option --k/);
      expect((await cli(['eval', 'exposure', '--run', run, '--qrels', qrels, '-k', '0'])).stderr).toMatch(/--k: must be at least 1/);
      expect((await cli(['eval', 'exposure', '--run', run, '--qrels', qrels, '-k', '3', '--target', 'gold'])).stderr).toMatch(/--target: expected one of paper, code/);
      expect((await cli(['eval', 'exposure', '--run', 'missing.trec', '--qrels', qrels, '-k', '3'])).stderr).toMatch(/missing\.trec: cannot read file/);
    });
  });
});

describe('eval exposure: places and pipes (#16.3, #16.4)', () => {
  it('prints more places with -p (EE-R̄ of q1 = 0.75, EE-D̄ = 13/24) and reads - and .gz', async () => {
    const { gzipSync } = await import('node:zlib');
    writeFileSync(path.join(dir, 'p.run.gz'), gzipSync(`${RUN}\n`));
    const qrels = file(`${QRELS}\n`, 'p.qrels');
    const r = await cli(['eval', 'exposure', '--run', 'p.run.gz', '--qrels', qrels, '-k', '3', '-q', '-p', '10']);
    expect(r.code, r.stderr).toBe(0);
    const t = table(r.stdout);
    expect(t['EE-D_norm q1']).toBe('0.5416666667'); // 13/24; 6 places gave 0.541667 at most
    expect(t['EE-R_norm q1']).toBe('0.7500000000');
    const piped = await runCliCaptured(['eval', 'exposure', '--run', '-', '--qrels', qrels, '-k', '3', '-q'], { cwd: dir, stdin: `${RUN}\n` });
    expect(table(piped.stdout)['EE-D_norm q1']).toBe('0.541667');
  });
});
