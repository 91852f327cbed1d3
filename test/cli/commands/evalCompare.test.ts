import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evalCompareCommand } from '../../../src-main/cli/commands/evalCompare';
import { runCliCaptured } from '../../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fairground-eval-compare-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A run retrieving `counts[i]` documents for query q(i+1); d1 first (the relevant one when asked). */
function run(name: string, counts: number[]): string {
  const lines: string[] = [];
  counts.forEach((n, q) => {
    for (let d = 1; d <= n; d++) lines.push(`q${q + 1} Q0 d${d} ${d} ${n - d + 1} ${name}`);
  });
  writeFileSync(path.join(dir, name), `${lines.join('\n')}\n`);
  return name;
}

writeFileSync(path.join(dir, 'qrels'), [1, 2, 3, 4, 5].map((q) => `q${q} 0 d1 1`).join('\n') + '\n');
// NumRet per query: base 1..5; sys1 = base + d with d = [1, 2, 0, 3, 1]: paired t = 1.4/√0.26, df 4,
// p = 0.0516 (closed form, see statsCompare.test.ts); sys2 = base: every difference 0, p = 1.
const BASE = run('base.run', [1, 2, 3, 4, 5]);
const SYS1 = run('sys1.run', [2, 4, 3, 7, 6]);
const SYS2 = run('sys2.run', [1, 2, 3, 4, 5]);

async function cli(argv: string[]) {
  return runCliCaptured(['eval', 'compare', ...argv], { cwd: dir, commands: [evalCompareCommand] });
}

const t = 1.4 / Math.sqrt(0.26);
const u = t / Math.sqrt(1 + (t * t) / 4);
const P1 = 1 - (3 / 4) * u * (1 - (t * t) / (1 + (t * t) / 4) / 12);

describe('fairground eval compare (#16.5)', () => {
  it('prints one row per run with the measures as columns and paired tests against the baseline', async () => {
    const r = await cli(['--qrels', 'qrels', '--baseline', BASE, '--run', SYS1, '--run', SYS2, '-m', 'NumRet', '-m', 'P@1', '-p', '6']);
    expect(r.code, r.stderr).toBe(0);
    const [header, ...rows] = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(header).toEqual(['name', 'NumRet (mean per query)', 'NumRet +', 'NumRet -', 'NumRet p-value', 'NumRet p-value corrected', 'NumRet reject', 'P@1', 'P@1 +', 'P@1 -', 'P@1 p-value', 'P@1 p-value corrected', 'P@1 reject']);
    expect(rows.map((x) => x[0])).toEqual(['base.run', 'sys1.run', 'sys2.run']);
    // NumRet is a count: trec_eval's 'all' sums it (15, 22, 15); the column is the per-query mean, as its CI
    // and delta are (issue 34 item 5): 15/5 = 3, 22/5 = 4.4, 3. P@1 = 1 everywhere (no difference, p = 1).
    expect(rows[0]!.slice(1, 7)).toEqual(['3.000000', '', '', '', '', '']);
    expect(rows[1]!.slice(1, 4)).toEqual(['4.400000', '4', '0']);
    expect(Number(rows[1]![4])).toBeCloseTo(P1, 6);
    // Holm over the 4 tests (p1 and three p = 1): 4·p1 = 0.2064.
    expect(Number(rows[1]![5])).toBeCloseTo(Math.min(1, 4 * P1), 6);
    expect(rows[1]![6]).toBe('false');
    expect(rows[2]!.slice(4, 7)).toEqual(['1.000000', '1.000000', 'false']);
  });

  it('corrects with Benjamini–Hochberg: p1 · 4/1 capped by the running minimum from the top', async () => {
    const r = await cli(['--qrels', 'qrels', '--baseline', BASE, '--run', SYS1, '--run', SYS2, '-m', 'NumRet', '-m', 'P@1', '--correction', 'bh', '-p', '6']);
    const rows = r.stdout.trim().split('\n').map((l) => l.split('\t'));
    // sorted p: p1, 1, 1, 1 → 4·p1/1, 4/2, 4/3, 4/4 → capped at 1 → BH(p1) = 4·p1 = 0.2064 (here equal to Holm).
    expect(Number(rows[2]![5])).toBeCloseTo(4 * P1, 6);
  });

  it('writes CSV and a booktabs LaTeX table, and reads a run from stdin', async () => {
    const csv = await cli(['--qrels', 'qrels', '--baseline', BASE, '--run', SYS1, '-m', 'NumRet', '--format', 'csv']);
    expect(csv.stdout.split('\n')[0]).toBe('run,measure,mean,ci_low,ci_high,delta_vs_baseline,p_value,p_adjusted,significant,wins,ties,losses,ci_method,test,correction,aggregate,trec_eval_all');
    expect(csv.stdout.split('\n')[2]).toMatch(/,two-sided paired t-test,holm,mean per query,22$/);
    // mean 4.4 = 3 + delta 1.4, inside its CI (t: 4.4 ± 2.776445 · √(Σ(x − 4.4)²/4/5)).
    const cells = csv.stdout.split('\n')[2]!.split(',');
    expect(cells.slice(0, 3)).toEqual(['sys1.run', 'NumRet', '4.4']);
    expect(Number(cells[5])).toBeCloseTo(1.4, 12);
    const sd = Math.sqrt([2, 4, 3, 7, 6].reduce((a, x) => a + (x - 4.4) ** 2, 0) / 4);
    expect(Number(cells[3])).toBeCloseTo(4.4 - (2.7764451051977987 * sd) / Math.sqrt(5), 9);
    expect(Number(cells[4])).toBeCloseTo(4.4 + (2.7764451051977987 * sd) / Math.sqrt(5), 9);
    const tex = await cli(['--qrels', 'qrels', '--baseline', BASE, '--run', SYS1, '-m', 'NumRet', '--format', 'latex', '--correction', 'bh']);
    expect(tex.stdout).toContain('\\toprule');
    expect(tex.stdout).toContain('Benjamini--Hochberg correction');
    expect(tex.stdout).toContain('sys1.run & \\textbf{4.400}');
    expect(tex.stdout).toContain('NumRet (mean per query)');
    const { readFileSync } = await import('node:fs');
    const piped = await runCliCaptured(['eval', 'compare', '--qrels', 'qrels', '--baseline', BASE, '--run', '-', '-m', 'NumRet'], {
      cwd: dir,
      commands: [evalCompareCommand],
      stdin: readFileSync(path.join(dir, SYS1), 'utf8'),
    });
    expect(piped.stdout.split('\n')[2]).toMatch(/^-\t4\.4000\t4\t0\t/);
  });

  it('names bad input in one line', async () => {
    expect((await cli(['--qrels', 'qrels', '--baseline', BASE, '-m', 'AP'])).stderr).toBe('fairground eval compare: missing required option --run (at least one run to compare with the baseline)\n');
    expect((await cli(['--qrels', 'qrels', '--baseline', BASE, '--run', BASE, '-m', 'AP'])).stderr).toBe("fairground eval compare: the run 'base.run' is given twice\n");
    writeFileSync(path.join(dir, 'bad.run'), 'q1 Q0 d1 1 x t\n');
    expect((await cli(['--qrels', 'qrels', '--baseline', BASE, '--run', 'bad.run', '-m', 'AP'])).stderr).toBe("fairground eval compare: bad.run:1: score: not a number: 'x'\n");
  });
});
