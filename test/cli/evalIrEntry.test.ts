/**
 * Issue 25 item 4: `fairground eval ir` runs from its own one-file bundle (src-main/cli/evalIrMain.ts,
 * dist/main/evalIrMain.js). Bundled here as scripts/build.mjs bundles it, it must load no other
 * module of ours and print, exit and err exactly as the whole CLI does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainBundleOptions } from '../../scripts/bundleZod.mjs';
import { runCliCaptured } from '../support/cli';

const repo = path.resolve(__dirname, '..', '..');
const dir = mkdtempSync(path.join(tmpdir(), 'fairground-evalir-entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bundle = path.join(dir, 'out', 'evalIrMain.js');

beforeAll(async () => {
  // The options of scripts/build.mjs for the unsplit entries (scripts/bundleZod.mjs mainBundleOptions).
  await build({ ...mainBundleOptions(repo, path.join(dir, 'out')), entryPoints: { evalIrMain: 'src-main/cli/evalIrMain.ts' } });
  writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  writeFileSync(path.join(dir, 'launch.mjs'), `const { main } = await import(${JSON.stringify(bundle)}); await main();\n`);
  writeFileSync(path.join(dir, 'run.trec'), ['q1 Q0 d1 1 3 r', 'q1 Q0 d2 2 2 r', 'q1 Q0 d3 3 1 r', 'q2 Q0 d1 1 1 r', ''].join('\n'));
  writeFileSync(path.join(dir, 'test.qrels'), ['q1 0 d1 0', 'q1 0 d3 2', 'q2 0 d1 1', 'q2 0 d9 1', 'q3 0 x 1', ''].join('\n'));
}, 60_000);

function bundled(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(dir, 'launch.mjs'), 'eval', 'ir', ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the eval ir entry (one file)', () => {
  it('imports nothing of ours beyond itself: no chunk, no other command', () => {
    const text = readFileSync(bundle, 'utf8');
    expect(text).not.toMatch(/import\(["']\.\.?\//);
    expect(text).not.toMatch(/from ["']\.\.?\//);
    expect(text).not.toContain('better-sqlite3');
  });

  it('prints, exits and errs as the whole CLI', async () => {
    const cases = [
      ['--run', 'run.trec', '--qrels', 'test.qrels', '-m', 'AP', '-m', 'nDCG@10', '-m', 'RR', '-q'],
      ['--run', 'run.trec', '--qrels', 'test.qrels', '-m', 'P@2', '--format', 'json'],
      ['--help'],
      ['--run', 'run.trec', '--qrels', 'missing.qrels', '-m', 'AP'],
      ['--run', 'run.trec', '--qrels', 'test.qrels', '-m', 'map_cut.10'],
    ];
    for (const args of cases) {
      const whole = await runCliCaptured(['eval', 'ir', ...args], { cwd: dir });
      const one = bundled(args);
      expect(one, args.join(' ')).toEqual(whole);
    }
    // Hand-computed (q3 is in the qrels, not in the run: 0): AP q1 = (1/3)/1, q2 = 1/2; mean (1/3 + 1/2 + 0)/3.
    const r = bundled(cases[0]!);
    for (const line of ['AP\tq1\t0.3333', 'AP\tq2\t0.5000', 'AP\tq3\t0.0000', 'AP\tall\t0.2778', 'RR\tq1\t0.3333', 'RR\tall\t0.4444']) expect(r.stdout.split('\n')).toContain(line);
  });
});
