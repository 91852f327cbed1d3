/**
 * Issue 24 item 2 for RichRAG's preview and US³ export: they fit their prompts with the run's budget
 * code and the model's own tokenizer, so a preview or an exported training record is the prompt the
 * run sent, token for token. On the demo workspace with the tiny GGUF through node-llama-cpp
 * (real services, real SQLite, the real call cache):
 *
 * - budgets are chosen below the measured prompt sizes (from an unbudgeted preview), so documents'
 *   texts are cut;
 * - after the run, the preview of every static condition is the stored answer prompt, and its
 *   budget count is the tokens the engine evaluated (the stored promptTokens); the preview of the
 *   list-wise condition is a ranker prompt the run sent (in the call cache), with the engine's count;
 * - with the training template equal to the ranker's (no {{selected}}) and one window, every exported
 *   SFT / preference record's prompt is the ranker prompt the run sent for that query, and the
 *   manifest's export.promptBudget says 'tokens', the budget and what was cut;
 * - by default the training budget is the ranker's context − the longest completion − 1, and a record
 *   then fits the context with its completion, counted by the model's tokenizer;
 * - with a remote ranker without a tokenizer (an OpenAI-style server), the export is budgeted by the
 *   stated estimate, marked 'estimated tokens' with its reason in the manifest and warned about.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiOutput } from '../../../src-main/api/contract/index';
import { ESTIMATE_PROMPT_MARGIN, estimateTokenCount } from '../../../src-main/engine/tokenBudget';
import type { GenerationPayload } from '../../../src-main/experiments/richrag/items';
import { createApiRouter } from '../../../src-main/handlers/index';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';
import { DEMO_COLLECTION_NAME } from '../../../src-main/services/collectionsDemo';
import { DEMO_MODEL_NAME } from '../../../src-main/services/demoSetup';
import { runCliCaptured } from '../../support/cli';
import { copyWorkspace, makeDemoWorkspace } from '../fixture';

const QUERIES = ['ma-q1', 'ma-q2', 'ma-q3'];
const STATIC = ['retriever', 'golden/no-ranker', 'golden/coverage'];
const TEMPLATE = 'Rank the documents for: {{query}}\nAspects:\n{{aspects}}\nDocuments:\n{{candidates}}\nThe {{k}} best ids: ';

function spec(name: string, over: { ranker?: object; generation?: object; preferences?: object } = {}): Record<string, unknown> {
  return {
    kind: 'richrag',
    name,
    collection: DEMO_COLLECTION_NAME,
    queries: QUERIES,
    generator: { model: DEMO_MODEL_NAME },
    k: 2,
    settings: ['golden'],
    frameworks: ['retriever', 'no-ranker', 'coverage', 'listwise'],
    retrieval: { topN: 4, capacity: 6 },
    // One window (capacity ≤ window) and no {{selected}}: every step prompt of a query is one string.
    ranker: { window: 6, docWords: null, template: TEMPLATE, ...over.ranker },
    generation: { maxTokens: 8, docWords: null, ...over.generation },
    preferences: { enabled: true, samples: 1, template: TEMPLATE, ...over.preferences },
  };
}

let dir: string;
let workspacePath: string;
let s: AppServices;
let call: <T>(method: string, input: unknown) => Promise<T>;
let runId: number;
let rankerTotal: number;
let generatorTotal: number;
let budgetedSpec: Record<string, unknown>;

type Preview = ApiOutput<'experiments.previewPrompt'>;

const localEngine = () => s.models.engineFor({ kind: 'local', modelId: s.models.models.getByName(DEMO_MODEL_NAME)!.id });
const countPrompt = async (prompt: string) => (await localEngine().tokenize({ texts: [prompt], asPrompt: 'text' })).counts[0]!;

/** The ranker prompts the run sent (grammar-constrained generations in the call cache), with the engine's prompt tokens. */
function rankerCalls(): Map<string, number> {
  const rows = s.workspace.db.prepare(`SELECT request, response FROM llm_call_cache WHERE op = 'generate'`).all() as { request: string; response: string }[];
  const out = new Map<string, number>();
  for (const r of rows) {
    const req = JSON.parse(r.request) as { request?: { prompt?: string; grammar?: string }; prompt?: string; grammar?: string };
    const body = req.request ?? req;
    if (body.grammar === undefined || body.prompt === undefined) continue;
    out.set(body.prompt, (JSON.parse(r.response) as { promptTokens: number }).promptTokens);
  }
  return out;
}

/**
 * A run of `runSpec` holding the budgeted run's items (the export reads only the items and the spec).
 * The tiny model's random answers give every US³ list the reward 0, so no pair would pass μ: the
 * sampled lists' rewards are planted (greedy + 0.25 × sample) to give the preference export records.
 */
function copyRun(runSpec: Record<string, unknown>): number {
  const e = s.experiments.create(runSpec);
  const run = s.experiments.repo.createRun({ experimentId: e.id, spec: s.experiments.repo.experiment(e.id)!.spec, specVersion: 1 });
  const items = s.experiments.repo.items(runId).map((it) => {
    const p = it.payload as { type?: string; sample?: number; reward?: { reward: number } };
    return p.type === 'preference' && p.sample! > 0 ? { ...it, payload: { ...p, reward: { ...p.reward!, reward: p.reward!.reward + 0.25 * p.sample! } } } : it;
  });
  s.experiments.repo.upsertItems(run.id, items);
  return run.id;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-richrag-budget-'));
  const base = await makeDemoWorkspace(dir, 'base.fairground');
  workspacePath = copyWorkspace(base, join(dir, 'run.fairground'));
  s = createAppServices(workspacePath, { transport: 'http' });
  s.settings.update({ threads: 1 });
  const router = createApiRouter(s, (err) => {
    throw err;
  });
  call = async <T>(method: string, input: unknown) => {
    const r = await router.call(method, input);
    if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
    return r.data as T;
  };
  // The prompts' sizes without a spec budget (within what the context leaves): the budgets are set
  // below them, so that the run cuts documents.
  const sizes = { ranker: [] as number[], generator: [] as number[] };
  for (const q of QUERIES) {
    for (const c of [...STATIC, 'golden/listwise']) {
      const p = await call<Preview>('experiments.previewPrompt', { spec: spec('probe'), queryId: q, retriever: c });
      // (The ranker's whole pool may already exceed what the context leaves: then it is cut to fit.)
      expect(p.budget).toMatchObject({ unit: 'tokens', ...(c === 'golden/listwise' ? {} : { documentsCut: 0 }) });
      (c === 'golden/listwise' ? sizes.ranker : sizes.generator).push(p.budget!.tokens!);
    }
  }
  rankerTotal = Math.floor(Math.min(...sizes.ranker) * 0.8);
  generatorTotal = Math.floor(Math.min(...sizes.generator) * 0.85);
  console.log(`prompt sizes: ranker ${sizes.ranker.join(', ')} → budget ${rankerTotal}; generator ${sizes.generator.join(', ')} → budget ${generatorTotal}`);
  budgetedSpec = spec('budgeted', { ranker: { promptBudget: { total: rankerTotal } }, generation: { promptBudget: { total: generatorTotal } }, preferences: { promptBudget: { total: rankerTotal } } });
  const e = s.experiments.create(budgetedSpec);
  const job = s.experiments.startRun(e.id);
  const done = await s.jobs.wait(job.id);
  expect(done.error).toBeNull();
  runId = s.experiments.listRuns(e.id)[0]!.id;
}, 600_000);

afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RichRAG preview = the prompt the run sent (tiny GGUF, node-llama-cpp tokenizer)', () => {
  it('every static condition: the stored answer prompt, counted as the engine evaluated it', async () => {
    let cut = 0;
    for (const q of QUERIES) {
      for (const c of STATIC) {
        const stored = s.experiments.repo.item(runId, JSON.stringify(['g', q, c]))!.payload as GenerationPayload;
        const p = await call<Preview>('experiments.previewPrompt', { spec: budgetedSpec, queryId: q, retriever: c });
        expect(p.prompt).toBe(stored.prompt);
        expect(p.ranking).toEqual(stored.ranking);
        expect(p.budget).toMatchObject({ field: 'generation.promptBudget', unit: 'tokens', total: generatorTotal, origin: 'generation.promptBudget.total' });
        // The budget's count is what the engine evaluated for the prompt (BOS included).
        expect(p.budget!.tokens).toBe(stored.promptTokens);
        expect(stored.budget!.tokens).toBe(stored.promptTokens);
        expect(stored.promptTokens).toBeLessThanOrEqual(generatorTotal);
        expect(p.budget!.documentsCut).toBe(stored.budget!.documentsCut);
        cut += p.budget!.documentsCut;
      }
    }
    expect(cut).toBeGreaterThan(0); // the budget did cut sources
  });

  it('the list-wise condition: a ranker prompt the run sent, with the engine’s count; cut to fit', async () => {
    const sent = rankerCalls();
    expect(sent.size).toBe(QUERIES.length); // one prompt per query: the same at every step and sample
    for (const q of QUERIES) {
      const p = await call<Preview>('experiments.previewPrompt', { spec: budgetedSpec, queryId: q, retriever: 'golden/listwise' });
      expect(sent.has(p.prompt)).toBe(true);
      expect(p.budget).toMatchObject({ field: 'ranker.promptBudget', unit: 'tokens', total: rankerTotal });
      expect(p.budget!.tokens).toBe(sent.get(p.prompt));
      expect(p.budget!.tokens).toBeLessThanOrEqual(rankerTotal);
      expect(p.budget!.documentsCut).toBeGreaterThan(0);
      expect(await countPrompt(p.prompt)).toBe(p.budget!.tokens);
    }
  });
});

describe('RichRAG US³ / SFT export = the ranker prompt the run sent', () => {
  it('sft-jsonl and preferences-jsonl: each record’s prompt is the query’s ranker prompt, the manifest gives the budget and the cuts', async () => {
    const sent = rankerCalls();
    const planted = copyRun({ ...budgetedSpec, name: 'budgeted, planted rewards' });
    for (const format of ['sft-jsonl', 'preferences-jsonl']) {
      const out = await call<ApiOutput<'runs.export'>>('runs.export', { runId: format === 'sft-jsonl' ? runId : planted, format });
      const records = out.file.text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, string>);
      if (format === 'sft-jsonl') expect(records).toHaveLength(QUERIES.length);
      else expect(records.length).toBeGreaterThan(0);
      // Unchanged format: the same fields as before budgets.
      for (const r of records) expect(Object.keys(r).sort()).toEqual(format === 'sft-jsonl' ? ['completion', 'prompt'] : ['chosen', 'prompt', 'rejected']);
      for (const r of records) {
        expect(sent.has(r.prompt!)).toBe(true);
        expect(await countPrompt(r.prompt!)).toBe(sent.get(r.prompt!));
      }
      const exp = (out.manifest as { export: { promptBudget: Record<string, unknown>; records: number } }).export;
      expect(exp.records).toBe(records.length);
      expect(exp.promptBudget).toMatchObject({ unit: 'tokens', total: rankerTotal, origin: 'preferences.promptBudget.total', prompts: expect.any(Number) });
      expect(exp.promptBudget.promptsCut as number).toBeGreaterThan(0);
      expect((out.manifest as { warnings: string[] }).warnings.some((w) => /training prompts had their candidates' texts cut to fit the ranker's token budget of \d+/.test(w))).toBe(true);
    }
  });

  it('by default the training budget is the context − the longest completion − 1: prompt and completion fit, counted by the model', async () => {
    const run = copyRun(spec('default budget', { ranker: { promptBudget: { total: rankerTotal } }, generation: { promptBudget: { total: generatorTotal } } }));
    const out = await call<ApiOutput<'runs.export'>>('runs.export', { runId: run, format: 'sft-jsonl' });
    const budget = (out.manifest as { export: { promptBudget: { total: number; origin: string; unit: string } } }).export.promptBudget;
    const context = (await localEngine().tokenize({ texts: [''], asPrompt: 'text' })).contextSize!;
    const records = out.file.text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { prompt: string; completion: string });
    const longest = Math.max(...(await localEngine().tokenize({ texts: records.map((r) => r.completion) })).counts);
    expect(budget.unit).toBe('tokens');
    expect(budget.total).toBe(context - longest - 1);
    expect(budget.origin).toBe(`the context size ${context} − the longest completion + 1 (end of sequence) ${longest + 1}`);
    for (const r of records) expect((await countPrompt(r.prompt)) + longest + 1).toBeLessThanOrEqual(context);
  });

  it('a remote ranker without a tokenizer: the export is budgeted by the estimate, marked as one in the manifest and warned about', async () => {
    await call('remotes.add', { name: 'no-tokenizer', model: 'ranker-8b', baseUrl: 'http://127.0.0.1:9/v1', revision: 'sha256:abc', probe: false });
    const over = (total: number) => ({ ranker: { promptBudget: { total: rankerTotal }, generator: { remote: 'no-tokenizer' } }, generation: { promptBudget: { total: generatorTotal } }, preferences: { promptBudget: { total } } });
    // The estimate (UTF-8 bytes + 1 per token) is far above the model's count: at the run's budget even
    // the prompts without any document text do not fit, and the export is refused naming the sizes.
    const tight = copyRun(spec('estimated, tight', over(rankerTotal)));
    const refused = await createApiRouter(s).call('runs.export', { runId: tight, format: 'preferences-jsonl' });
    expect(refused).toMatchObject({ ok: false, error: { field: 'preferences.promptBudget', message: expect.stringMatching(new RegExp(`the training prompt of query 'ma-q\\d' is \\d+ tokens and \\d+ without any document text .*the budget is ${rankerTotal} \\(preferences\\.promptBudget\\.total \\(the engine did not report its context size\\)\\)`)) } });
    const total = 700;
    const run = copyRun(spec('estimated', over(total)));
    const out = await call<ApiOutput<'runs.export'>>('runs.export', { runId: run, format: 'preferences-jsonl' });
    const budget = (out.manifest as { export: { promptBudget: { unit: string; total: number; origin: string; estimate: { reason: string } } } }).export.promptBudget;
    expect(budget).toMatchObject({
      unit: 'estimated tokens',
      total,
      origin: 'preferences.promptBudget.total (the engine did not report its context size)',
      estimate: { reason: 'an OpenAI-style server has no tokenizer endpoint' },
    });
    expect((out.manifest as { warnings: string[] }).warnings.some((w) => w.includes("prompts were budgeted by an estimate of the ranker's tokens (an OpenAI-style server has no tokenizer endpoint)"))).toBe(true);
    const records = out.file.text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { prompt: string });
    expect(records.length).toBeGreaterThan(0);
    // The CLI says so on stderr, and the manifest written beside the file keeps export.promptBudget.
    const file = join(dir, 'estimated.preferences.jsonl');
    const cli = await runCliCaptured(['experiment', 'export', String(run), '--format', 'preferences-jsonl', '-o', file, '--workspace', workspacePath], { cwd: dir });
    expect(cli.code).toBe(0);
    expect(cli.stderr).toContain(`note: the prompts were budgeted by an estimate of the model's tokens (an OpenAI-style server has no tokenizer endpoint); budget ${total} (preferences.promptBudget.total (the engine did not report its context size))`);
    expect(readFileSync(file, 'utf8')).toBe(out.file.text);
    const beside = JSON.parse(readFileSync(`${file}.manifest.json`, 'utf8')) as { export: { file: string; promptBudget: { unit: string } } };
    expect(beside.export).toMatchObject({ file: 'estimated.preferences.jsonl', promptBudget: { unit: 'estimated tokens', total } });
    for (const r of records) {
      // Within the budget as estimated, and the estimate is an upper bound of the model's own count.
      expect(estimateTokenCount(r.prompt) + ESTIMATE_PROMPT_MARGIN.text).toBeLessThanOrEqual(total);
      expect(await countPrompt(r.prompt)).toBeLessThanOrEqual(estimateTokenCount(r.prompt) + ESTIMATE_PROMPT_MARGIN.text);
    }
  });
});
