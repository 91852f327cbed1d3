/**
 * Audit of issue 23 item 4 at the CLI (the issue's own case: "an all-0 AP column in `eval compare --format csv`
 * gets Wilson too"); the core is unit-tested in test/core/stats/boundedInterval.test.ts, this checks what the
 * CSV says. Three queries, d1 relevant for each. Run a finds it first for q1 and q2 and misses q3; run b never does.
 * Hand-computed:
 * - a, AP = (1, 1, 0): continuous, so the t-interval 2/3 ± t_{.975,2}·s/√3 = 0.6667 ± 4.3027·0.57735/1.73205
 *   = [−0.768, 2.101], clipped to [0, 1] (AP is bounded), method "t, clipped to [0, 1] (clipped)" — not Wilson,
 *   although every value is exactly 0 or 1;
 * - a, P@1 = (1, 1, 0): binary by declaration, Wilson for 2 of 3: centre (2/3 + z²/6)/(1 + z²/3) = 0.573080,
 *   half-width z/(1 + z²/3)·√(2/27 + z²/36) = 0.365422 → [0.207660, 0.938508];
 * - b, AP and P@1 = (0, 0, 0): no interval, "no variance (n = 3)", ci_low and ci_high empty.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evalCompareCommand } from '../../src-main/cli/commands/evalCompare';
import { runCliCaptured } from '../support/cli';

const dir = mkdtempSync(path.join(tmpdir(), 'fg-audit-compare-ci-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('eval compare --format csv: the interval method by the measure’s declared scale', () => {
  it('AP of 0/1 values gets the clipped t-interval, P@1 Wilson, an all-0 column "no variance (n = 3)"', async () => {
    writeFileSync(path.join(dir, 'qrels'), 'q1 0 d1 1\nq2 0 d1 1\nq3 0 d1 1\n');
    writeFileSync(path.join(dir, 'a.run'), 'q1 Q0 d1 1 3 a\nq2 Q0 d1 1 3 a\nq3 Q0 d9 1 3 a\n');
    writeFileSync(path.join(dir, 'b.run'), 'q1 Q0 d9 1 3 b\nq2 Q0 d8 1 3 b\nq3 Q0 d7 1 3 b\n');
    const r = await runCliCaptured(['eval', 'compare', '--qrels', 'qrels', '--baseline', 'a.run', '--run', 'b.run', '-m', 'AP', '-m', 'P@1', '--format', 'csv'], {
      cwd: dir,
      commands: [evalCompareCommand],
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const header = lines[0]!.split(',');
    expect(header.slice(0, 5)).toEqual(['run', 'measure', 'mean', 'ci_low', 'ci_high']);
    const methodAt = header.indexOf('ci_method');
    // A quoted method may contain commas: read the row's fixed columns from the left, the method as the quoted field.
    const row = (run: string, measure: string) => {
      const line = lines.find((l) => l.startsWith(`${run},${measure},`))!;
      const cells = line.split(',');
      const quoted = /"([^"]*)"/.exec(line)?.[1];
      return { mean: Number(cells[2]), low: cells[3]!, high: cells[4]!, method: quoted ?? cells[methodAt]! };
    };
    const apA = row('a.run', 'AP');
    expect(apA.mean).toBeCloseTo(2 / 3, 10);
    expect([Number(apA.low), Number(apA.high)]).toEqual([0, 1]);
    expect(apA.method).toBe('t, clipped to [0, 1] (clipped)');
    const p1A = row('a.run', 'P@1');
    expect(Number(p1A.low)).toBeCloseTo(0.20766, 5);
    expect(Number(p1A.high)).toBeCloseTo(0.938508, 5);
    expect(p1A.method).toBe('Wilson score (binary measure)');
    for (const m of ['AP', 'P@1']) {
      const b = row('b.run', m);
      expect(b).toEqual({ mean: 0, low: '', high: '', method: 'no variance (n = 3)' });
    }
  });
});
