/**
 * `npm run bench`: runs every suite, writes test/bench/results/latest.json and latest.md.
 * `npm run bench -- --only engine,metrics` runs some suites and replaces only their rows in
 * latest.{json,md} (the other suites' rows stay, each suite with the date and load average it was
 * measured at); `--scale 0.2` makes a quick run.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { markdownTable, type BenchRow, type BenchSuite } from './harness';
import { suites } from './suites';

interface SuiteRun {
  date: string;
  /** 1-minute load average before and after the suite, and the cores: how busy the machine was. */
  load: string;
  seconds: number;
  scale: number;
}

interface Results {
  meta: Record<string, string>;
  suites?: Record<string, SuiteRun>;
  rows: BenchRow[];
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const onlyArg = args[args.indexOf('--only') + 1];
  const only = args.includes('--only') && onlyArg ? new Set(onlyArg.split(',')) : undefined;
  const unknown = only ? [...only].filter((n) => !(n in suites)) : [];
  if (unknown.length > 0) {
    process.stderr.write(`unknown suite(s) ${unknown.join(', ')}; known: ${Object.keys(suites).join(', ')}\n`);
    process.exit(2);
  }
  const scaleArg = args.includes('--scale') ? Number(args[args.indexOf('--scale') + 1]) : 1;
  const scale = Number.isFinite(scaleArg) && scaleArg > 0 ? scaleArg : 1;
  const dir = join(process.cwd(), 'test', 'bench', 'results');
  const runs: Record<string, SuiteRun> = {};
  const rowsBySuite = new Map<string, BenchRow[]>();
  const started = Date.now();
  for (const [name, suite] of Object.entries(suites) as [string, BenchSuite][]) {
    if (only && !only.has(name)) continue;
    const t0 = Date.now();
    const loadBefore = loadavg()[0] ?? 0;
    process.stdout.write(`▶ ${name} (load average ${loadBefore.toFixed(1)} on ${availableParallelism()} cores)\n`);
    try {
      const got = await suite({ scale, log: (m) => process.stdout.write(`  ${m}\n`) });
      rowsBySuite.set(name, got);
      for (const r of got) {
        const spread = r.spread ? ` [${r.spread.low.toFixed(3)}–${r.spread.high.toFixed(3)} over ${r.spread.pairs} pairs]` : '';
        process.stdout.write(`  ${r.name}: ${r.ratio.toFixed(3)}${spread} (${r.candidateLabel} / ${r.baselineLabel}, ${r.metric})\n`);
      }
    } catch (err) {
      process.stdout.write(`  suite ${name} failed: ${(err as Error).stack ?? String(err)}\n`);
      process.exitCode = 1;
    }
    const seconds = (Date.now() - t0) / 1000;
    runs[name] = {
      date: new Date().toISOString(),
      load: `${loadBefore.toFixed(1)}–${(loadavg()[0] ?? 0).toFixed(1)} on ${availableParallelism()} cores`,
      seconds: Math.round(seconds),
      scale,
    };
    process.stdout.write(`  (${seconds.toFixed(1)} s)\n`);
  }
  // Rows in suite order: fresh ones for the suites run now, the file's for the others (read now,
  // not at the start, so that a suite another process finished meanwhile keeps its rows).
  const previous = only ? readPrevious(join(dir, 'latest.json')) : undefined;
  const rows: BenchRow[] = [];
  const suiteRuns: Record<string, SuiteRun> = {};
  for (const name of Object.keys(suites)) {
    const fresh = rowsBySuite.get(name);
    if (fresh) {
      rows.push(...fresh);
      suiteRuns[name] = runs[name]!;
    } else if (previous) {
      const kept = previous.rows.filter((r) => r.suite === name);
      rows.push(...kept);
      const run = previous.suites?.[name];
      if (run) suiteRuns[name] = run;
      else if (kept.length > 0 && previous.meta.date) suiteRuns[name] = { date: previous.meta.date, load: 'not recorded', seconds: 0, scale: Number(previous.meta.scale ?? 1) };
    }
  }
  const meta = {
    date: new Date().toISOString(),
    machine: `${platform()} ${release()}, ${cpus()[0]?.model ?? 'cpu'} × ${availableParallelism()}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`,
    node: process.versions.node,
    scale: String(scale),
    'total time': `${((Date.now() - started) / 1000).toFixed(0)} s${only ? ` (suites ${[...only].join(', ')}; the other rows are from earlier runs)` : ''}`,
    ...Object.fromEntries(Object.entries(suiteRuns).map(([name, r]) => [`suite ${name}`, `${r.date}, load average ${r.load}${r.seconds ? `, ${r.seconds} s` : ''}, scale ${r.scale}`])),
  };
  mkdirSync(dir, { recursive: true });
  const results: Results = { meta, suites: suiteRuns, rows };
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.md'), markdownTable(rows, meta));
  process.stdout.write(`wrote test/bench/results/latest.{json,md}\n`);
}

function readPrevious(file: string): Results | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Results;
    return Array.isArray(parsed.rows) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

await main();
