/**
 * Calibration and power of the demo specs' default tests on planted truth (issue 23 items 2 and 3):
 *
 *   npx tsx scripts/calibration.ts [--reps 400] [--curve-reps 100] [--specs fair-rag,richrag,moi] [--seed S] [--json FILE]
 *
 * For each bundled demo spec (resources/demo/experiments/<name>.json, on the simulated reader) and each test
 * it is run with (Fair RAG: the default within-query exchange test, the paired sign-flip test and the paper's unpaired
 * t-test), it prints
 * the null rejection rate at effect 0 over `--reps` simulated runs (≥ 400 for the README's table) with its 95%
 * Wilson interval and whether the interval holds the test's α (a calibrated test), then the power curve over
 * the planted effects 0.25, 0.5, 1 (`--curve-reps` runs each). Everything runs in scratch in-memory workspaces
 * (services/simulation/power.ts); the seed is printed. Not a timed test: ≈ 1 s of CPU per simulated run.
 * `--json` also writes the rates in the TestCalibration shape (api/contract/kindParts.ts) that Table 2's
 * `calibration` field shows beside the table.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAppServices } from '../src-main/services/appServices';
import { ensureDemo } from '../src-main/services/demoSetup';
import { simulatePower, wilson } from '../src-main/services/simulation/power';
import { evalCompareNull, type Qrel } from './evalCompareNull';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '400' },
    'curve-reps': { type: 'string', default: '100' },
    specs: { type: 'string', default: 'fair-rag,richrag,moi' },
    variants: { type: 'string' },
    effects: { type: 'string', default: '0.25,0.5,1' },
    seed: { type: 'string' },
    json: { type: 'string' },
    chunk: { type: 'string' },
  },
});
const reps = Number(values.reps);
const curveReps = Number(values['curve-reps']);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Date.now() / 86_400_000) * 1000;
const effects = values.effects.split(',').map(Number);

interface Variant {
  spec: string;
  label: string;
  patch: Record<string, unknown>;
}
const variants: Variant[] = values.specs.split(',').flatMap((name): Variant[] =>
  name === 'fair-rag'
    ? [
        { spec: name, label: 'default (within-query exchange, Holm)', patch: {} },
        { spec: name, label: 'paired sign-flip (paired-randomization, Holm)', patch: { significance: { test: 'paired-randomization', correction: 'holm' } } },
        { spec: name, label: "paper's unpaired t (kim-diaz-unpaired-t, no correction)", patch: { significance: { test: 'kim-diaz-unpaired-t', correction: 'none' } } },
      ]
    : name === 'eval-compare'
      ? [
          { spec: name, label: 'default (paired t, Holm), demo qrels', patch: { design: 'demo' } },
          { spec: name, label: 'default (paired t, Holm), 50 planted queries', patch: { design: 'planted' } },
        ]
      : [{ spec: name, label: 'default', patch: {} }],
).filter((_v, i) => values.variants === undefined || values.variants.split(',').map(Number).includes(i));

async function main(): Promise<void> {
  process.stdout.write(`calibration of the demo specs' tests on the simulated reader: ${reps} null runs per test, ${curveReps} runs per effect, seed ${seed}\n\n`);
  const dir = mkdtempSync(join(tmpdir(), 'fg-calibration-'));
  const ws = createAppServices(join(dir, 'calibration.fairground'), { transport: 'http', markInterrupted: false });
  const out: Record<string, unknown>[] = [];
  try {
    await ensureDemo(ws);
    const lines: string[] = [
      '| spec | test | α | null runs | starred (tested cell, corrected) [95% CI] | raw p ≤ α (the test\'s level) [95% CI] | any star in the family [95% CI] | calibrated | power at effect ' + effects.join(' / ') + ' |',
      '|---|---|---|---|---|---|---|---|---|',
    ];
    for (const v of variants) {
      if (v.spec === 'eval-compare') {
        // Not a spec: `eval compare` on random rankings of the qrels' documents (scripts/evalCompareNull.ts).
        const demoQrels = (ws.workspace.db.prepare(`SELECT query_id AS q, doc_id AS d, label AS rel FROM judgments WHERE kind = 'relevance'`).all() as Qrel[]);
        const r = evalCompareNull({ qrels: v.patch.design === 'demo' ? demoQrels : 'planted', queries: 50, runs: reps, seed });
        const rawCi = wilson(r.rawRejected, r.runs);
        const famCi = wilson(r.familyRejected, r.runs);
        const rate = (k: number, c: { low: number; high: number }) => `${k} = ${(k / r.runs).toFixed(3)} [${c.low.toFixed(3)}, ${c.high.toFixed(3)}]`;
        const calibrated = rawCi.low <= r.alpha && r.alpha <= rawCi.high && famCi.low <= r.alpha ? 'yes' : rawCi.low > r.alpha || famCi.low > r.alpha ? 'NO (liberal)' : 'conservative';
        lines.push(`| eval compare (${r.design}, 3 runs × AP, nDCG@10) | ${r.test}, ${r.correction} over ${r.comparisons} | ${r.alpha} | ${r.runs} | – | ${rate(r.rawRejected, rawCi)} | ${rate(r.familyRejected, famCi)} | ${calibrated} | – |`);
        process.stdout.write(`${lines.at(-1)!}\n`);
        out.push({ spec: v.spec, variant: v.label, ...r });
        continue;
      }
      const raw = JSON.parse(readFileSync(join(process.cwd(), 'resources', 'demo', 'experiments', `${v.spec}.json`), 'utf8')) as Record<string, unknown>;
      // Attribution judgments do not enter the tested tables (Table 2 compares EU): leave them out to save time.
      const spec = { ...raw, ...(raw.kind === 'fair-rag' ? { attribution: { judge: 'none' } } : {}), ...v.patch };
      const t0 = Date.now();
      // In chunks of `--chunk` runs (seeds seed + i, as one call would use), with the running counts on stderr after each, so
      // a long calibration on a loaded machine can be stopped and its runs so far still read.
      const chunk = values.chunk !== undefined ? Number(values.chunk) : reps;
      let nullReport: Awaited<ReturnType<typeof simulatePower>> | null = null;
      for (let first = 0; first < reps; first += chunk) {
        const part = await simulatePower(ws.workspace.db, { spec, effects: [0], reps: Math.min(chunk, reps - first), seed: seed + first });
        const p = part.rows[0]!;
        if (!nullReport) nullReport = part;
        else {
          const r = nullReport.rows[0]!;
          const n = r.reps + p.reps;
          const sig = r.significant + p.significant;
          const md = r.meanDifference !== null && p.meanDifference !== null ? (r.meanDifference * r.reps + p.meanDifference * p.reps) / n : (r.meanDifference ?? p.meanDifference);
          nullReport.rows[0] = { ...r, reps: n, significant: sig, power: sig / n, ...wilson(sig, n), rawSignificant: (r.rawSignificant ?? 0) + (p.rawSignificant ?? 0), familySignificant: (r.familySignificant ?? 0) + (p.familySignificant ?? 0), meanDifference: md };
        }
        const r = nullReport.rows[0]!;
        process.stderr.write(`  ${v.spec} / ${v.label}: after ${r.reps} null runs (seeds ${seed}…${seed + r.reps - 1}): starred ${r.significant}, raw p ≤ α ${r.rawSignificant}, family ${r.familySignificant}, mean difference ${r.meanDifference}\n`);
      }
      const row = nullReport!.rows[0]!;
      const alpha = nullReport!.test.alpha;
      const ci = wilson(row.significant, row.reps);
      const curve = curveReps > 0 ? await simulatePower(ws.workspace.db, { spec, effects, reps: curveReps, seed: seed + reps }) : null;
      // Calibrated: the test's own level (raw p ≤ α of the tested cell) holds α within its interval (the level of the
      // starred cell is what Fair RAG's README row reports), and the family-wise rate after the correction is not above α.
      const rawHits = row.rawSignificant ?? row.significant;
      const fam = row.familySignificant ?? row.significant;
      const rawCi = wilson(rawHits, row.reps);
      const famCi = wilson(fam, row.reps);
      const rate = (k: number, c: { low: number; high: number }) => `${k} = ${(k / row.reps).toFixed(3)} [${c.low.toFixed(3)}, ${c.high.toFixed(3)}]`;
      const calibrated = rawCi.low <= alpha && alpha <= rawCi.high && famCi.low <= alpha ? 'yes' : rawCi.low > alpha || famCi.low > alpha ? 'NO (liberal)' : 'conservative';
      const powers = curve ? curve.rows.map((r) => `${r.power.toFixed(2)} [${r.low.toFixed(2)}, ${r.high.toFixed(2)}]`).join(' / ') : '–';
      lines.push(`| ${v.spec} | ${v.label} | ${alpha} | ${row.reps} | ${rate(row.significant, ci)} | ${rate(rawHits, rawCi)} | ${rate(fam, famCi)} | ${calibrated} | ${powers} |`);
      process.stdout.write(`${lines.at(-1)!}\n`);
      process.stderr.write(`  (${((Date.now() - t0) / 1000).toFixed(0)} s; test: ${nullReport!.test.description}; ${nullReport!.test.test}, ${nullReport!.test.correction})\n`);
      out.push({
        spec: v.spec,
        variant: v.label,
        effect: nullReport!.effect,
        rawRejectionRate: { rate: rawHits / row.reps, lo: rawCi.low, hi: rawCi.high },
        familyRejectionRate: { rate: fam / row.reps, lo: famCi.low, hi: famCi.high },
        calibration: { nullRejectionRate: row.power, lo: ci.low, hi: ci.high, runs: row.reps, alpha, test: `${nullReport!.test.test}, ${nullReport!.test.correction}`, seed, source: `scripts/calibration.ts (simulate power, effect 0), ${new Date().toISOString().slice(0, 10)}` },
        curve: curve?.rows ?? [],
      });
    }
    process.stdout.write(`\n${lines.join('\n')}\n`);
    if (values.json) writeFileSync(values.json, `${JSON.stringify({ seed, reps, curveReps, results: out }, null, 2)}\n`);
  } finally {
    await ws.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
