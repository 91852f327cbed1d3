/**
 * Issue 34 item 6: a headless `fairground run` prints every design warning on stderr before it
 * computes anything, in the words of `run --dry-run` (and the wizard: the same message and fix),
 * and stores them with the run: its metrics' warnings (`experiment show`, metrics-json) and its
 * manifest. The case of the issue: k at least every query's candidate count (the demo's queries
 * have 4-5 candidates; k = 5), where every arm shows the same documents.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliCaptured } from '../../support/cli';

const repo = path.resolve(__dirname, '..', '..', '..');
let dir: string;
let ws: string;
const cli = (argv: string[]) => runCliCaptured(argv, { cwd: dir });

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'fairground-run-design-'));
  ws = path.join(dir, 'w.fairground');
  const demo = JSON.parse(readFileSync(path.join(repo, 'resources', 'demo', 'experiments', 'fair-rag.json'), 'utf8')) as Record<string, unknown>;
  const spec = { ...demo, name: 'k covers the candidates', k: 5, samples: 3, alphas: [0, 8], retrievers: (demo.retrievers as unknown[]).slice(0, 1), attribution: { judge: 'none' } };
  writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('run warns as the wizard and --dry-run do', () => {
  it('prints the k ≥ candidates warning before computing and stores it in the metrics and the manifest', async () => {
    const dry = await cli(['run', 'spec.json', '--dry-run', '--workspace', ws]);
    expect(dry.code, dry.stderr).toBe(0);
    const dryLines = dry.stdout.split('\n');
    const at = dryLines.findIndex((l) => l.startsWith('warning [k-covers-candidates, k]: k = 5 is at least the number of candidates of every query'));
    expect(at).toBeGreaterThanOrEqual(0);
    const warning = dryLines[at]!;
    const fix = dryLines[at + 1]!;
    expect(fix).toMatch(/^ {2}fix: /);

    const r = await cli(['run', 'spec.json', '--workspace', ws]);
    expect(r.code, r.stderr).toBe(0);
    const err = r.stderr.split('\n');
    // The same two lines as --dry-run, on stderr, before the first progress line.
    const w = err.indexOf(warning);
    expect(w).toBeGreaterThanOrEqual(0);
    expect(err[w + 1]).toBe(fix);
    const firstProgress = err.findIndex((l) => /^\[\d+/.test(l));
    expect(firstProgress === -1 || firstProgress > w).toBe(true);
    const runId = Number(/run (\d+)/.exec(r.stdout)![1]);

    const note = `design warning [k-covers-candidates, k]: ${warning.slice(warning.indexOf(']: ') + 3)} Fix: ${fix.slice('  fix: '.length)}`;
    const shown = await cli(['experiment', 'show', String(runId), '--json', '--workspace', ws]);
    expect(shown.code, shown.stderr).toBe(0);
    const parsed = JSON.parse(shown.stdout) as { metrics: { warnings: string[] }; run: { stats: { designWarnings: { code: string }[] } } };
    expect(parsed.metrics.warnings[0]).toBe(note);
    expect(parsed.run.stats.designWarnings.map((x) => x.code)).toContain('k-covers-candidates');

    for (const [format, file] of [
      ['metrics-json', 'metrics.json'],
      ['manifest', 'manifest.json'],
    ] as const) {
      const out = await cli(['experiment', 'export', String(runId), '--format', format, '--output', file, '--workspace', ws]);
      expect(out.code, out.stderr).toBe(0);
      const json = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as { warnings: string[] };
      expect(json.warnings, format).toContain(note);
    }
  });
});
