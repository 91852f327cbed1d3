/**
 * `fairground plan export`, `fairground cache import`, `fairground cache merge`: the loop that runs a
 * study's calls on a distributed engine (vLLM `run-batch` on one GPU or a Ray cluster, or any
 * OpenAI-Batch compatible service) and brings the answers back into the workspace's call cache
 * (services/batchPlans.ts).
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { defaultExperimentRegistry } from '../../experiments/kinds';
import { readSpecFile, requireValidSpec } from '../../experiments/specFile';
import { readText } from '../../io/lines';
import { BatchPlanService } from '../../services/batchPlans';
import { parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { withExperimentServices, type ExperimentCliServices } from './experimentServices';

const PLAN_HELP = `Usage: fairground plan export SPEC --format openai-batch -o REQUESTS.jsonl [--workspace PATH]

Writes every call of the spec's next runnable stage that the workspace's call cache cannot answer
as OpenAI-Batch JSONL: one request line per call (custom_id = the call's cache key; a scoring call
becomes one /v1/completions line per continuation with echo/logprobs, custom_id = KEY#i). The file
runs unchanged with vLLM's run-batch entry point:

  python -m vllm.entrypoints.openai.run_batch -i requests.jsonl -o results.jsonl --model MODEL

Then \`fairground cache import results.jsonl\` fills the cache and \`fairground run SPEC\` finishes
from it, or this command exports the next stage (e.g. attribution judgments of the generations).
The spec's models must be OpenAI-compatible servers (fairground remote add) serving the same model.
Nothing is computed here. -o - writes to standard output.

Options:
${WORKSPACE_HELP}
      --format F   openai-batch (the only format)
  -o, --output F   the request file (written whole or not at all)
`;

export const planExportCommand: CliCommand = {
  path: ['plan', 'export'],
  summary: "Write the spec's uncached calls as an OpenAI-Batch JSONL file (vLLM run-batch, Ray)",
  help: PLAN_HELP,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, format: { type: 'string' }, output: { type: 'string', short: 'o' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one spec file');
    const format = values.format ?? 'openai-batch';
    if (format !== 'openai-batch') throw new CliError(`--format: only openai-batch is supported, got '${format}'`);
    const output = requireOption(values.output, 'output');
    const given = positionals[0]!;
    const raw = readSpecFile(resolve(io.cwd, given), given);
    requireValidSpec(defaultExperimentRegistry(), raw, given);
    return withExperimentServices(io, values.workspace, async (s) => {
      const run = continuingRun(s, raw);
      const plans = new BatchPlanService(s.workspace.db, s.experiments, s.models.cache);
      const { outcome, lines, calls } = await plans.exportPlan(run, { signal: new AbortController().signal, progress: () => {} });
      const text = lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length ? '\n' : '');
      writeWhole(io, output, text);
      if (outcome.finished) io.stderr.write(`run ${run} finished from the cache: nothing to export\n`);
      else io.stderr.write(`${calls} call(s) as ${lines.length} request line(s) → ${output === '-' ? 'stdout' : output} (run ${run}; fairground cache import RESULTS.jsonl next)\n`);
      return 0;
    });
  },
};

export const cacheImportCommand: CliCommand = {
  path: ['cache', 'import'],
  summary: 'Fill the call cache from an OpenAI-Batch output file (checked against the exported requests)',
  help: `Usage: fairground cache import RESULTS.jsonl [--workspace PATH]

Reads an OpenAI-Batch output file (one {custom_id, response: {status_code, body}, error} per line)
for requests written by fairground plan export in this workspace. Every line is checked against its
request — custom_id, model, status, a body that answers it — and a bad line refuses the whole file,
naming the line; otherwise every complete call enters the cache in one transaction. \`-\` reads
standard input; a .gz file is decompressed.

Options:
${WORKSPACE_HELP}
`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec }, true);
    if (positionals.length !== 1) throw new CliError('expected one results file');
    const file = positionals[0]!;
    const text = await readText(file === '-' ? '-' : resolve(io.cwd, file), { stdin: io.stdin });
    return withExperimentServices(io, values.workspace, async (s) => {
      const plans = new BatchPlanService(s.workspace.db, s.experiments, s.models.cache);
      const r = plans.importResults(text, file);
      io.stdout.write(`imported ${r.calls} call(s) from ${r.lines} line(s)${r.incomplete ? `; ${r.incomplete} call(s) still miss some of their lines` : ''}\n`);
      return 0;
    });
  },
};

export const cacheMergeCommand: CliCommand = {
  path: ['cache', 'merge'],
  summary: "Merge other workspaces' call caches (shards) into this one",
  help: `Usage: fairground cache merge OTHER.fairground... [--workspace PATH]

Copies every call of the other workspaces' caches that this one lacks (e.g. the shards of
\`fairground run SPEC --shard k/N\`). The same call with a different response is an error naming the
call's key, and nothing of that file is merged. Then \`fairground run SPEC\` completes from the cache.

Options:
${WORKSPACE_HELP}
`,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec }, true);
    if (positionals.length === 0) throw new CliError('expected one or more workspace files to merge');
    const files = positionals.map((p) => resolve(io.cwd, p));
    return withExperimentServices(io, values.workspace, async (s) => {
      if (files.includes(resolve(s.workspace.path))) throw new CliError('cannot merge a workspace into itself');
      const plans = new BatchPlanService(s.workspace.db, s.experiments, s.models.cache);
      const r = plans.merge(files);
      io.stdout.write(`merged ${r.added} call(s); ${r.alreadyHere} were here already\n`);
      return 0;
    });
  },
};

/** The run `fairground run SPEC` would continue (the experiment created or updated from the spec). */
export function continuingRun(s: ExperimentCliServices, raw: unknown): number {
  const { experiment } = s.experiments.upsert(raw);
  return s.experiments.runToContinue(experiment.id).run.id;
}

function writeWhole(io: CliIo, output: string, text: string): void {
  if (output === '-') {
    io.stdout.write(text);
    return;
  }
  const target = resolve(io.cwd, output);
  const partial = `${target}.partial-${process.pid}`;
  try {
    writeFileSync(partial, text);
    renameSync(partial, target);
  } catch (err) {
    rmSync(partial, { force: true });
    throw new CliError(`${output}: ${(err as Error).message}`);
  }
}
