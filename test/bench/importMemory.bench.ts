/**
 * Issue 25 item 3: the peak memory of importing a corpus whose one line is 50 MB (one document of
 * ~51 MB of text, JSONL), as a whole `fairground collection import` process (built CLI, VmHWM),
 * against the line's own size (goal: ≤ 3× the line), and against the floor SQLite sets: a bare node
 * process storing the same text into the same workspace tables (documents, FTS5 index and trigger)
 * the cheapest way measured, with nothing of Fairground's around it (baselines/importFloor.mjs),
 * in alternating pairs. Logged beside them: that floor by one bound INSERT, and without the FTS
 * trigger; node reading the file whole and JSON-parsing it; node with better-sqlite3 loaded and
 * nothing else; the same command importing a one-line corpus of a few bytes.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openWorkspace } from '../../src-main/store/workspace';
import { median, type BenchContext, type BenchRow } from './harness';
import { peakProcess, writePeakPreload, type PeakRun } from './peakRss';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export async function importMemoryBench(ctx: BenchContext, pairs = 5): Promise<BenchRow[]> {
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
    const parses: PeakRun[] = [];
    const binds: PeakRun[] = [];
    const noFts: PeakRun[] = [];
    const bares: PeakRun[] = [];
    // The command's own footprint: the same import of a tiny one-line corpus.
    writeFileSync(join(dir, 'tiny.jsonl'), `${JSON.stringify({ id: 'x', text: 'lorem ipsum' })}\n`);
    const smalls: PeakRun[] = [];
    // The floor's workspace: created by the product's store code, copied fresh for each run.
    const template = join(dir, 'floor-template.fairground');
    openWorkspace(template).close();
    const floorScript = join(root, 'test', 'bench', 'baselines', 'importFloor.mjs');
    const floorRun = (mode: string, p: number) => {
      const ws = join(dir, `f-${mode}-${p}.fairground`);
      copyFileSync(template, ws);
      return peakProcess([floorScript, mode, ws, 'big.jsonl'], preload, dir);
    };
    for (let p = 0; p < pairs; p++) {
      const ws = join(dir, `w${p}.fairground`);
      const runImport = async () => imports.push(await peakProcess([join(root, 'bin', 'fairground.js'), 'collection', 'import', '--kind', 'corpus', '--name', 'big', '-w', ws, 'big.jsonl'], preload, dir, { FAIRGROUND_USE_DIST: '1' }));
      const runFloor = async () => floors.push(await floorRun('pieces', p));
      if (p % 2 === 0) {
        await runImport();
        await runFloor();
      } else {
        await runFloor();
        await runImport();
      }
      binds.push(await floorRun('bind', p));
      noFts.push(await floorRun('pieces-nofts', p));
      bares.push(await floorRun('bare', p));
      parses.push(await peakProcess(['-e', "const o = JSON.parse(require('node:fs').readFileSync('big.jsonl', 'utf8')); process.stdout.write(String(o.text.length))"], preload, dir));
      smalls.push(await peakProcess([join(root, 'bin', 'fairground.js'), 'collection', 'import', '--kind', 'corpus', '--name', 'tiny', '-w', join(dir, `t${p}.fairground`), 'tiny.jsonl'], preload, dir, { FAIRGROUND_USE_DIST: '1' }));
    }
    const med = (runs: PeakRun[]) => median(runs.map((r) => r.peakMiB));
    const peak = med(imports);
    const floor = med(floors);
    const small = med(smalls);
    const bare = med(bares);
    const ratios = imports.map((r) => r.peakMiB / lineMiB).sort((x, y) => x - y);
    const toFloor = imports.map((r, i) => r.peakMiB / floors[i]!.peakMiB).sort((x, y) => x - y);
    const each = (runs: PeakRun[]) => runs.map((r) => r.peakMiB.toFixed(0)).join(', ');
    const x = (mib: number) => `${(mib / lineMiB).toFixed(2)}×`;
    ctx.log(
      `one-line corpus (${lineMiB.toFixed(1)} MiB line): import peak ${peak.toFixed(0)} MiB (${x(peak)} the line; each: ${each(imports)}); ` +
        `SQLite's floor (bare node storing the text by concat() of 64 KiB pieces) ${floor.toFixed(0)} MiB (${x(floor)}; each: ${each(floors)}), the same without the FTS trigger ${med(noFts).toFixed(0)} MiB, by one bound INSERT ${med(binds).toFixed(0)} MiB (${x(med(binds))}); ` +
        `node + better-sqlite3 alone ${bare.toFixed(0)} MiB; tiny import ${small.toFixed(0)} MiB; node readFileSync + JSON.parse ${med(parses).toFixed(0)} MiB`,
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
        note: `goal ≤ 3× the line (issue 25: 622 MB, 12×); SQLite's own floor for storing this text in a workspace is ${floor.toFixed(0)} MiB (${x(floor)}; next row); node reading the file whole and JSON-parsing it peaks at ${med(parses).toFixed(0)} MiB (${x(med(parses))}); node with better-sqlite3 loaded ${bare.toFixed(0)} MiB; the same command importing a one-line corpus of a few bytes peaks at ${small.toFixed(0)} MiB`,
      },
      {
        suite: 'importmemory',
        name: `the same import against SQLite's floor: a bare node process (better-sqlite3, no Fairground code) storing the same text in a workspace's documents table with its FTS5 trigger, by concat() of 64 KiB pieces (test/bench/baselines/importFloor.mjs)`,
        metric: 'peak RSS, MiB',
        better: 'lower',
        baselineLabel: 'SQLite floor',
        candidateLabel: 'import',
        baseline: floor,
        candidate: peak,
        ratio: median(toFloor),
        spread: { low: toFloor[0]!, high: toFloor[toFloor.length - 1]!, pairs },
        note: `alternating pairs; the floor without the FTS trigger ${med(noFts).toFixed(0)} MiB, by one INSERT binding the text's bytes ${med(binds).toFixed(0)} MiB; node + better-sqlite3 alone ${bare.toFixed(0)} MiB, so SQLite's statement holds ${(floor - bare).toFixed(0)} MiB (${x(floor - bare)}) over the process`,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
