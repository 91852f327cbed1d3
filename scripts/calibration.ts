/**
 * Calibration and power of the demo specs' default tests on planted truth (issue 23 items 2 and 3):
 *
 *   npx tsx scripts/calibration.ts [--reps 400] [--curve-reps 100] [--specs fair-rag,richrag,moi] [--seed S] [--json FILE]
 *                                  [--lapse L] [--queries Q] [--chunk C]
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
 *
 * MoI and RichRAG: each null run is analysed under both paired tests their tables offer (the spec's, the
 * paired t-test, and the paired randomization (sign-flip) test), on the same simulated runs. `--lapse L` runs
 * the reader with lapse rate L (engine/sim/profile.ts: no answer is certain, so every query's answers are
 * random in both compared conditions, an exchangeable noise; without it the MoI null is degenerate, most
 * differences exact ties), `--queries Q` the first Q queries (replicates beyond the spec's own).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAppServices } from '../src-main/services/appServices';
import { ensureDemo } from '../src-main/services/demoSetup';
import { primaryTest, simulatePower, wilson } from '../src-main/services/simulation/power';
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
    lapse: { type: 'string' },
    queries: { type: 'string' },
    patch: { type: 'string' },
  },
});
const reps = Number(values.reps);
const curveReps = Number(values['curve-reps']);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Date.now() / 86_400_000) * 1000;
const effects = values.effects.split(',').map(Number);
const lapse = values.lapse !== undefined ? Number(values.lapse) : undefined;
const queryCount = values.queries !== undefined ? [Number(values.queries)] : undefined;

/** The other paired test of a MoI / RichRAG spec's tables (the spec's own is the first), as a spec patch. */
function otherTests(spec: Record<string, unknown>): { label: string; patch: Record<string, unknown> }[] {
  const block = spec.kind === 'moi' ? 'significance' : spec.kind === 'richrag' ? 'analysis' : null;
  if (!block) return [];
  const own = (spec[block] as Record<string, unknown> | undefined) ?? {};
  const other = (own.test ?? 't') === 't' ? 'randomization' : 't';
  return [{ label: other === 't' ? 'paired t' : 'paired randomization (sign-flip)', patch: { [block]: { ...own, test: other } } }];
}

interface Tally {
  runs: number;
  starred: number;
  raw: number;
  family: number;
}

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
      // --patch: a JSON object merged into the spec (e.g. '{"baselines":[]}': MoI's tested cell alone, cheaper runs; stated in the row).
      const extra = values.patch !== undefined ? (JSON.parse(values.patch) as Record<string, unknown>) : {};
      const spec: Record<string, unknown> = { ...raw, ...(raw.kind === 'fair-rag' ? { attribution: { judge: 'none' } } : {}), ...v.patch, ...extra };
      const t0 = Date.now();
      // In chunks of `--chunk` runs (seeds seed + i, as one call would use), with the running counts on stderr after each, so
      // a long calibration on a loaded machine can be stopped and its runs so far still read.
      const chunk = values.chunk !== undefined ? Number(values.chunk) : reps;
      let nullReport: Awaited<ReturnType<typeof simulatePower>> | null = null;
      const others = otherTests(spec);
      const tallies: Tally[] = others.map(() => ({ runs: 0, starred: 0, raw: 0, family: 0 }));
      const inspect = (_m: Record<string, unknown>, _cell: unknown, reanalyse: (patch: Record<string, unknown>) => Record<string, unknown>) => {
        others.forEach((o, i) => {
          const t = primaryTest(String(spec.kind), reanalyse(o.patch));
          const y = tallies[i]!;
          y.runs++;
          if (t.significant) y.starred++;
          if (t.pValue !== null && t.pValue <= t.alpha) y.raw++;
          if (t.familySignificant) y.family++;
        });
      };
      for (let first = 0; first < reps; first += chunk) {
        const part = await simulatePower(ws.workspace.db, { spec, effects: [0], reps: Math.min(chunk, reps - first), seed: seed + first, lapse, queries: queryCount, inspect });
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
        process.stderr.write(`  ${v.spec} / ${v.label}: after ${r.reps} null runs (seeds ${seed}…${seed + r.reps - 1}): starred ${r.significant}, raw p ≤ α ${r.rawSignificant}, family ${r.familySignificant}, mean difference ${r.meanDifference}${others.map((o, i) => `; ${o.label}: starred ${tallies[i]!.starred}, raw ${tallies[i]!.raw}, family ${tallies[i]!.family}`).join('')}\n`);
      }
      const row = nullReport!.rows[0]!;
      const alpha = nullReport!.test.alpha;
      const ci = wilson(row.significant, row.reps);
      const curve = curveReps > 0 ? await simulatePower(ws.workspace.db, { spec, effects, reps: curveReps, seed: seed + reps, lapse, queries: queryCount }) : null;
      // Calibrated: the test's own level (raw p ≤ α of the tested cell) holds α within its interval (the level of the
      // starred cell is what Fair RAG's README row reports), and the family-wise rate after the correction is not above α.
      const rawHits = row.rawSignificant ?? row.significant;
      const fam = row.familySignificant ?? row.significant;
      const rawCi = wilson(rawHits, row.reps);
      const famCi = wilson(fam, row.reps);
      const rate = (k: number, c: { low: number; high: number }) => `${k} = ${(k / row.reps).toFixed(3)} [${c.low.toFixed(3)}, ${c.high.toFixed(3)}]`;
      const calibrated = rawCi.low <= alpha && alpha <= rawCi.high && famCi.low <= alpha ? 'yes' : rawCi.low > alpha || famCi.low > alpha ? 'NO (liberal)' : 'conservative';
      const powers = curve ? curve.rows.map((r) => `${r.power.toFixed(2)} [${r.low.toFixed(2)}, ${r.high.toFixed(2)}]`).join(' / ') : '–';
      const design = `${row.queries} queries${row.replicated ? ` (${row.replicated} replicated)` : ''}${lapse !== undefined ? `, reader lapse ${lapse}` : ''}${values.patch !== undefined ? `, spec patched with ${values.patch}` : ''}`;
      lines.push(`| ${v.spec} (${design}) | ${v.label}: ${nullReport!.test.test}, ${nullReport!.test.correction} | ${alpha} | ${row.reps} | ${rate(row.significant, ci)} | ${rate(rawHits, rawCi)} | ${rate(fam, famCi)} | ${calibrated} | ${powers} |`);
      process.stdout.write(`${lines.at(-1)!}\n`);
      others.forEach((o, i) => {
        const y = tallies[i]!;
        const oRaw = wilson(y.raw, y.runs);
        const oFam = wilson(y.family, y.runs);
        const oCal = oRaw.low <= alpha && alpha <= oRaw.high && oFam.low <= alpha ? 'yes' : oRaw.low > alpha || oFam.low > alpha ? 'NO (liberal)' : 'conservative';
        lines.push(`| ${v.spec} (${design}) | ${o.label}, ${nullReport!.test.correction} (same runs) | ${alpha} | ${y.runs} | ${rate(y.starred, wilson(y.starred, y.runs))} | ${rate(y.raw, oRaw)} | ${rate(y.family, oFam)} | ${oCal} | – |`);
        process.stdout.write(`${lines.at(-1)!}\n`);
        out.push({ spec: v.spec, variant: `${o.label} (same runs)`, runs: y.runs, starred: y.starred, raw: y.raw, family: y.family, rawRejectionRate: { rate: y.raw / y.runs, lo: oRaw.low, hi: oRaw.high }, familyRejectionRate: { rate: y.family / y.runs, lo: oFam.low, hi: oFam.high } });
      });
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
