/**
 * The NLI judge prompt within the judge's context (issue 24 item 2), on the real tiny GGUF: the
 * premise (a document) is cut as the judge's tokenizer counts, the hypothesis (the output) never;
 * unbudgeted and uncut, the prompt is exactly the one judged before (cache keys unchanged); a whole
 * run over the demo's long documents judges instead of failing on the context, and its stats and
 * manifest say how many premises were cut. Random premises are drawn with a printed seed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FairRagSpec } from '../../src-main/api/contract/fairRag';
import { ModelTokenCounter } from '../../src-main/core/prompts/index';
import { LocalEngine } from '../../src-main/engine/local/localEngine';
import { nliBudget, nliGenerateRequest, nliPrompt, nliPromptWithin, nliScoreRequest, nliTemplate } from '../../src-main/experiments/fair-rag/attribution';
import { prerenderJudgments, type JudgmentUnit } from '../../src-main/experiments/fair-rag/execute';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices } from '../../src-main/services/appServices';
import { DEMO_COLLECTION_NAME } from '../../src-main/services/collectionsDemo';
import { DEMO_MODEL_NAME } from '../../src-main/services/demoSetup';
import { runCliCaptured } from '../support/cli';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../engine/support/tinyModels';
import { makeDemoWorkspace, tinySpec } from './fixture';

const SEED = Number(process.env.SEED ?? Date.now() % 100_000);
console.log(`judgeBudget seed ${SEED}`);
function rand(seed: number) {
  let s = seed >>> 0 || 1;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
const WORDS = ['lighthouse', 'keeper', 'parrot', 'storm', 'the', 'said', 'a', '{{hypothesis}}', 'tells', 'of', '{{premise}}', 'and'];
const text = (r: () => number, n: number) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');

let models: TinyModels;
let engine: LocalEngine;
beforeAll(async () => {
  models = tinyModels();
  engine = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
}, 120_000);
afterAll(async () => {
  await engine?.close();
  models?.cleanup();
});

const counter = () =>
  new ModelTokenCounter((texts, maxTokens, asPrompt) => engine.tokenize({ texts, ...(maxTokens !== undefined ? { maxTokens } : {}), ...(asPrompt ? { asPrompt } : {}) }), undefined, 'text');
const attr = (over: Partial<FairRagSpec['attribution']> = {}) => ({ judge: 'nli-llm', format: 'yes-no', maxTokens: 6, ...over }) as FairRagSpec['attribution'];

describe('the NLI judge prompt within the judge context', () => {
  it('unbudgeted, it is exactly nliPrompt (random premises, placeholders inside them, both formats, a custom template)', () => {
    const r = rand(SEED);
    for (const a of [attr(), attr({ format: 'json' }), attr({ template: 'P={{ premise }} H={{hypothesis}} {{answer_format}}' })]) {
      const t = nliTemplate(a);
      for (let i = 0; i < 20; i++) {
        const premise = text(r, 1 + Math.floor(r() * 30));
        const hypothesis = text(r, 1 + Math.floor(r() * 10));
        expect(nliPromptWithin(t, premise, hypothesis, undefined)).toEqual({ prompt: nliPrompt(a, premise, hypothesis), premiseCut: null });
      }
    }
    expect(() => nliTemplate(attr({ template: '{{premise}} {{hypothesis}} {{other}}' }))).toThrow(/attribution.template: '\{\{other\}\}…' is not a placeholder/);
  });

  it('cuts a long premise to context − maxTokens as the engine counts, keeps the hypothesis whole, and the call runs', async () => {
    const r = rand(SEED + 1);
    const premise = text(r, 1200);
    const hypothesis = 'the parrot said storm';
    const a = attr();
    const tokens = counter();
    await tokens.probe();
    const budget = (await nliBudget(a, tokens))!;
    expect(budget).toMatchObject({ total: 512 - 6, origin: "the judge's context size 512 − attribution.maxTokens 6", truncate: 'documents' });
    const { prompt, premiseCut } = await tokens.settle(() => nliPromptWithin(nliTemplate(a), premise, hypothesis, budget));
    expect(premiseCut).toBe('shortened');
    expect(prompt.endsWith(`\nHypothesis: ${hypothesis}\n\nDoes the premise entail the hypothesis? Answer yes or no.\nAnswer:`)).toBe(true);
    const n = (await engine.tokenize({ texts: [prompt], asPrompt: 'text' })).counts[0]!;
    expect(n).toBeLessThanOrEqual(506);
    expect(n).toBeGreaterThan(490);
    const gen = await engine.generate(nliGenerateRequest(a, prompt));
    expect(gen.promptTokens).toBe(n);
    // Uncut, the same premise does not fit the context at all.
    await expect(engine.generate(nliGenerateRequest(a, nliPrompt(a, premise, hypothesis)))).rejects.toThrow(/context/);
    // With a threshold the reserve is the longer scored answer, and scoring fits.
    const t = attr({ threshold: 0.5 });
    const tb = (await nliBudget(t, tokens))!;
    const longer = Math.max(...(await engine.tokenize({ texts: [' yes', ' no'] })).counts);
    expect(tb.total).toBe(512 - longer);
    const scored = await tokens.settle(() => nliPromptWithin(nliTemplate(t), premise, hypothesis, tb));
    expect((await engine.score(nliScoreRequest(t, scored.prompt))).scores).toHaveLength(2);
  }, 120_000);
});

describe('judgments counted in batches (issue 25: one tokenizer request per judgment before)', () => {
  it('a chunk of random judgments settles in a few tokenizer requests, and each prompt then equals the one rendered alone', async () => {
    const r = rand(SEED + 2);
    const a = attr();
    const template = nliTemplate(a);
    // Premises from a few words to far over the context (512 tokens), outputs short, one empty.
    const units: JudgmentUnit[] = Array.from({ length: 40 }, (_, i) => ({
      key: `u${i}`,
      queryId: 'q',
      docId: `d${i}`,
      premise: text(r, 1 + Math.floor(r() * (i % 4 === 0 ? 1500 : 60))),
      output: i === 7 ? '  ' : text(r, 1 + Math.floor(r() * 12)),
      outputHash: `h${i}`,
    }));
    const batched = counter();
    await batched.probe();
    const budget = (await nliBudget(a, batched))!;
    const before = batched.requests;
    await batched.settle(() => prerenderJudgments(units, { template, tokens: batched, budget }));
    const batchRequests = batched.requests - before;
    expect(batchRequests).toBeGreaterThan(0);
    const settled = batched.requests;
    // The budget counts with the counter it was made with: one alone, its own budget.
    const alone = counter();
    await alone.probe();
    const aloneBudget = (await nliBudget(a, alone))!;
    expect([aloneBudget.total, aloneBudget.counter]).toEqual([budget.total, alone]);
    let cut = 0;
    for (const u of units.filter((x) => x.output.trim() !== '')) {
      const got = await batched.settleInTurn(() => nliPromptWithin(template, u.premise, u.output, budget));
      const want = await alone.settle(() => nliPromptWithin(template, u.premise, u.output, aloneBudget));
      expect(got).toEqual(want);
      if (got.premiseCut !== null) cut++;
    }
    // Rendering each judgment after the batch asked the tokenizer nothing more.
    expect(batched.requests).toBe(settled);
    // One at a time, each judgment took a request or more; batched, the uncut ones shared theirs
    // (a cut premise asks for its own cut length, one request per distinct length and pass).
    const uncut = units.length - 1 - cut;
    console.log(`judgments: ${units.length - 1} (${cut} cut); tokenizer requests batched ${batchRequests}, one at a time ${alone.requests}`);
    expect(cut).toBeGreaterThan(0);
    expect(uncut).toBeGreaterThan(10);
    expect(alone.requests).toBeGreaterThanOrEqual(units.length - 1);
    expect(batchRequests).toBeLessThanOrEqual(alone.requests - uncut + 4);
  }, 120_000);
});

describe('a whole run judges the long demo documents', () => {
  let dir: string;
  let ws: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'fg-judge-budget-'));
    ws = await makeDemoWorkspace(dir);
  }, 240_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs, and its stats and manifest say how many premises were cut', async () => {
    const file = join(dir, 'judge.json');
    // The demo documents are short: each is made 64 times as long, so every premise is far over the context (512).
    const setup = createAppServices(ws, { transport: 'http' });
    try {
      const c = setup.collections.repo.list().find((x) => x.name === DEMO_COLLECTION_NAME)!;
      for (let i = 0; i < 6; i++) setup.workspace.db.prepare(`UPDATE documents SET text = text || ' ' || text WHERE collection_id = ?`).run(c.id);
      setup.collections.repo.refreshContentHash(c.id);
    } finally {
      await setup.close();
    }
    const template = 'Premise: {{premise}}\nHypothesis: {{hypothesis}}\n{{answer_format}}\nAnswer:';
    writeFileSync(file, JSON.stringify(tinySpec({ name: 'judge-long', queries: ['tag-u1'], alphas: [0], samples: 1, k: 2, attribution: { judge: 'nli-llm', format: 'yes-no', maxTokens: 4, template } })));
    const r = await runCliCaptured(['run', file, '--workspace', ws], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    const s = createAppServices(ws, { transport: 'http' });
    try {
      const runId = (s.workspace.db.prepare(`SELECT r.id FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE e.name = 'judge-long'`).get() as { id: number }).id;
      const got = await createApiRouter(s).call('runs.get', { runId });
      if (!got.ok) throw new Error(got.error.message);
      const { stats, manifest } = got.data as { stats: Record<string, unknown>; manifest: { parameters: { attribution: Record<string, unknown> } } };
      const judged = s.workspace.db.prepare(`SELECT json_extract(i.payload, '$.premiseCut') AS c, json_extract(i.payload, '$.prompt') AS p FROM run_items i WHERE i.run_id = ? AND i.key LIKE '["j",%'`).all(runId) as { c: string | null; p: string | null }[];
      const calls = judged.filter((j) => j.p !== null);
      expect(calls.length).toBeGreaterThan(0);
      const cut = calls.filter((j) => j.c === 'shortened').length;
      expect(cut).toBe(calls.length);
      const engine = s.models.engineFor({ kind: 'local', modelId: s.models.models.getByName(DEMO_MODEL_NAME)!.id });
      const counts = (await engine.tokenize({ texts: calls.map((c) => c.p!), asPrompt: 'text' })).counts;
      for (const n of counts) expect(n).toBeLessThanOrEqual(508);
      for (const c of calls) expect(c.p).toMatch(/\nHypothesis: [^]*\nAnswer yes or no\.\nAnswer:$/);
      const budget = { unit: 'tokens', total: 508, origin: "the judge's context size 512 − attribution.maxTokens 4", premisesShortened: cut, premisesLeftOut: 0 };
      expect(stats.judgeBudget).toMatchObject(budget);
      expect(manifest.parameters.attribution.promptBudget).toMatchObject(budget);
    } finally {
      await s.close();
    }
  }, 400_000);
});
