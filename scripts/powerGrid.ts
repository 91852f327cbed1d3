/**
 * Power grids of the bundled demo specs (issue 23 item 3): for each spec, `simulate power` at effect 0 (the
 * null rejection rate, the calibration check) and at a stated effect E over a grid of queries × samples
 * (samples: Fair RAG's N per arm only), then the smallest grid point whose power reaches the target:
 *
 *   npx tsx scripts/powerGrid.ts [--specs fair-rag,moi,richrag] [--effect 1] [--queries 12,24,48]
 *                                [--samples 20,50,200] [--reps 40] [--target 0.8] [--seed S] [--json FILE]
 *                                [--lapse L] [--no-null]
 *
 * "Smallest" is the fewest queries, then the fewest samples, whose power estimate is ≥ the target (its 95%
 * Wilson interval is printed beside it). Grid points beyond a spec's own queries use replicated queries
 * (services/simulation/power.ts). Runs in scratch in-memory workspaces; the seed is printed. Not a timed test:
 * a MoI run of 12 queries costs ≈ 2 s of CPU, and a grid point's cost grows with its queries (× samples).
 *
 * Beside each cell's measured power it prints the normal-approximation projection of the queries needed for
 * the target power, from that cell's own runs: the tested difference's mean m over the runs and its spread
 * s between runs (so s·√q is the per-query spread), q' = q·((z + z_target)·s/m)², with z the two-sided
 * critical value at α (raw) and at α/m_family (the Bonferroni bound of Holm's first step, the strictest star).
 * A projection, labelled as such: only a measured grid point says the power is reached.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAppServices } from '../src-main/services/appServices';
import { ensureDemo } from '../src-main/services/demoSetup';
import { powerTargets, primaryTest, simulatePower } from '../src-main/services/simulation/power';
import { projectQueries } from '../src-main/services/simulation/powerProjection';

const { values } = parseArgs({
  options: {
    specs: { type: 'string', default: 'fair-rag,moi,richrag' },
    effect: { type: 'string', default: '1' },
    queries: { type: 'string', default: '12,24,48' },
    samples: { type: 'string', default: '20,50,200' },
    reps: { type: 'string', default: '40' },
    target: { type: 'string', default: '0.8' },
    seed: { type: 'string' },
    json: { type: 'string' },
    lapse: { type: 'string' },
    family: { type: 'string' },
    'no-null': { type: 'boolean' },
    patch: { type: 'string' },
  },
});
const nums = (s: string) => s.split(',').map(Number);
const effect = Number(values.effect);
const reps = Number(values.reps);
const target = Number(values.target);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Date.now() / 86_400_000) * 1000;
const lapse = values.lapse !== undefined ? Number(values.lapse) : undefined;


async function main(): Promise<void> {
  process.stdout.write(`power grids of the demo specs on the simulated reader: effect ${effect}, ${reps} runs per cell, target power ${target}, seed ${seed}\n\n`);
  const dir = mkdtempSync(join(tmpdir(), 'fg-power-grid-'));
  const ws = createAppServices(join(dir, 'grid.fairground'), { transport: 'http', markInterrupted: false });
  const out: Record<string, unknown>[] = [];
  const lines = ['| spec | test | effect E | null rejection rate (queries, N) [95% CI] | smallest grid point with power ≥ ' + target + ' | its power [95% CI] |', '|---|---|---|---|---|---|'];
  try {
    await ensureDemo(ws);
    for (const name of values.specs.split(',')) {
      const raw = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', `${name}.json`), 'utf8')) as Record<string, unknown>;
      // --patch: a JSON object merged into the spec (e.g. '{"baselines":[]}' for MoI: the tested cell alone, cheaper runs).
      const spec = { ...raw, ...(raw.kind === 'fair-rag' ? { attribution: { judge: 'none' } } : {}), ...(values.patch !== undefined ? (JSON.parse(values.patch) as Record<string, unknown>) : {}) };
      const samples = raw.kind === 'fair-rag' ? nums(values.samples) : undefined;
      const t0 = Date.now();
      const c0 = process.cpuUsage();
      const diffs = new Map<string, number[]>();
      const keyOf = (e: number, q: number, n: number | null) => `${e}|${q}|${n ?? ''}`;
      const inspect = (m: Record<string, unknown>, cell: { effect: number; queries: number; samples: number | null }) => {
        const d = primaryTest(String(raw.kind), m).difference;
        if (d !== null && Number.isFinite(d)) diffs.set(keyOf(cell.effect, cell.queries, cell.samples), [...(diffs.get(keyOf(cell.effect, cell.queries, cell.samples)) ?? []), d]);
      };
      const report = await simulatePower(ws.workspace.db, { spec, effects: values['no-null'] ? [effect] : [0, effect], reps, queries: nums(values.queries), samples, seed, lapse, inspect }, (done, total, message) => {
        if (done % 10 === 0 || done === total) process.stderr.write(`  ${name}: ${done} / ${total} runs (${message})\n`);
      });
      const hit = powerTargets(report.rows, target).find((t) => t.effect === effect)?.reached ?? undefined;
      const nulls = report.rows.filter((r) => r.effect === 0).map((r) => `${r.power.toFixed(3)} (${r.queries}${r.samples !== null ? `, ${r.samples}` : ''}) [${r.low.toFixed(3)}, ${r.high.toFixed(3)}]`);
      const cu = process.cpuUsage(c0);
      const cpu = (cu.user + cu.system) / 1e6;
      process.stdout.write(`${name}: ${report.test.description}; ${report.test.test}, ${report.test.correction} (${((Date.now() - t0) / 1000).toFixed(0)} s wall, ${cpu.toFixed(0)} s CPU, load ${loadavg()[0]!.toFixed(1)})\n`);
      // Holm's strictest step: α over the family (MoI: the methods tested against the baseline; RichRAG: the conditions; Fair RAG: the row's intervals).
      const familySize = Number(values.family ?? (raw.kind === 'moi' ? 5 : raw.kind === 'richrag' ? 9 : 1));
      const projections: Record<string, unknown>[] = [];
      for (const r of report.rows) {
        const d = diffs.get(keyOf(r.effect, r.queries, r.samples)) ?? [];
        const sd = d.length > 1 ? Math.sqrt(d.reduce((x, y) => x + (y - (r.meanDifference ?? 0)) ** 2, 0) / (d.length - 1)) : null;
        const rawQ = r.effect > 0 ? projectQueries(r.queries, d, report.test.alpha, target) : null;
        const holmQ = r.effect > 0 ? projectQueries(r.queries, d, report.test.alpha / familySize, target) : null;
        if (r.effect > 0) projections.push({ queries: r.queries, samples: r.samples, sdBetweenRuns: sd, projectedQueriesRaw: rawQ, projectedQueriesBonferroni: holmQ });
        process.stdout.write(`  effect ${r.effect}, ${r.queries} queries${r.replicated ? ` (${r.replicated} replicated)` : ''}${r.samples !== null ? `, N = ${r.samples}` : ''}: power ${r.power.toFixed(3)} [${r.low.toFixed(3)}, ${r.high.toFixed(3)}] (raw p ≤ α ${r.rawSignificant ?? '–'}), mean difference ${r.meanDifference?.toFixed(4) ?? '–'} (sd between runs ${sd?.toFixed(4) ?? '–'})${rawQ !== null ? `; projected queries for power ${target}: ${rawQ} at α, ${holmQ} at α/${familySize}` : ''}\n`);
      }
      lines.push(`| ${name} | ${report.test.test}, ${report.test.correction} | ${effect} | ${nulls.join('; ')} | ${hit ? `${hit.queries} queries${hit.samples !== null ? ` × N = ${hit.samples}` : ''}` : `none up to ${Math.max(...nums(values.queries))} queries`} | ${hit ? `${hit.power.toFixed(2)} [${hit.low.toFixed(2)}, ${hit.high.toFixed(2)}]` : '–'} |`);
      out.push({ spec: name, effect: report.effect, test: report.test, rows: report.rows, smallest: hit ?? null, projections, wallSeconds: (Date.now() - t0) / 1000, cpuSeconds: cpu, load: loadavg()[0], lapse: lapse ?? null, note: report.note });
    }
    process.stdout.write(`\n${lines.join('\n')}\n`);
    if (values.json) writeFileSync(values.json, `${JSON.stringify({ seed, reps, effect, target, results: out }, null, 2)}\n`);
  } finally {
    await ws.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
