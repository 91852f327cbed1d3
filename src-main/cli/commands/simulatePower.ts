/**
 * `fairground simulate power SPEC --effect E[,E…] --reps R`: will this study detect the effect I
 * expect? Runs the spec R times on simulated readers with a planted effect (services/simulation/power.ts)
 * and prints the power of the spec's own significance test per effect × number of queries (× samples N
 * for Fair RAG), with 95% Wilson intervals; --csv writes the table, --json the whole report.
 */
import { resolve } from 'node:path';
import { OUTPUT_HELP, checkOutputs, outputOptionSpec, writeChecked } from '../writeOutput';
import { defaultExperimentRegistry } from '../../experiments/kinds';
import { readSpecFile, requireValidSpec } from '../../experiments/specFile';
import { DEMO_COLLECTION_NAME, loadDemoCollection } from '../../services/collectionsDemo';
import { gridPoint, powerCsv, simulatePower } from '../../services/simulation/power';
import { numberOption, parseCliArgs } from '../args';
import { CliError, type CliCommand } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { withExperimentServices } from './experimentServices';

const HELP = `Usage: fairground simulate power SPEC --effect E[,E…] --reps R [options]

Runs an experiment spec (Fair RAG, MoI or RichRAG) R times on simulated readers (planted truth, not a
language model) and reports the power of the spec's own significance test: the share of runs in which
it is significant. The planted effect E in [0, 1] is a difference between exactly the conditions the
test compares: Fair RAG, the planted utility of the deterministic top-1 document of the first
retriever (every other candidate 0), so the deterministic arm leads the sampled alpha arms by a gap
linear in E; MoI and RichRAG, the scale of every planted utility. E = 0 is the null: the power there
is the test's null rejection rate, printed as a calibration check (about alpha for a calibrated test). The reader's profile is the
spec's simulated reader's when the spec names one, else the default (U-shaped bias, closed-book 0.2).
Runs happen in a scratch in-memory workspace: this workspace is only read.

Options:
${OUTPUT_HELP}
${WORKSPACE_HELP}
      --effect LIST      planted effects, comma-separated (e.g. 0,0.5,1)
      --reps R           runs per cell (default 20)
      --queries LIST     numbers of queries to try (the first ones the spec selects; default all)
      --samples LIST     Fair RAG: samples N per arm to try (default the spec's)
      --noise X          reader noise in [0, 1] (default 1: answers are Bernoulli draws)
      --lapse L          reader lapse rate in [0, 1] (default the reader's, else 0): it loses that share of
                         the documents' help on every call, so no answer is certain (a non-degenerate null)
      --seed S           first reader seed (default 0)
      --csv FILE         also write the table as CSV
      --json             print the report as JSON

Example:
  fairground simulate power resources/demo/experiments/moi.json --effect 0,1 --reps 20 --queries 2,4
`;

function list(value: string | undefined, name: string, opts: { integer?: boolean; min?: number; max?: number }): number[] | undefined {
  if (value === undefined) return undefined;
  const parts = value.split(',').map((x) => x.trim());
  if (parts.some((p) => p === '')) throw new CliError(`--${name}: expected a comma-separated list of numbers, got '${value}'`);
  return parts.map((p) => numberOption(p, name, opts)!);
}

export const simulatePowerCommand: CliCommand = {
  path: ['simulate', 'power'],
  summary: 'Power of a spec’s significance test by simulation on planted truth',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(
      argv,
      {
        ...workspaceOptionSpec,
        ...outputOptionSpec,
        effect: { type: 'string' },
        reps: { type: 'string' },
        queries: { type: 'string' },
        samples: { type: 'string' },
        noise: { type: 'string' },
        lapse: { type: 'string' },
        seed: { type: 'string' },
        csv: { type: 'string' },
        json: { type: 'boolean' },
      },
      true,
    );
    if (positionals.length !== 1) throw new CliError('expected one spec file');
    const csvTargets = values.csv === undefined ? [] : checkOutputs(io, [values.csv], values['follow-symlinks']);
    const given = positionals[0]!;
    const raw = readSpecFile(resolve(io.cwd, given), given);
    const registry = defaultExperimentRegistry();
    const { spec } = requireValidSpec(registry, raw, given);
    const effects = list(values.effect, 'effect', { min: 0, max: 1 });
    if (!effects) throw new CliError('--effect is required (e.g. --effect 0,1; 0 = the null effect)');
    const reps = numberOption(values.reps, 'reps', { integer: true, min: 1, max: 100_000 }) ?? 20;
    const queries = list(values.queries, 'queries', { integer: true, min: 1 });
    const samples = list(values.samples, 'samples', { integer: true, min: 1, max: 10_000 });
    if (samples && !registry.get(String(spec.kind))?.power?.samples) {
      const withSamples = registry.list().filter((k) => registry.get(k.kind)?.power?.samples).map((k) => k.kind);
      throw new CliError(`--samples is for specs with samples N per arm (kinds: ${withSamples.join(', ')})`);
    }
    const noise = numberOption(values.noise, 'noise', { min: 0, max: 1 });
    const seed = numberOption(values.seed, 'seed', { integer: true, min: 0 });
    const lapse = numberOption(values.lapse, 'lapse', { min: 0, max: 1 });
    return withExperimentServices(io, values.workspace, async (s) => {
      if (spec.collection === DEMO_COLLECTION_NAME) await loadDemoCollection(s);
      let last = 0;
      const report = await simulatePower(s.workspace.db, { spec: raw as Record<string, unknown>, effects, reps, queries, samples, noise, lapse, seed }, (done, total, message) => {
        const now = Date.now();
        if (now - last < 1000 && done < total) return;
        last = now;
        io.stderr.write(`[${done} / ${total} runs] ${message}\n`);
      });
      if (csvTargets[0]) writeChecked(csvTargets[0], powerCsv(report));
      if (values.json) {
        io.stdout.write(`${JSON.stringify(report)}\n`);
        return 0;
      }
      io.stdout.write(`Power of '${report.specName}' (${report.kind}) on the simulated reader — ${report.test.description}; ${report.test.test}, ${report.test.correction}, alpha ${report.test.alpha}\n`);
      io.stdout.write('effect  queries  samples  reps  significant  power  95% CI          mean diff\n');
      for (const r of report.rows) {
        io.stdout.write(
          `${String(r.effect).padEnd(6)}  ${String(r.queries).padStart(7)}  ${String(r.samples ?? '-').padStart(7)}  ${String(r.reps).padStart(4)}  ${String(r.significant).padStart(11)}  ${r.power.toFixed(3)}  [${r.low.toFixed(3)}, ${r.high.toFixed(3)}]  ${r.meanDifference === null ? '-' : r.meanDifference.toFixed(4)}\n`,
        );
      }
      io.stdout.write(`effect: ${report.effect}\n`);
      for (const r of report.rows.filter((x) => x.effect === 0)) {
        const ok = r.low <= report.test.alpha && report.test.alpha <= r.high;
        io.stdout.write(`calibration check: null rejection rate ${r.power.toFixed(3)} [${r.low.toFixed(3)}, ${r.high.toFixed(3)}] over ${r.reps} runs at alpha ${report.test.alpha}: ${ok ? 'consistent with a calibrated test' : r.low > report.test.alpha ? 'the test rejects a true null MORE often than alpha' : 'conservative'}\n`);
      }
      for (const t of report.targets) {
        io.stdout.write(
          t.reached
            ? `power >= ${t.target} at effect ${t.effect}: first reached at ${gridPoint(t.reached)} (${t.reached.power.toFixed(3)} [${t.reached.low.toFixed(3)}, ${t.reached.high.toFixed(3)}])\n`
            : `power >= ${t.target} at effect ${t.effect}: not reached in this grid (${t.largest.power.toFixed(3)} at ${gridPoint(t.largest)}; add queries with --queries)\n`,
        );
      }
      if (report.measured) {
        for (const m of report.measured.points) io.stdout.write(`measured for the bundled ${report.measured.file}: power ${m.power.toFixed(2)} [${m.low.toFixed(2)}, ${m.high.toFixed(2)}] >= ${report.measured.target} at effect ${m.effect}, ${gridPoint(m)} (${m.criterion}; ${m.runs} runs, seeds ${m.seeds})\n`);
        io.stdout.write(`  below it: ${report.measured.below} (${report.measured.source})\n`);
      }
      io.stdout.write(`note: ${report.note}\n`);
      return 0;
    });
  },
};
