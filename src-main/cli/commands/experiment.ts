/** `fairground experiment list|show|export`: experiments and their runs from the command line. */
import { resolve } from 'node:path';
import { OUTPUT_HELP, checkOutputs, outputOptionSpec, writeChecked } from '../writeOutput';
import { ExportFormat } from '../../api/contract/fairRag';
import { manifestPathFor, writeManifestBeside } from '../../io/manifest/writeManifest';
import type { ReproducibilityManifest } from '../../io/manifest/manifest';
import { parseCliArgs } from '../args';
import { CliError, type CliCommand } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { describeStats, runIdArg, summaryTable, withExperimentServices } from './experimentServices';

export const experimentList: CliCommand = {
  path: ['experiment', 'list'],
  summary: 'List experiments and their runs',
  help: `Usage: fairground experiment list [--workspace PATH] [--json]

${WORKSPACE_HELP}
      --json             print JSON`,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, { ...workspaceOptionSpec, json: { type: 'boolean' } });
    return withExperimentServices(io, values.workspace, async (s) => {
      const experiments = s.experiments.list();
      const runs = s.experiments.listRuns();
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ experiments: experiments.map(({ spec: _spec, ...e }) => e), runs })}\n`);
        return 0;
      }
      if (experiments.length === 0) io.stdout.write('no experiments (run one with `fairground run SPEC`)\n');
      for (const e of experiments) {
        io.stdout.write(`${e.id}\t${e.name}\t${e.kind}\tspec v${e.version}\t${e.runs} run(s)\n`);
        for (const r of runs.filter((x) => x.experimentId === e.id)) {
          io.stdout.write(`  run ${r.id}\tv${r.specVersion}\t${r.status}\t${r.createdAt}${r.error ? `\t${r.error}` : ''}\n`);
        }
      }
      return 0;
    });
  },
};

export const experimentShow: CliCommand = {
  path: ['experiment', 'show'],
  summary: 'Show a run: its status, call counters and a summary of its metrics',
  help: `Usage: fairground experiment show RUN [--workspace PATH] [--json]

RUN is a run id (see 'fairground experiment list').
${WORKSPACE_HELP}
      --json             print everything runs.metrics returns, as JSON`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, json: { type: 'boolean' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one run id');
    const runId = runIdArg(positionals[0]);
    return withExperimentServices(io, values.workspace, async (s) => {
      const run = s.experiments.getRun(runId);
      if (values.json) {
        io.stdout.write(`${JSON.stringify({ run: { ...run, manifest: undefined }, metrics: s.experiments.metrics(runId) })}\n`);
        return 0;
      }
      // The table's values (aggregates, warnings, incomplete) as the metrics have them, without the tables it does not print.
      const metrics = s.experiments.summary(runId);
      const incomplete = metrics.incomplete === true;
      io.stdout.write(`run ${run.id} of experiment '${run.experimentName}' (${run.kind}, spec version ${run.specVersion}): ${run.status}${incomplete ? ' (metrics incomplete)' : ''}\n`);
      if (run.error) io.stdout.write(`error: ${run.error}\n`);
      io.stdout.write(describeStats(run.stats, run.kind, s.experiments.registry));
      io.stdout.write(summaryTable(metrics, s.experiments.registry));
      for (const w of metrics.warnings ?? []) io.stdout.write(`note: ${w}\n`);
      return 0;
    });
  },
};

export const experimentExport: CliCommand = {
  path: ['experiment', 'export'],
  summary: 'Export a run: CSV, stochastic TREC run, qrels, attribution labels, LaTeX Table 2, manifest',
  help: `Usage: fairground experiment export RUN --format FORMAT [--condition C] [--output FILE] [--workspace PATH]

Formats:
  per-query-csv    one row per query x arm with every metric
  per-sample-csv   one row per sampled ranking (ranking, output, utility, attribution)
  trec-run         one arm as a stochastic TREC run (sample id in column 2); needs --condition
  qrels            the run's utility labels as TREC qrels (every candidate, rel 1/0)
  attribution      one arm's judgments 'qid sample docno 0|1'; needs --condition
  latex-table2     Table 2 (utility vs the deterministic baseline per disparity interval) on the
                   metric's own scale (LaMP-3: 4 - MAE), one column wide, notes below the table;
                   cells: what the table's test tests (paired per-query differences; the paper's
                   unpaired difference of means with significance.test = kim-diaz-unpaired-t)
  latex-table2-normalized  the same on EU/u_max (Eq. 30); each caption names its scale
  latex-table2-paper, latex-table2-normalized-paper  the same with the paper's cells (mean of the
                   interval's runs - mean baseline, unpaired), as the published Table 2
  metrics-json     all metrics as JSON
  manifest         the reproducibility manifest
MoI runs: table1-csv, table1-latex, table7-csv, table7-latex, table8-csv, table8-latex, fig6-csv, costs-csv,
  per-query-csv, permutations-csv, fits-csv / fits-json (per query: fitted a and u, certificate, orientation),
  metrics-json, manifest
RichRAG runs: tables-csv, per-query-csv, latex-table1, latex-table3, preferences-jsonl, sft-jsonl, metrics-json, manifest

  --condition C    the arm, e.g. bm25/alpha=2, bm25/deterministic, oracle
  --output FILE    write the file there and its manifest beside it (FILE.manifest.json);
                   default: the file to stdout
${OUTPUT_HELP}
${WORKSPACE_HELP}

Example (check the exposure numbers independently):
  fairground experiment export 3 --format trec-run --condition bm25/alpha=2 -o a2.trec
  fairground experiment export 3 --format qrels -o utility.qrels
  fairground eval exposure --run a2.trec --qrels utility.qrels -k 5`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(
      argv,
      { ...workspaceOptionSpec, ...outputOptionSpec, format: { type: 'string' }, condition: { type: 'string' }, output: { type: 'string', short: 'o' } },
      true,
    );
    if (positionals.length !== 1) throw new CliError('expected one run id');
    const runId = runIdArg(positionals[0]);
    const format = values.format;
    if (format === undefined || format === '') throw new CliError(`missing required option --format (fair-rag: ${ExportFormat.options.join(', ')})`);
    // The file and its manifest are both checked before anything is exported or written.
    const targets =
      values.output === undefined ? [] : checkOutputs(io, format === 'manifest' ? [values.output] : [values.output, manifestPathFor(values.output)], values['follow-symlinks']);
    return withExperimentServices(io, values.workspace, async (s) => {
      const { file, manifest } = await s.experiments.export(runId, format, values.condition);
      // What the file's own budget did (RichRAG training records): said here too, as stdout gets no manifest.
      const budget = (manifest.export as { promptBudget?: { unit?: string; total?: number | null; origin?: string; promptsCut?: number; prompts?: number; estimate?: { reason?: string } } } | undefined)?.promptBudget;
      if (budget?.unit === 'estimated tokens') io.stderr.write(`note: the prompts were budgeted by an estimate of the model's tokens (${budget.estimate?.reason ?? 'no tokenizer answered'}); budget ${budget.total} (${budget.origin})\n`);
      if (budget?.promptsCut) io.stderr.write(`note: ${budget.promptsCut} of ${budget.prompts} prompts had their candidates' texts cut to fit the budget of ${budget.total} tokens (${budget.origin})\n`);
      if (values.output === undefined) {
        io.stdout.write(file.text);
        return 0;
      }
      const path = resolve(io.cwd, values.output);
      writeChecked(targets[0]!, file.text);
      let manifestPath: string | null = null;
      if (format !== 'manifest') {
        try {
          manifestPath = await writeManifestBeside(path, manifest as unknown as ReproducibilityManifest, targets[1]);
        } catch (err) {
          throw new CliError(`cannot write ${manifestPathFor(values.output)} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
        }
      }
      io.stderr.write(`wrote ${values.output}${manifestPath ? ` and ${manifestPath}` : ''}\n`);
      return 0;
    });
  },
};
