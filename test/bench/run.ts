/**
 * `npm run bench`: runs every suite, writes test/bench/results/latest.json and latest.md.
 * `npm run bench -- --only engine,metrics` runs some suites; `--scale 0.2` makes a quick run.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism, cpus, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { markdownTable, type BenchRow, type BenchSuite } from './harness';
import { suites } from './suites';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const onlyArg = args[args.indexOf('--only') + 1];
  const only = args.includes('--only') && onlyArg ? new Set(onlyArg.split(',')) : undefined;
  const scaleArg = args.includes('--scale') ? Number(args[args.indexOf('--scale') + 1]) : 1;
  const scale = Number.isFinite(scaleArg) && scaleArg > 0 ? scaleArg : 1;
  const rows: BenchRow[] = [];
  const started = Date.now();
  for (const [name, suite] of Object.entries(suites) as [string, BenchSuite][]) {
    if (only && !only.has(name)) continue;
    const t0 = Date.now();
    process.stdout.write(`▶ ${name}\n`);
    try {
      const got = await suite({ scale, log: (m) => process.stdout.write(`  ${m}\n`) });
      rows.push(...got);
      for (const r of got) process.stdout.write(`  ${r.name}: ${r.ratio.toFixed(3)} (${r.candidateLabel} / ${r.baselineLabel}, ${r.metric})\n`);
    } catch (err) {
      process.stdout.write(`  suite ${name} failed: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    }
    process.stdout.write(`  (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  }
  const meta = {
    date: new Date().toISOString(),
    machine: `${platform()} ${release()}, ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    node: process.versions.node,
    scale: String(scale),
    'total time': `${((Date.now() - started) / 1000).toFixed(0)} s`,
  };
  const dir = join(process.cwd(), 'test', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify({ meta, rows }, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.md'), markdownTable(rows, meta));
  process.stdout.write(`wrote test/bench/results/latest.{json,md}\n`);
}

await main();
