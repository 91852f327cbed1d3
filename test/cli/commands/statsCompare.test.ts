import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { statsCompareCommand } from '../../../src-main/cli/commands/statsCompare';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-stats-compare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function file(text: string): string {
  const name = `scores${fileNo++}.txt`;
  writeFileSync(path.join(dir, name), text);
  return name;
}

async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliCaptured(['stats', 'compare', ...argv], { cwd: dir, commands: [statsCompareCommand] });
}

async function json(argv: string[]): Promise<Record<string, unknown>> {
  const r = await cli(argv);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

// a = [1, 2, 3, 4, 5], b = [2, 4, 3, 7, 6] by qid: d = [1, 2, 0, 3, 1], mean 1.4, s² = 1.3,
// t = 1.4/√0.26 with df 4. Lines shuffled, comments and blank lines mixed in.
const A = file('# baseline\nq1 1\nq3\t3\n\nq2 2\nq5 5\nq4   4\n');
const B = file('q5 6\nq4 7\n# system\nq2 4\nq1 2\nq3 3\n');

describe('fairground stats compare', () => {
  it('paired t-test: hand-computed statistic, df-4 closed-form p, CI, W/T/L and d_z', async () => {
    const o = await json(['--a', A, '--b', B, '--paired']);
    const t = 1.4 / Math.sqrt(0.26);
    const u = t / Math.sqrt(1 + (t * t) / 4);
    const p = 1 - (3 / 4) * u * (1 - (t * t) / (1 + (t * t) / 4) / 12); // df 4: P(|T| ≥ t)
    expect(o).toMatchObject({ test: 'paired-t', paired: true, difference: 'b - a', n: 5, n_a: 5, n_b: 5, df: 4, statistic_name: 't' });
    expect(o.mean_a).toBeCloseTo(3, 14);
    expect(o.mean_b).toBeCloseTo(4.4, 14);
    expect(o.mean_difference).toBeCloseTo(1.4, 14);
    expect(o.statistic as number).toBeCloseTo(t, 12);
    expect(Math.abs((o.p_value as number) - p)).toBeLessThan(1e-10);
    expect(o.significant).toBe(false); // p = 0.0516 > 0.05
    expect(o).toMatchObject({ wins: 4, ties: 1, losses: 0, tie_tolerance: 0, effect_size_name: 'cohens_dz', permutations: null, seed: null });
    expect(o.effect_size as number).toBeCloseTo(1.4 / Math.sqrt(1.3), 12);
    // t_{.975,4} = 2.7764451051977987 (closed form for df 4)
    const ci = o.ci95 as { lower: number; upper: number };
    expect(ci.lower).toBeCloseTo(1.4 - 2.7764451051977987 * Math.sqrt(0.26), 10);
    expect(ci.upper).toBeCloseTo(1.4 + 2.7764451051977987 * Math.sqrt(0.26), 10);
  });

  it('alpha and one-sided alternatives', async () => {
    const o = await json(['--a', A, '--b', B, '--paired', '--alpha', '0.1', '--alternative', 'greater']);
    expect(o.alpha).toBe(0.1);
    expect(o.alternative).toBe('greater');
    expect(o.p_value as number).toBeCloseTo(0.05160595781117475 / 2, 10); // scipy ttest_rel two-sided / 2
    expect(o.significant).toBe(true);
    // The interval that matches the one-sided test (issue 34 item 5): [1.4 − t_{.95,4} · √0.26, ∞) with
    // t_{.95,4} = 2.131846786326649 → [0.312955, ∞), which excludes 0 as p < α says; two-sided kept beside it.
    const lower = 1.4 - 2.131846786326649 * Math.sqrt(0.26);
    expect((o.ci95 as { lower: number }).lower).toBeCloseTo(lower, 10);
    expect((o.ci95 as { upper: number | null }).upper).toBeNull();
    expect(o.ci_sides).toBe('one-sided (greater)');
    expect(o.ci95_text).toBe(`[${(o.ci95 as { lower: number }).lower}, inf)`);
    expect((o.ci95_two_sided as { lower: number }).lower).toBeCloseTo(1.4 - 2.7764451051977987 * Math.sqrt(0.26), 10);
    const less = await json(['--a', A, '--b', B, '--paired', '--alternative', 'less', '-p', '4']);
    expect(less.ci95).toEqual({ lower: null, upper: Number((1.4 + 2.131846786326649 * Math.sqrt(0.26)).toFixed(4)) });
    expect(less.ci95_text).toBe(`(-inf, ${(1.4 + 2.131846786326649 * Math.sqrt(0.26)).toFixed(4)}]`);
    const two = await json(['--a', A, '--b', B, '--paired']);
    expect(two.ci_sides).toBe('two-sided');
    expect(two.ci95_two_sided).toBeUndefined();
  });

  it('paired randomization: seeded, reproducible, p close to the exact 2^5 enumeration', async () => {
    // d = [1, 2, 0, 3, 1], Σ = 7: signed sums with |Σ| ≥ 7 are ±7 for both signs of the 0 → exact p = 4/32
    const o = await json(['--a', A, '--b', B, '--paired', '--test', 'randomization', '--seed', '7', '--permutations', '10000']);
    expect(o).toMatchObject({ test: 'paired-randomization', statistic_name: 'mean difference', df: null, seed: 7, permutations: 10_000, p_value_formula: '(count+1)/(permutations+1)', ci_method: 'paired-t' });
    expect(o.statistic as number).toBeCloseTo(1.4, 14);
    expect(Math.abs((o.p_value as number) - 0.125)).toBeLessThan(5 * Math.sqrt((0.125 * 0.875) / 10_000));
    const again = await json(['--a', A, '--b', B, '--paired', '--test', 'randomization', '--seed', '7', '--permutations', '10000']);
    expect(again.p_value).toBe(o.p_value);
    expect((await json(['--a', A, '--b', B, '--paired', '--test', 'randomization'])).seed).toBe(42);
  });

  it('unpaired Student and Welch tests', async () => {
    // a = [1, 2, 3], b = [4, 5, 6]: Student t = 3/√(2/3), df 4; Cohen's d = 3
    const a = file('x 1\ny 2\nz 3\n');
    const b = file('u 4\nv 5\nw 6\n');
    const s = await json(['--a', a, '--b', b]);
    expect(s).toMatchObject({ test: 'student-t', paired: false, n: 6, df: 4, wins: null, missing: null, effect_size_name: 'cohens_d' });
    expect(s.statistic as number).toBeCloseTo(3 / Math.sqrt(2 / 3), 12);
    expect(Math.abs((s.p_value as number) - 0.021311641128756713)).toBeLessThan(1e-10); // scipy ttest_ind(b, a)
    expect(s.effect_size as number).toBeCloseTo(3, 14);
    const w = await json(['--a', a, '--b', b, '--welch']);
    expect(w.test).toBe('welch-t');
    expect(w.df as number).toBeCloseTo(4, 12);
    const r = await json(['--a', a, '--b', b, '--test', 'randomization', '--permutations', '2000']);
    expect(r.test).toBe('unpaired-randomization');
  });

  it('identical files: p = 1, statistic 0, no NaN anywhere', async () => {
    const o = await json(['--a', A, '--b', A, '--paired']);
    expect(o).toMatchObject({ statistic: 0, p_value: 1, effect_size: 0, ties: 5, significant: false });
    expect(o.notes).toEqual(['every difference is 0 (zero variance): statistic 0 and p = 1 by convention']);
  });

  it('constant non-zero differences: infinite t printed as null with a note, p = 0', async () => {
    const b = file('q1 1.5\nq2 2.5\nq3 3.5\nq4 4.5\nq5 5.5\n');
    const o = await json(['--a', A, '--b', b, '--paired']);
    expect(o).toMatchObject({ statistic: null, effect_size: null, p_value: 0, significant: true });
    expect((o.notes as string[])[0]).toMatch(/t statistic and effect size are infinite/);
    // randomization: the statistic is the (finite) mean difference; only the sign-vector all-+ and
    // all-− reach |Σ| = 2.5 among 2^5, so exact p = 2/32
    const r = await json(['--a', A, '--b', b, '--paired', '--test', 'randomization']);
    expect(r).toMatchObject({ statistic: 0.5, effect_size: null });
    expect(Math.abs((r.p_value as number) - 2 / 32)).toBeLessThan(5 * Math.sqrt(((2 / 32) * (30 / 32)) / 10_000));
    expect((r.notes as string[])[0]).toMatch(/effect size is infinite/);
  });

  it('missing queries: error listing them by default, or drop / zero', async () => {
    const b = file('q1 2\nq2 4\nq3 3\nq9 1\n');
    const r = await cli(['--a', A, '--b', b, '--paired']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `fairground stats compare: query ids differ between the files (in ${A} but not ${b}: q5, q4; in ${b} but not ${A}: q9); use --missing drop or --missing zero\n`,
    );
    const dropped = await json(['--a', A, '--b', b, '--paired', '--missing', 'drop']);
    expect(dropped).toMatchObject({ n: 3, dropped_queries: 3, missing: 'drop' });
    expect(dropped.mean_difference as number).toBeCloseTo(1, 14); // d = [1, 2, 0]
    const zero = await json(['--a', A, '--b', b, '--paired', '--missing', 'zero']);
    expect(zero).toMatchObject({ n: 6, zero_filled: { a: 1, b: 2 } });
    // a = [1,2,3,4,5,0] (q9 → 0), b = [2,4,3,0,0,1] (q4, q5 → 0)
    expect(zero.mean_a as number).toBeCloseTo(15 / 6, 14);
    expect(zero.mean_b as number).toBeCloseTo(10 / 6, 14);
  });

  it('malformed lines and duplicates name the file and line', async () => {
    const cases: [string, string][] = [
      ['q1 1\nq2 abc\n', ':2: value: not a number: \'abc\''],
      ['q1 1\nq2\n', ":2: expected 2 fields 'qid value', got 1"],
      ['q1 1\nq2 0.5 extra\n', ":2: expected 2 fields 'qid value', got 3"],
      ['q1 1\n\nq1 2\n', ":3: qid: duplicate query id 'q1' (first on line 1)"],
      ['q1 NaN\n', ":1: value: not a number: 'NaN'"],
      ['q1 1e999\n', ":1: value: not a finite number: '1e999'"],
      ['# only a comment\n\n', ": no scores (expected lines of 'qid value')"],
    ];
    for (const [text, suffix] of cases) {
      const bad = file(text);
      const r = await cli(['--a', bad, '--b', B, '--paired']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`fairground stats compare: ${bad}${suffix}\n`);
    }
    const r = await cli(['--a', 'nope.txt', '--b', B]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^fairground stats compare: nope\.txt: cannot read file \(ENOENT\)/);
  });

  it('rejects bad options and too few queries', async () => {
    const one = file('q1 1\n');
    const bad: [string[], RegExp][] = [
      [['--b', B], /missing required option --a/],
      [['--a', A, '--b', B, '--test', 'wilcoxon'], /--test: expected one of t, randomization/],
      [['--a', A, '--b', B, '--alpha', '1'], /--alpha/],
      [['--a', A, '--b', B, '--permutations', '0'], /--permutations: must be at least 1/],
      [['--a', A, '--b', B, '--seed', '-1'], /--seed/],
      [['--a', A, '--b', B, '--paired', '--welch'], /--welch applies to unpaired/],
      [['--a', A, '--b', B, '--missing', 'drop'], /--missing applies to --paired/],
      [['--a', A, '--b', B, '--alternative', 'bigger'], /--alternative/],
      [['--a', one, '--b', one, '--paired'], /at least 2 queries/],
    ];
    for (const [argv, re] of bad) {
      const r = await cli(argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(re);
    }
  });

  it('prints help', async () => {
    const r = await cli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: fairground stats compare --a SCORES --b SCORES');
  });
});

describe('stats compare: eval ir -q output, pipes, places and the two-sided rule (#16.4, #16.6)', () => {
  it('reads the -m lines of eval ir -q output (skipping all and other measures), also from stdin', async () => {
    const irA = file('AP\tq1\t1.0000\nRR\tq1\t9\nAP\tq2\t2\nAP\tq3\t3\nAP\tq4\t4\nAP\tq5\t5\nAP\tall\t3.0000\n');
    const irB = 'AP q5 6\nAP q4 7\nAP q2 4\nAP q1 2\nAP q3 3\nAP all 4.4\n';
    const fileB = file(irB);
    const o = await json(['--a', irA, '--b', fileB, '--paired', '-m', 'AP']);
    expect(o.mean_difference).toBeCloseTo(1.4, 12);
    const r = await runCliCaptured(['stats', 'compare', '--a', irA, '--b', '-', '--paired', '-m', 'AP'], { cwd: dir, commands: [statsCompareCommand], stdin: irB });
    expect(JSON.parse(r.stdout).mean_difference).toBeCloseTo(1.4, 12);
    const none = await cli(['--a', irA, '--b', fileB, '--paired', '-m', 'nDCG@10']);
    expect(none.stderr).toBe(`fairground stats compare: ${irA}: no per-query lines of measure 'nDCG@10' (expected eval ir -q output)\n`);
  });

  it('rounds with -p', async () => {
    const o = await json(['--a', A, '--b', B, '--paired', '-p', '3']);
    expect(o.mean_difference).toBe(1.4);
    expect(o.statistic).toBe(2.746); // 1.4/√0.26 = 2.7456…
  });

  it('names the two-sided rule of the unpaired randomization test and offers scipy\'s', async () => {
    // a = [1, 1], b = six 0s: observed mean(b) − mean(a) = −1. Of the 28 labellings, 1 puts both 1s in a
    // (−1), 12 one (−1/3), 15 none (+1/3). |stat| ≥ 1: p = 1/28; scipy: 2·min(1/28, 1) = 2/28.
    const a = file('x 1\ny 1\n');
    const b = file('p 0\nq 0\nr 0\ns 0\nt 0\nu 0\n');
    const abs = await json(['--a', a, '--b', b, '--test', 'randomization']);
    const dbl = await json(['--a', a, '--b', b, '--test', 'randomization', '--two-sided', 'doubled']);
    expect(abs.two_sided_rule).toBe('absolute');
    expect(dbl.two_sided_rule).toBe('doubled');
    expect(dbl.p_value_formula).toBe('min(1, 2*(min(count_less, count_greater)+1)/(permutations+1))');
    expect(Math.abs((dbl.p_value as number) - 2 * (abs.p_value as number))).toBeLessThan(0.01);
    expect((await cli(['--a', a, '--b', b, '--two-sided', 'doubled'])).stderr).toBe('fairground stats compare: --two-sided applies to the unpaired randomization test only\n');
  });
});
