/**
 * Issue 25 item 3: the peak memory of importing a corpus whose one line is 50 MB (one document of
 * ~51 MB of text, JSONL), as a whole `fairground collection import` process (built CLI, VmHWM),
 * against the line's own size; beside it the floor of node reading the same file whole and
 * JSON-parsing it (fs.readFileSync + JSON.parse). Goal: ≤ 3× the line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median, type BenchContext, type BenchRow } from './harness';
import { peakProcess, writePeakPreload, type PeakRun } from './peakRss';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function importMemoryBench(ctx: BenchContext, pairs = 3): Promise<BenchRow[]> {
  const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--main-only', '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (b.status !== 0) throw new Error(`build failed: ${b.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'fg-bench-import-rss-'));
  try {
    const preload = writePeakPreload(dir);
    const words = Math.round(1_900_000 * Math.min(1, ctx.scale));
    writeFileSync(join(dir, 'big.jsonl'), `${JSON.stringify({ id: 'x', text: 'lorem ipsum dolor sit amet '.repeat(words) })}\n`);
    const lineMiB = statSync(join(dir, 'big.jsonl')).size / 2 ** 20;
    const imports: PeakRun[] = [];
    const floors: PeakRun[] = [];
    // The command's own footprint: the same import of a tiny one-line corpus.
    writeFileSync(join(dir, 'tiny.jsonl'), `${JSON.stringify({ id: 'x', text: 'lorem ipsum' })}\n`);
    const smalls: PeakRun[] = [];
    for (let p = 0; p < pairs; p++) {
      const ws = join(dir, `w${p}.fairground`);
      const runImport = async () => imports.push(await peakProcess([join(root, 'bin', 'fairground.js'), 'collection', 'import', '--kind', 'corpus', '--name', 'big', '-w', ws, 'big.jsonl'], preload, dir, { FAIRGROUND_USE_DIST: '1' }));
      const runFloor = async () => floors.push(await peakProcess(['-e', "const o = JSON.parse(require('node:fs').readFileSync('big.jsonl', 'utf8')); process.stdout.write(String(o.text.length))"], preload, dir));
      smalls.push(await peakProcess([join(root, 'bin', 'fairground.js'), 'collection', 'import', '--kind', 'corpus', '--name', 'tiny', '-w', join(dir, `t${p}.fairground`), 'tiny.jsonl'], preload, dir, { FAIRGROUND_USE_DIST: '1' }));
      if (p % 2 === 0) {
        await runImport();
        await runFloor();
      } else {
        await runFloor();
        await runImport();
      }
    }
    const peak = median(imports.map((r) => r.peakMiB));
    const floor = median(floors.map((r) => r.peakMiB));
    const small = median(smalls.map((r) => r.peakMiB));
    const ratios = imports.map((r) => r.peakMiB / lineMiB).sort((x, y) => x - y);
    ctx.log(
      `one-line corpus (${lineMiB.toFixed(1)} MiB line): import peak ${peak.toFixed(0)} MiB (${(peak / lineMiB).toFixed(1)}× the line; each: ${imports.map((r) => r.peakMiB.toFixed(0)).join(', ')}); tiny import ${small.toFixed(0)} MiB; node readFileSync + JSON.parse ${floor.toFixed(0)} MiB`,
    );
    return [
      {
        suite: 'importmemory',
        name: `\`fairground collection import\` of a corpus whose one line is ${lineMiB.toFixed(0)} MiB (one JSONL document), built CLI, whole process`,
        metric: 'peak RSS, MiB',
        better: 'lower',
        baselineLabel: 'the line',
        candidateLabel: 'import',
        baseline: lineMiB,
        candidate: peak,
        ratio: median(ratios),
        spread: { low: ratios[0]!, high: ratios[ratios.length - 1]!, pairs },
        note: `goal ≤ 3× the line (issue 25: 622 MB, 12×); node reading the file whole and JSON-parsing it peaks at ${floor.toFixed(0)} MiB (${(floor / lineMiB).toFixed(1)}×; a bare node process is ~40 MiB); the same command importing a one-line corpus of a few bytes peaks at ${small.toFixed(0)} MiB`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
