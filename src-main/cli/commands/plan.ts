/**
 * `fairground plan export`, `fairground cache import`, `fairground cache merge`: the loop that runs a
 * study's calls on a distributed engine (vLLM `run-batch` on one GPU or a Ray cluster, or any
 * OpenAI-Batch compatible service) and brings the answers back into the workspace's call cache
 * (services/batchPlans/).
 */
import { resolve } from 'node:path';
import { defaultExperimentRegistry } from '../../experiments/kinds';
import { readSpecFile, requireValidSpec } from '../../experiments/specFile';
import { readText } from '../../io/lines';
import type { OutputTarget } from '../../io/outputTarget';
import { DataError } from '../../core/errors';
import type { BatchRoutes } from '../../engine/remote/batchCodec';
import { BatchPlanService } from '../../services/batchPlans';
import { parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { OUTPUT_HELP, checkOutputs, outputOptionSpec, writeChecked } from '../writeOutput';
import { withExperimentServices, type ExperimentCliServices } from './experimentServices';
import { ensureDemoIfNamed } from './run';

const PLAN_HELP = `Usage: fairground plan export SPEC --format openai-batch|openai-batch-completions -o REQUESTS.jsonl [--workspace PATH]

Writes every call of the spec's next runnable stage that the workspace's call cache cannot answer
as OpenAI-Batch JSONL (custom_id = the call's cache key, or KEY#i for a call of several lines).
Nothing is computed here. -o - writes to standard output.

--format openai-batch (the default) writes only lines vLLM's run-batch accepts (checked against its
request models at vllm-project/vllm@0052bed36509c7a5a2d8e48265334e40cf2f5a0e):

  vllm run-batch -i requests.jsonl -o results.jsonl --model MODEL

Chat generations (chat: true) become /v1/chat/completions lines and embeddings /v1/embeddings lines.
run-batch has no /v1/completions route, so a plain-prompt generation (the default of every kind)
and teacher-forced scoring (MoI) cannot be expressed: the export refuses them, naming why, and writes
nothing. For those, serve the model with \`vllm serve\` and add it as an endpoint pool (its
/v1/completions takes raw prompts and echo scoring), or use --format openai-batch-completions.

--format openai-batch-completions writes the lines a server with /v1/completions takes (plain
prompts as /v1/completions, scoring as one echo/logprobs line per continuation): for replaying a
plan line by line against llama.cpp's llama-server (which cannot score: no prompt log-probabilities)
or a vllm serve endpoint, or an OpenAI-Batch gateway in front of one. vLLM's run-batch refuses them.

Then \`fairground cache import results.jsonl\` fills the cache and \`fairground run SPEC\` finishes
from it, or this command exports the next stage (e.g. attribution judgments of the generations).
The spec's models must be OpenAI-compatible servers (fairground remote add) serving the same model.
A spec that names the demo collection or model sets the demo up first, as fairground run does.

Options:
${WORKSPACE_HELP}
      --format F   openai-batch (vLLM run-batch; default) or openai-batch-completions
  -o, --output F   the request file (written whole or not at all)
${OUTPUT_HELP}
`;

const FORMATS: Record<string, BatchRoutes> = { 'openai-batch': 'vllm-run-batch', 'openai-batch-completions': 'completions' };

export const planExportCommand: CliCommand = {
  path: ['plan', 'export'],
  summary: "Write the spec's uncached calls as an OpenAI-Batch JSONL file (vLLM run-batch, Ray)",
  help: PLAN_HELP,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(argv, { ...workspaceOptionSpec, ...outputOptionSpec, format: { type: 'string' }, output: { type: 'string', short: 'o' } }, true);
    if (positionals.length !== 1) throw new CliError('expected one spec file');
    const format = values.format ?? 'openai-batch';
    const routes = FORMATS[format];
    if (!routes) throw new CliError(`--format: openai-batch or openai-batch-completions, got '${format}'`);
    const output = requireOption(values.output, 'output');
    // Checked before anything is computed or stored: never a FIFO, device, socket, folder or (by default) a link.
    const target = output === '-' ? '-' : checkOutputs(io, [output], values['follow-symlinks'])[0]!;
    const given = positionals[0]!;
    const raw = readSpecFile(resolve(io.cwd, given), given);
    const { spec } = requireValidSpec(defaultExperimentRegistry(), raw, given);
    return withExperimentServices(io, values.workspace, async (s) => {
      await ensureDemoIfNamed(s, spec, io);
      const check = s.experiments.validateSpec(raw);
      if (!check.ok) throw new DataError(check.issues.map((i) => `${i.path || '(spec)'}: ${i.message}`).join('; '), { file: given });
      const run = continuingRun(s, raw);
      const plans = new BatchPlanService(s.workspace.db, s.experiments, s.models.cache);
      const { outcome, lines, calls } = await plans.exportPlan(run, { signal: new AbortController().signal, progress: () => {} }, routes);
      const text = lines.map((l) => JSON.stringify(l)).join('\n') + (lines.length ? '\n' : '');
      writeWhole(io, target, text);
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

Reads an OpenAI-Batch output file (vLLM run-batch's lines: {id, custom_id, response: {status_code,
request_id, body} | null, error}) for requests written by fairground plan export in this workspace.

Every line is checked against its own request: custom_id, model, and the evidence the response
carries — an echoed prompt (scoring) must be the request's prompt and its echoed tokens must add up
to usage.prompt_tokens + completion_tokens; no response may generate more than max_tokens; one prompt
must be counted the same number of tokens on every line; a generation's usage.prompt_tokens must be
the count the server's tokenizer gave its prompt at plan export (where the server could tokenize).
A line that fails a check refuses the whole file, naming file:line and custom_id; nothing is
imported. (A generation's response does not echo its prompt: two generations of prompts with the
same token count swapped cannot be told apart.)

A line the batch engine answered with an error is listed and its call left for the next export.
A call the cache already holds is compared, not imported again: the same answer counts as already
here, another answer is listed per call as a disagreement (the stored answer stays). A call that a
running \`fairground run\` is computing at this moment is left to that run.

Exit status 0 when every line's call is in the cache with the file's answer; 1 when some line failed
in the batch engine or disagrees with the cache (the other calls are imported); 2 when the file is
refused. \`-\` reads standard input; a .gz file is decompressed.

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
      for (const f of r.failed) io.stderr.write(`${file}:${f.line}: ${f.customId}: the batch engine answered with an error (${f.message}); not imported, plan export writes it again\n`);
      for (const d of r.disagreements) io.stderr.write(`${file}:${d.line}: call ${d.key}: the cache holds another answer for this call; the stored answer stays (a nondeterministic engine, or other weights behind the model name)\n`);
      const parts = [`imported ${r.calls} call(s) from ${r.lines} line(s)`];
      if (r.alreadyHere) parts.push(`${r.alreadyHere} call(s) were in the cache already with the same answer`);
      if (r.disagreements.length) parts.push(`${r.disagreements.length} call(s) disagree with the cache (kept the cache's answer)`);
      if (r.computingElsewhere) parts.push(`${r.computingElsewhere} call(s) are being computed by a running fairground run (left to it)`);
      if (r.notCompared) parts.push(`${r.notCompared} call(s) were in the cache from an earlier import (not compared: their export record is gone)`);
      if (r.failed.length) parts.push(`${r.failed.length} line(s) failed in the batch engine (not imported)`);
      if (r.incomplete) parts.push(`${r.incomplete} call(s) still miss some of their lines`);
      if (r.uncounted) io.stderr.write(`${file}: ${r.uncounted} generation answer(s) could not be held against their prompt's token count (the server could not tokenize at plan export): two of them swapped would not be seen\n`);
      io.stdout.write(`${parts.join('; ')}\n`);
      return r.failed.length > 0 || r.disagreements.length > 0 ? 1 : 0;
    });
  },
};

export const cacheMergeCommand: CliCommand = {
  path: ['cache', 'merge'],
  summary: "Merge other workspaces' call caches (shards) into this one",
  help: `Usage: fairground cache merge OTHER.fairground... [--workspace PATH]

Copies every call of the other workspaces' caches that this one lacks (e.g. the shards of
\`fairground run SPEC --shard k/N\`). The same call with a different response is an error naming
every such call's key, and nothing of that file is merged. A source that is not a Fairground
workspace, has a newer schema, is damaged (what \`fairground workspace check\` finds) or holds cache
rows that are not JSON is refused, named, before anything is merged. Then \`fairground run SPEC\`
completes from the cache.

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

function writeWhole(io: CliIo, target: OutputTarget | '-', text: string): void {
  if (target === '-') io.stdout.write(text);
  else writeChecked(target, text); // checked again just before the rename: something may have appeared meanwhile
}
