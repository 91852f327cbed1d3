import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../../src-main/core/random/rng';
import { samplePlackettLuce } from '../../../src-main/core/sampling/plackettLuce';
import { formatRun, type RunWriteRow } from '../../../src-main/io/trec';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-sample-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function file(text: string, name = `f${fileNo++}.txt`): string {
  writeFileSync(path.join(dir, name), text);
  return name;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(argv, { cwd: dir });
}

// q1: six candidates with scores 6..1 (d1 best); q2: three candidates (fewer than k = 4).
const Q1 = ['q1 Q0 d1 1 6 bm25', 'q1 Q0 d2 2 5 bm25', 'q1 Q0 d3 3 4 bm25', 'q1 Q0 d4 4 3 bm25', 'q1 Q0 d5 5 2 bm25', 'q1 Q0 d6 6 1 bm25'];
const Q2 = ['q2 Q0 x 1 0.3 bm25', 'q2 Q0 y 2 0.2 bm25', 'q2 Q0 z 3 0.1 bm25'];
const RUN = file([...Q1, ...Q2].join('\n'), 'bm25.trec');

const args = (run: string, extra: string[]) => ['sample', '--run', run, '--alpha', '2', '--samples', '5', '-k', '4', '--seed', '42', ...extra];

describe('fairground sample', () => {
  it('writes N top-k rankings per query with sample ids Q0..Q(N-1), ranks 1..k, scores k..1', async () => {
    const r = await cli(args(RUN, []));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const rows = r.stdout.trim().split('\n').map((l) => l.split(' '));
    // q1: 5 samples × 4 items; q2: 5 samples × 3 items (n < k).
    expect(rows).toHaveLength(5 * 4 + 5 * 3);
    for (let s = 0; s < 5; s++) {
      const q1 = rows.filter((f) => f[0] === 'q1' && f[1] === `Q${s}`);
      expect(q1.map((f) => f[3])).toEqual(['1', '2', '3', '4']);
      expect(q1.map((f) => f[4])).toEqual(['4', '3', '2', '1']);
      expect(new Set(q1.map((f) => f[2])).size).toBe(4);
      const q2 = rows.filter((f) => f[0] === 'q2' && f[1] === `Q${s}`);
      expect(q2.map((f) => f[2]).sort()).toEqual(['x', 'y', 'z']);
    }
    expect(new Set(rows.map((f) => f[5]))).toEqual(new Set(['pl_alpha2']));
  });

  it('is reproducible, seed-dependent, and per query independent of the other queries and of line order', async () => {
    const a = (await cli(args(RUN, []))).stdout;
    expect((await cli(args(RUN, []))).stdout).toBe(a);
    expect((await cli(['sample', '--run', RUN, '--alpha', '2', '--samples', '5', '-k', '4', '--seed', '43'])).stdout).not.toBe(a);
    const q1Only = (await cli(args(file(Q1.join('\n')), []))).stdout;
    expect(a.startsWith(q1Only)).toBe(true);
    const shuffled = (await cli(args(file([...Q2, ...Q1.slice().reverse()].join('\n')), []))).stdout;
    expect(shuffled.split('\n').sort()).toEqual(a.split('\n').sort());
  });

  it('α = 8 reproduces the deterministic top k, and eval exposure then gives EE-D_norm = 1', async () => {
    const out = 'a8.trec';
    const r = await cli(['sample', '--run', file(Q1.join('\n')), '--alpha', '8', '--samples', '20', '-k', '3', '--seed', '1', '--output', out]);
    expect(r.stdout).toBe('');
    const text = readFileSync(path.join(dir, out), 'utf8');
    const firsts = text
      .trim()
      .split('\n')
      .map((l) => l.split(' '))
      .filter((f) => f[3] === '1');
    expect(firsts).toHaveLength(20);
    expect(text.trim().split('\n').filter((l) => !/ (d1 1|d2 2|d3 3) /.test(l))).toEqual([]);
    // q1 qrels: d1, d2 useful (m = 2 ≤ k = 3), n = 6: ε = (1, 1, 1, 0, 0, 0), EE-D̄ = 3/3 = 1;
    // paper target (1, 1, ¼, ¼, ¼, ¼): EE-R = 2.25 = bound 2 + 1/4 → EE-R̄ = 1.
    const qrels = file(['d1 1', 'd2 1', 'd3 0', 'd4 0', 'd5 0', 'd6 0'].map((x) => `q1 0 ${x}`).join('\n'));
    const ev = await cli(['eval', 'exposure', '--run', out, '--qrels', qrels, '-k', '3']);
    expect(ev.stdout).toContain('EE-D_norm\tall\t1.000000');
    expect(ev.stdout).toContain('EE-R_norm\tall\t1.000000');
  });

  it('--normalization code changes the samples only when a score is negative; --tag names the run', async () => {
    const neg = file(['q1 Q0 a 1 2 dense', 'q1 Q0 b 2 0 dense', 'q1 Q0 c 3 -1 dense', 'q1 Q0 d 4 -2 dense'].join('\n'));
    const base = ['sample', '--run', neg, '--alpha', '2', '--samples', '50', '-k', '2', '--seed', '5'];
    const paper = (await cli(base)).stdout;
    const code = (await cli([...base, '--normalization', 'code', '--tag', 'dense_code'])).stdout;
    expect(code).not.toBe(paper.replaceAll('pl_alpha2', 'dense_code'));
    expect(code).toContain(' dense_code\n');
    expect((await cli([...args(RUN, []), '--normalization', 'code'])).stdout).toBe((await cli(args(RUN, []))).stdout);
  });

  it('refuses a stochastic input run and bad options', async () => {
    const stochastic = file('q1 Q0 a 1 2 x\nq1 Q1 b 1 2 x\n', 'stoch.trec');
    const r = await cli(args(stochastic, []));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/stoch\.trec:2: iter: query 'q1' has rankings 'Q0' and 'Q1'/);
    expect((await cli(['sample', '--run', RUN, '--alpha', '2', '--samples', '5', '-k', '4'])).stderr).toMatch(/missing required option --seed/);
    expect((await cli(['sample', '--run', RUN, '--alpha=-1', '--samples', '5', '-k', '4', '--seed', '1'])).stderr).toMatch(/--alpha: must be at least 0/);
    expect((await cli([...args(RUN, []), '--normalization', 'zscore'])).stderr).toMatch(/--normalization: expected one of paper, code/);
    expect((await cli(['sample', '--run', RUN, '--alpha', '2000', '--samples', '5', '-k', '4', '--seed', '1'])).stderr).toMatch(/query 'q1': alpha 2000 makes the logits overflow/);
    expect((await cli(args(file('q1 Q0 a 1 x t\n', 'nan.trec'), []))).stderr).toMatch(/nan\.trec:1: score: not a number/);
  });

  it('streams: the output (past a 1 MB flush) is byte for byte the in-memory run of the same seed', async () => {
    // 12,000 samples: about 1.2 MB of q1 lines, so the sink flushes inside a query.
    const r = await cli(['sample', '--run', RUN, '--alpha', '1', '--samples', '12000', '-k', '4', '--seed', '77']);
    expect(r.stderr).toBe('');
    const root = createRng(77);
    const rows: RunWriteRow[] = [];
    for (const [qid, lines] of [['q1', Q1], ['q2', Q2]] as const) {
      const items = lines.map((l) => l.split(' ')).map((f) => ({ id: f[2]!, score: Number(f[4]) })).sort((a, b) => (a.id < b.id ? -1 : 1));
      const rankings = samplePlackettLuce({ items, alpha: 1, k: 4, samples: 12000, rng: root.fork(qid) });
      rankings.forEach((ranking, s) => ranking.forEach((docno, i) => rows.push({ qid, iter: `Q${s}`, docno, score: ranking.length - i })));
    }
    expect(r.stdout.length).toBeGreaterThan(2 ** 20);
    expect(r.stdout).toBe(formatRun(rows, { tag: 'pl_alpha1' }));
  });

  it('caps --samples at 1,000,000 with a clear error instead of running out of memory', async () => {
    const r = await cli(['sample', '--run', RUN, '--alpha', '2', '--samples', '10000000', '-k', '5', '--seed', '1']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('fairground sample: --samples: must be at most 1000000, got 10000000\n');
  });

  it('--output leaves no file when it cannot be written and no partial file after an error', async () => {
    const missing = await cli([...args(RUN, []), '--output', 'no/such/dir/out.trec']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/cannot write no\/such\/dir\/out\.trec \(ENOENT\)/);
    const bad = await cli([...args(RUN, []), '--tag', 'two words', '--output', 'tagged.trec']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/tag: must be non-empty and contain no whitespace/);
    expect(readdirSync(dir).filter((f) => f.startsWith('tagged.trec'))).toEqual([]);
    const ok = await cli([...args(RUN, []), '--output', 'ok.trec']);
    expect(ok.code).toBe(0);
    expect(readFileSync(path.join(dir, 'ok.trec'), 'utf8')).toBe((await cli(args(RUN, []))).stdout);
    expect(readdirSync(dir).filter((f) => f.startsWith('ok.trec'))).toEqual(['ok.trec']);
  });

  it('reads one query at a time: a run whose queries come back is read whole with the same output; a bad later query leaves no output', async () => {
    // Many queries (past several 64 KiB blocks of the file), read grouped, against the same rows read whole:
    // the ungrouped file moves each query's last row to the end, so q0's rows come back after q299's.
    const rng = createRng(2501);
    const queries = Array.from({ length: 300 }, (_, q) => Array.from({ length: 40 }, (_, d) => `q${q} Q0 q${q}d${d} ${d + 1} ${(rng.nextFloat() * 10).toFixed(5)} bm25`));
    const grouped = file(queries.flat().join('\n') + '\n', 'grouped.trec');
    const ungrouped = file([...queries.map((q) => q.slice(0, -1)).flat(), ...queries.map((q) => q[q.length - 1])].join('\n') + '\n', 'ungrouped.trec');
    const a = await cli(args(grouped, []));
    expect(a.code).toBe(0);
    expect(a.stdout.split('\n').length - 1).toBe(300 * 5 * 4);
    expect((await cli(args(ungrouped, []))).stdout).toBe(a.stdout);
    expect((await cli(args(ungrouped, ['--output', 'ungrouped.out']))).code).toBe(0);
    expect(readFileSync(path.join(dir, 'ungrouped.out'), 'utf8')).toBe(a.stdout);
    expect(readdirSync(dir).filter((f) => f.startsWith('ungrouped.out'))).toEqual(['ungrouped.out']);
    // The last query is stochastic (a second column-2 value): refused, with nothing on stdout and no file.
    const bad = file([...queries.flat(), 'q299 Q1 q299d0 1 1 bm25'].join('\n') + '\n', 'badlast.trec');
    const r = await cli(args(bad, []));
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/badlast\.trec:12001: iter: query 'q299' has rankings 'Q0' and 'Q1'/);
    const f = await cli(args(bad, ['--output', 'badlast.out']));
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/badlast\.trec:12001: iter:/);
    expect(readdirSync(dir).filter((x) => x.startsWith('badlast.out'))).toEqual([]);
  });
});
