/**
 * `fairground run SPEC`: run an experiment spec (JSON or YAML) headless. The spec is validated first
 * (errors name the file and the field path); the experiment of that name is created or gets the
 * spec as a new version; then the newest unfinished run of that version is resumed (its finished
 * items are kept, finished LLM calls come from the cache) or a new run starts. Progress goes to
 * stderr; stdout gets the run id and a summary table.
 */
import { resolve } from 'node:path';
import type { Job } from '../../api/contract/jobs';
import { defaultExperimentRegistry } from '../../experiments/kinds';
import { readSpecFile, requireValidSpec } from '../../experiments/specFile';
import { designWarningLines } from '../../experiments/designWarningText';
import { DataError } from '../../core/errors';
import { describeCallBound } from '../../core/format/callBound';
import { DEMO_COLLECTION_NAME } from '../../services/collectionsDemo';
import { DEMO_MODEL_NAME, ensureDemo } from '../../services/demoSetup';
import { DEMO_SIM_NAME, ensureDemoSimReader } from '../../services/simulation/demoSim';
import { parseShard, type CallPolicy } from '../../engine/queue/callPolicy';
import { BatchPlanService, type CostEstimate } from '../../services/batchPlans';
import { numberOption, parseCliArgs } from '../args';
import { CliError, EXIT, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { describeStats, summaryTable, withExperimentServices, type ExperimentCliServices } from './experimentServices';

const HELP = `Usage: fairground run SPEC [--workspace PATH] [options]

Runs an experiment spec (a .json or .yaml file; see resources/demo/experiments/fair-rag.json).
The experiment named in the spec is created, or gets this spec as a new version. The newest
unfinished run of that version is resumed (finished results are kept and finished LLM calls
come from the workspace's call cache), otherwise a new run starts. Progress goes to stderr; the
run id and a summary table go to stdout. The design warnings (what this design cannot show, as
--dry-run and the wizard list them) go to stderr before anything is computed and are stored with
the run (its metrics' warnings and its manifest). Ctrl-C cancels; run the same command again to resume.
Exit status: 0 done; 1 failed; 2 bad spec or options; 130 interrupted by Ctrl-C; 75 cancelled
otherwise (from the app or another process). After 130 or 75 the work done is kept: rerun.

A spec that names the demo collection ('${DEMO_COLLECTION_NAME}') or the demo model
('${DEMO_MODEL_NAME}') sets them up in the workspace when they are missing.

Options:
${WORKSPACE_HELP}
      --new              start a new run even if an unfinished one exists
      --threads N        llama.cpp threads (stored as the workspace setting; 0 = physical cores)
      --json             print {runId, status, stats, aggregates} as JSON instead of the table
      --dry-run          compute nothing: print the plan's cost (calls to compute per model and
                         operation, calls the cache answers, prompt size, an estimated time from
                         this engine's measured throughput) and the design warnings (what
                         this design cannot show, e.g. k ≥ the candidates, too few queries or
                         samples, with the fix), and exit; stores nothing (no experiment, no
                         new spec version). A selection that leaves no usable query (tasks
                         matching none, or queries this kind cannot use) exits 2 naming it
      --cache-only       compute nothing: finish from the call cache, or stop (exit 75, resumable)
                         naming how many calls to export with \`fairground plan export\`
      --shard k/N        compute only the k-th of N deterministic shards of the plan's calls into
                         this workspace (one workspace per shard; then \`fairground cache merge\` the
                         shards into one and run there). A workspace must not live on a network
                         filesystem (SQLite WAL): shards are the way to use several nodes.

Example:
  fairground run resources/demo/experiments/fair-rag.json --workspace /tmp/demo.fairground
`;

export const runCommand: CliCommand = {
  path: ['run'],
  summary: 'Run an experiment spec (JSON/YAML) headless, resuming an unfinished run',
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseCliArgs(
      argv,
      { ...workspaceOptionSpec, new: { type: 'boolean' }, threads: { type: 'string' }, json: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, 'cache-only': { type: 'boolean' }, shard: { type: 'string' } },
      true,
    );
    if (positionals.length !== 1) throw new CliError('expected one spec file');
    const given = positionals[0]!;
    const raw = readSpecFile(resolve(io.cwd, given), given);
    const { spec } = requireValidSpec(defaultExperimentRegistry(), raw, given);
    const threads = numberOption(values.threads, 'threads', { integer: true, min: 0 });
    const modes = [values['dry-run'] && '--dry-run', values['cache-only'] && '--cache-only', values.shard !== undefined && '--shard'].filter(Boolean);
    if (modes.length > 1) throw new CliError(`${modes.join(' and ')} cannot be combined`);
    let shard: CallPolicy | undefined;
    try {
      shard = values.shard === undefined ? undefined : parseShard(values.shard);
    } catch (err) {
      throw new CliError((err as Error).message);
    }

    return withExperimentServices(io, values.workspace, async (s) => {
      if (threads !== undefined) s.settings.update({ threads });
      await ensureDemoIfNamed(s, spec, io);
      // Everything the spec names must exist here; list each missing one (issue 17 item 2).
      const check = s.experiments.validateSpec(raw);
      if (!check.ok) throw new DataError(check.issues.map((i) => `${i.path || '(spec)'}: ${i.message}`).join('; '), { file: given });
      if (values['dry-run']) {
        // A dry run stores nothing (issue 34): no experiment, no new spec version — the plan is walked
        // on a throwaway copy of the spec, whether or not its checks pass.
        const plans = new BatchPlanService(s.workspace.db, s.experiments, s.models.cache);
        const estimate = await plans.estimateSpec(raw, new AbortController().signal);
        // A plan with no call at all (none to compute, none in the cache) selects no query this kind
        // can use: an error, as for the run itself, not a plan of 0 calls (issue 34).
        if (estimate.toCompute === 0 && estimate.fromCache === 0) {
          throw new DataError(
            `the plan of '${String(spec.name)}' has no calls: none of the queries its collection, queries and tasks select can be used by a ${String(spec.kind)} run (e.g. no reference answer, or none of the labels the kind needs: sub-aspects with sub-answers, utility labels); choose other queries or tasks`,
            { file: given },
          );
        }
        // A true upper bound beside the estimate where the kind takes one (RichRAG, whose later stages are an expected count
        // only (placeholders stand in for a real model's sub-aspects; issue 34 item 8e).
        io.stdout.write(values.json ? `${JSON.stringify(estimate)}\n` : describeEstimate(String(spec.name), estimate));
        return 0;
      }
      const { experiment, created, changed } = s.experiments.upsert(raw);
      const { run, resumed } = s.experiments.runToContinue(experiment.id, values.new ?? false);
      io.stderr.write(
        `${created ? 'created' : changed ? `updated (spec version ${experiment.version})` : 'using'} experiment '${experiment.name}' (id ${experiment.id}); ${resumed ? 'resuming' : 'starting'} run ${run.id}\n`,
      );
      // Every design warning before anything is computed, worded as --dry-run and the wizard word it,
      // and stored with the run (its metrics' warnings and its manifest; issue 34 item 6). They include
      // what the servers' concurrency costs in reproducibility (issue 35 item 2), printed once.
      for (const w of await s.experiments.recordDesignWarnings(run.id)) io.stderr.write(`${designWarningLines(w).join('\n')}\n`);
      if (shard || values['cache-only']) {
        const plans = new BatchPlanService(s.workspace.db, s.experiments, s.models.cache);
        const outcome = await runWithPolicy(plans, io, run.id, shard ?? { mode: 'defer' });
        io.stderr.write(`run ${run.id}: ${outcome.message}\n`);
        if (!outcome.finished) {
          if (shard) io.stdout.write(`run ${run.id} shard ${values.shard}: ${outcome.calls.computed} computed, ${outcome.calls.hits} from the cache, ${outcome.calls.deferredCount} left to other shards or later stages\n`);
          return shard ? 0 : EXIT.cancelledResumable;
        }
        printResult(s, io, run.id, experiment, values.json ?? false);
        return 0;
      }
      const { job, interrupted } = await runJob(s, io, s.experiments.launch(run));
      if (job.status === 'failed') throw new CliError(`run ${run.id} failed: ${job.error ?? 'unknown error'}`, EXIT.failure);
      if (job.status !== 'succeeded') {
        // Ctrl-C: 130 as for any interrupted program; cancelled otherwise (the app, another process): 75.
        throw new CliError(`run ${run.id} was ${job.status}; run the same command again to resume`, interrupted ? EXIT.interrupted : EXIT.cancelledResumable);
      }
      printResult(s, io, run.id, experiment, values.json ?? false);
      return 0;
    });
  },
};

function printResult(s: ExperimentCliServices, io: CliIo, runId: number, experiment: { id: number; name: string }, json: boolean): void {
  // The summary's values (aggregates, warnings), as the run's metrics have them; not the tables and tests it does not print.
  const metrics = s.experiments.summary(runId);
  const info = s.experiments.getRun(runId);
  if (json) {
    io.stdout.write(`${JSON.stringify({ runId, experimentId: experiment.id, status: info.status, stats: info.stats, aggregates: metrics.aggregates ?? null })}\n`);
  } else {
    io.stdout.write(`run ${runId} of experiment '${experiment.name}' (spec version ${info.specVersion}): ${info.status}\n`);
    io.stdout.write(describeStats(info.stats, metrics.kind, s.experiments.registry));
    io.stdout.write(summaryTable(metrics, s.experiments.registry));
    // The design warnings (printed on stderr before the run) are not repeated here.
    for (const w of (metrics.warnings ?? []).filter((x) => !x.startsWith('design warning [')).slice(0, 5)) io.stdout.write(`note: ${w}\n`);
  }
}

/** A run under a policy in this process, with progress on stderr and Ctrl-C cancelling. */
async function runWithPolicy(plans: BatchPlanService, io: CliIo, runId: number, policy: CallPolicy) {
  const controller = new AbortController();
  const onSigint = () => {
    io.stderr.write('cancelling (finished results are kept; run again to resume)…\n');
    controller.abort(new Error('cancelled'));
  };
  process.once('SIGINT', onSigint);
  let last = 0;
  try {
    return await plans.runWithPolicy(runId, policy, {
      signal: controller.signal,
      progress: (done, total, message) => {
        const now = Date.now();
        if (now - last < 1000) return;
        last = now;
        io.stderr.write(`[${done}${total ? ` / ${total}` : ''}] ${message ?? ''}\n`);
      },
    });
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function describeEstimate(name: string, e: CostEstimate): string {
  const lines = [`plan of '${name}': ${e.toCompute} call(s) to compute, ${e.fromCache} answered by the cache`];
  for (const st of e.stages ?? [{ stage: 1, toCompute: e.toCompute, estimated: false, basis: '' }]) {
    if (e.stages) lines.push(`stage ${st.stage}: ${st.estimated ? '≈ ' : ''}${st.toCompute} call(s) (${st.basis})`);
    for (const l of e.lines.filter((x) => (x.stage ?? 1) === st.stage)) {
      const eta = l.etaSeconds === null ? 'no measured throughput yet' : `≈ ${l.etaSeconds} s (${Math.round(l.meanCallMs!)} ms per call, ${l.concurrency} at once)`;
      lines.push(`  ${l.model}  ${l.op}${l.purpose ? ` (${l.purpose})` : ''}: ${l.estimated ? '≈ ' : ''}${l.toCompute} call(s), ≈ ${Math.round(l.promptChars / 4)} prompt tokens${l.estimated ? ' (estimate)' : ''}, ${eta}`);
    }
  }
  lines.push(`estimated time: ${e.etaSeconds === null ? 'unknown (no measured throughput for some model yet)' : `${e.etaSeconds} s`}`);
  if (e.bound) {
    const [bound, basis] = describeCallBound(e.bound, e.toCompute + e.fromCache);
    lines.push(bound, `  ${basis}`);
  }
  if (!e.complete || (e.stages?.length ?? 0) > 1) lines.push(`note: ${e.note}`);
  // Design warnings (issue 23 item 5): what this design cannot show, before anything runs.
  if (e.warnings.length === 0) lines.push('design checks: no problems found');
  for (const w of e.warnings) lines.push(...designWarningLines(w));
  return `${lines.join('\n')}\n`;
}

/** Sets the demo up (collection, tiny model) when the spec names it, as `run` does; shared with `plan export`. */
export async function ensureDemoIfNamed(s: ExperimentCliServices, spec: Record<string, unknown>, io: CliIo): Promise<void> {
  const generator = spec.generator as { model?: string } | undefined;
  // Also when it exists: an incomplete demo (a load killed midway) is completed (issue 15 item 1).
  const wantsCollection = spec.collection === DEMO_COLLECTION_NAME;
  const wantsModel = generator?.model === DEMO_MODEL_NAME && !s.models.models.getByName(DEMO_MODEL_NAME);
  // The demo's simulated reader, named anywhere in the spec (generator, judge): a workspace with the
  // demo collection but another model library gets it too (issue 26 item 1).
  const wantsSim = namesModel(spec, DEMO_SIM_NAME) && !s.models.models.getByName(DEMO_SIM_NAME);
  if (!wantsCollection && !wantsModel && !wantsSim) return;
  const demo = await ensureDemo(s, (m) => io.stderr.write(`${m}\n`));
  if (wantsModel && demo.model === 'skipped') throw new CliError(`the spec names the demo model '${DEMO_MODEL_NAME}', which this workspace does not have (its library already holds other models)`);
  if (wantsSim && ensureDemoSimReader(s) === 'created') io.stderr.write(`Registered the simulated reader '${DEMO_SIM_NAME}' (planted truth) of the demo collection\n`);
}

/** Whether some `model` field of the spec (at any depth) is `name`. */
function namesModel(value: unknown, name: string): boolean {
  if (Array.isArray(value)) return value.some((v) => namesModel(v, name));
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([k, v]) => (k === 'model' && v === name) || namesModel(v, name));
}

/** Waits for the job, printing progress on stderr (at most once a second) and cancelling on Ctrl-C. */
async function runJob(s: ExperimentCliServices, io: CliIo, job: Job): Promise<{ job: Job; interrupted: boolean }> {
  let interrupted = false;
  let last = 0;
  const off = s.events.subscribe((e) => {
    if (e.event !== 'job.updated' || e.payload.id !== job.id) return;
    const j = e.payload;
    const now = Date.now();
    const complete = j.total !== null && j.progress >= j.total;
    if (now - last < 1000 && !complete) return;
    last = now;
    const of = j.total ? ` / ${j.total}` : '';
    const pct = j.total ? ` (${Math.floor((100 * j.progress) / j.total)}%)` : '';
    const eta = j.etaSeconds !== null ? `, ETA ${j.etaSeconds} s` : '';
    io.stderr.write(`[${j.progress}${of} LLM calls${pct}${eta}] ${j.message ?? ''}\n`);
  });
  const onSigint = () => {
    interrupted = true;
    io.stderr.write('cancelling (finished results are kept; run again to resume)…\n');
    s.jobs.cancel(job.id);
  };
  process.once('SIGINT', onSigint);
  try {
    const done = await s.jobs.wait(job.id);
    return { job: done, interrupted };
  } finally {
    process.off('SIGINT', onSigint);
    off();
  }
}
