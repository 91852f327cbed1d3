/**
 * `fairground label utility`: Fair RAG's utility labels (Algorithm 1) for a collection with one
 * generator, as a `labels.utility` job in the workspace (visible in the app's job tray). Progress
 * goes to stderr. Running the same command again — after a crash, a kill or a finished run —
 * takes every finished LLM call from the call cache and rewrites nothing that is already stored.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UtilityLabelRequest, type UtilityLabelReport } from '../../api/contract/labeling';
import { formatIssuePath } from '../../api/contract/define';
import { RetrievalRepo } from '../../store/retrievalRepo';
import { numberOption, parseCliArgs, requireOption } from '../args';
import { CliError, type CliCommand, type CliIo } from '../command';
import { WORKSPACE_HELP, workspaceOptionSpec } from '../workspaceOption';
import { collectionIdByName, withLabelServices, type LabelServices } from './labelWorkspace';

const HELP = `Usage: fairground label utility --collection NAME (--model NAME | --remote NAME) [options]

For every candidate d of each query (its candidate set, e.g. a LaMP profile), generates an answer
with the query and d alone, scores it against the reference answers, and labels d useful when it
beats the answer generated without any document: δ = u(d) − u(none) > 0 (greedy decoding). The
labels are stored as utility judgments (source llm, with generator, template, metric, u, u0, δ);
manual overrides are never changed. Queries with fewer than --min-useful useful documents are
reported as dropped (nothing is deleted; exports leave them out).

  --collection NAME        the collection
  --model NAME             a model of the workspace library (local llama.cpp)
  --remote NAME            or an OpenAI-compatible server of the workspace
  --queries Q1,Q2          only these queries (default: every query with candidates)
  --task T                 only the queries of task T
  --metric M               accuracy|f1|em|mae|rmse|rouge1|rouge2|rougeL|rougeLsum for every query
                           (default: Fair-RAG's label metric of a LaMP task, else the query's metric)
  --rouge-impl I           pltrdy (default, as Fair-RAG) | rouge-score
  --max-tokens N           tokens generated per call (default 64)
  --min-useful M           keep queries with at least M useful documents (default 2)
  --template FILE          prompt template with the document (default: Fair-RAG's for LaMP tasks,
                           else a generic QA prompt; syntax in src-main/core/prompts/promptTemplate.ts)
  --baseline-template FILE prompt template without documents (default: the bare question for LaMP)
  --truncate U             words (default) | tokens | chars | none: the unit of the length budget
                           (tokens: the generator's own, every token the engine evaluates)
  --query-max N            query budget in augmented prompts (default 256)
  --total N                whole-prompt budget (default 512; in tokens: context size − max-tokens,
                           a larger total is lowered to it; each document gets its share)
  --cut R                  documents (default: shorten the document, never the question) |
                           paper-end (cut the end of the prompt, as Fair-RAG's code: the question too)
  --chat                   send prompts through the model's chat template
  --stop S                 stop string (repeatable)
  --run NAME               for queries without candidates: the top documents of this retrieval run
  --top N                  how many of them (default 20)
      --json               print the report as JSON
${WORKSPACE_HELP}

Example: fairground label utility --collection lamp2 --model qwen7b --queries 310,311 --max-tokens 16`;

export const labelUtilityCommand: CliCommand = {
  path: ['label', 'utility'],
  summary: 'Label candidates by their utility gain with a generator (Fair RAG Algorithm 1)',
  help: HELP,
  async run(argv, io) {
    const { values } = parseCliArgs(argv, {
      ...workspaceOptionSpec,
      collection: { type: 'string' },
      model: { type: 'string' },
      remote: { type: 'string' },
      queries: { type: 'string' },
      task: { type: 'string' },
      metric: { type: 'string' },
      'rouge-impl': { type: 'string' },
      'max-tokens': { type: 'string' },
      'min-useful': { type: 'string' },
      template: { type: 'string' },
      'baseline-template': { type: 'string' },
      truncate: { type: 'string' },
      cut: { type: 'string' },
      'query-max': { type: 'string' },
      total: { type: 'string' },
      chat: { type: 'boolean' },
      stop: { type: 'string', multiple: true },
      run: { type: 'string' },
      top: { type: 'string' },
      json: { type: 'boolean' },
    });
    const collection = requireOption(values.collection, 'collection');
    if ((values.model === undefined) === (values.remote === undefined)) throw new CliError('give one generator: --model NAME or --remote NAME');
    const readTemplate = (file: string | undefined, opt: string) => {
      if (file === undefined) return undefined;
      try {
        return readFileSync(resolve(io.cwd, file), 'utf8');
      } catch (err) {
        throw new CliError(`--${opt}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      }
    };
    const augmented = readTemplate(values.template, 'template');
    const baseline = readTemplate(values['baseline-template'], 'baseline-template');

    return withLabelServices(io, values.workspace, async (s) => {
      const collectionId = collectionIdByName(s, collection);
      const raw = {
        collectionId,
        generator: generatorRef(s, values.model, values.remote),
        ...(values.queries !== undefined ? { queryIds: values.queries.split(',').map((q) => q.trim()).filter(Boolean) } : {}),
        ...(values.task !== undefined ? { task: values.task } : {}),
        ...(augmented !== undefined || baseline !== undefined ? { template: { ...(augmented !== undefined ? { augmented } : {}), ...(baseline !== undefined ? { baseline } : {}) } } : {}),
        ...(values.metric !== undefined ? { metric: values.metric } : {}),
        ...(values['rouge-impl'] !== undefined ? { rougeImpl: values['rouge-impl'] } : {}),
        maxTokens: numberOption(values['max-tokens'], 'max-tokens', { integer: true, min: 1 }),
        minUseful: numberOption(values['min-useful'], 'min-useful', { integer: true, min: 0 }),
        chat: values.chat,
        ...(values.stop ? { stop: values.stop } : {}),
        truncation: {
          unit: values.truncate,
          queryMax: numberOption(values['query-max'], 'query-max', { integer: true, min: 1 }),
          total: numberOption(values.total, 'total', { integer: true, min: 1 }),
          truncate: values.cut,
        },
        ...(values.run !== undefined ? { candidateRun: { runId: runIdByName(s, collectionId, values.run), topN: numberOption(values.top, 'top', { integer: true, min: 1 }) } } : {}),
      };
      const parsed = UtilityLabelRequest.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new CliError(`${optionName(formatIssuePath(issue.path))}: ${issue.message}`);
      }
      const stopProgress = printProgress(s, io);
      let job = s.labeling.start(parsed.data);
      try {
        job = await s.jobs.wait(job.id);
      } finally {
        stopProgress();
      }
      if (job.status !== 'succeeded') throw new CliError(job.status === 'failed' ? (job.error ?? 'the labeling failed') : `the labeling was ${job.status}`, 1);
      const report = job.result as UtilityLabelReport;
      io.stdout.write(values.json ? `${JSON.stringify(report)}\n` : describeReport(report));
      return 0;
    });
  },
};

function generatorRef(s: LabelServices, model: string | undefined, remote: string | undefined) {
  if (model !== undefined) {
    const m = s.models.list().find((x) => x.name === model);
    if (!m) throw new CliError(`--model: no model named '${model}' in the library (see 'fairground model list')`);
    return { kind: 'local' as const, modelId: m.id };
  }
  const r = s.models.listRemotes().find((x) => x.name === remote);
  if (!r) throw new CliError(`--remote: no server named '${remote}' in the workspace`);
  return { kind: 'remote' as const, endpointId: r.id };
}

function runIdByName(s: LabelServices, collectionId: number, name: string): number {
  const row = new RetrievalRepo(s.collections.db).runByName(collectionId, name);
  if (!row) throw new CliError(`--run: no retrieval run named '${name}' in the collection`);
  return row.id;
}

const OPTION_NAMES: Record<string, string> = {
  maxTokens: '--max-tokens',
  minUseful: '--min-useful',
  metric: '--metric',
  rougeImpl: '--rouge-impl',
  'truncation.unit': '--truncate',
  'truncation.queryMax': '--query-max',
  'truncation.total': '--total',
  'truncation.truncate': '--cut',
  'candidateRun.topN': '--top',
  queryIds: '--queries',
};

function optionName(path: string): string {
  return OPTION_NAMES[path] ?? OPTION_NAMES[path.replace(/\[\d+\]$/, '')] ?? path;
}

/** Job progress on stderr, at most once a second (and the last line). */
function printProgress(s: LabelServices, io: CliIo): () => void {
  let last = 0;
  return s.events.subscribe((e) => {
    if (e.event !== 'job.updated') return;
    const job = e.payload;
    if (job.kind !== 'labels.utility' || job.status !== 'running' || !job.total) return;
    const now = Date.now();
    if (now - last < 1000 && job.progress < job.total) return;
    last = now;
    const pct = Math.floor((100 * job.progress) / job.total);
    const eta = job.etaSeconds !== null ? `, ${job.etaSeconds}s left` : '';
    io.stderr.write(`${job.progress}/${job.total} LLM calls (${pct}%${eta})${job.message ? ` ${job.message}` : ''}\n`);
  });
}

function budgetLine(b: NonNullable<UtilityLabelReport['promptBudget']>): string {
  const cut = b.promptsCut === 0 ? 'nothing cut' : `${b.promptsCut} of ${b.prompts} prompts cut (${b.documentsCut} documents shortened, ${b.documentsDropped} left out, ${b.queriesCut} questions cut)`;
  const est = b.estimate ? ` — an estimate (${b.estimate.method}; ${b.estimate.reason})` : '';
  return `prompt budget: ${b.total ?? 'no total'} ${b.unit} (${b.origin}), cut: ${b.truncate}; ${cut}${est}`;
}

function describeReport(r: UtilityLabelReport): string {
  const lines = [
    `labelled ${r.queries} ${r.queries === 1 ? 'query' : 'queries'}${r.skipped.length ? `, skipped ${r.skipped.length}` : ''}`,
    `LLM calls: ${r.calls.total} (${r.calls.cached} from the cache, ${r.calls.generated} generated)`,
    `judgments: ${r.judgments.written} written, ${r.judgments.unchanged} unchanged, ${r.judgments.keptManual} manual kept, ${r.judgments.replacedImport} imported replaced`,
    `kept ${r.kept} ${r.kept === 1 ? 'query' : 'queries'} with at least ${r.minUseful} useful documents, dropped ${r.dropped}`,
    ...r.skipped.map((x) => `skipped ${x.queryId}: ${x.reason}`),
    ...(r.promptBudget ? [budgetLine(r.promptBudget)] : []),
    `content hash ${r.contentHash}`,
  ];
  return `${lines.join('\n')}\n`;
}
