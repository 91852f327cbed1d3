/**
 * Utility labeling's prompt budget (issue 24 item 2) over a real workspace and the real llama.cpp
 * engine on the generated tiny model (context 512): in 'tokens' every prompt is counted as the
 * engine evaluates it (the beginning-of-sequence token) and kept within context − maxTokens by
 * shortening the document, never the question; 'paper-end' cuts the end by name; a question over
 * the budget fails naming the sizes and writes nothing; the report and each label say what was cut.
 * The long document is drawn at random from the tiny model's words (seed printed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UtilityLabelRequest as RequestSchema, type UtilityLabelReport } from '../../../src-main/api/contract/labeling';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import { createAppServices, type AppServices } from '../../../src-main/services/appServices';

const SEED = Number(process.env.SEED ?? Date.now() % 100_000);
console.log(`labelBudget seed ${SEED}`);
const WORDS = ['the', 'relevant', 'documents', 'rank', 'first', 'fair', 'exposure', 'for', 'every', 'group', 'query', 'answers', 'retrieval', 'people', 'world', 'work'];
function longText(seed: number, n: number): string {
  let s = seed >>> 0 || 1;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out.push(WORDS[s % WORDS.length]!);
  }
  return out.join(' ');
}

let dir: string;
let services: AppServices;
let modelId: number;
let collectionId: number;
const QUESTION = 'which group gets fair exposure in the world question';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-label-budget-'));
  const model = join(dir, 'tiny.gguf');
  await writeTinyGguf(model, { preset: 'tiny', seed: 7 });
  services = createAppServices(join(dir, 'w.fairground'), { transport: 'http' });
  services.settings.update({ threads: 1 });
  modelId = (await services.models.addHashed(model, 'tiny')).id;
  const repo = services.collections.repo;
  const c = repo.create('budget');
  repo.addDocuments(c.id, [
    { docId: 'long', title: 'Long', text: longText(SEED, 1500), attrs: {} },
    { docId: 'short', title: '', text: 'fair exposure for every group', attrs: {} },
  ]);
  repo.addQueries(c.id, [
    { queryId: 'q1', text: QUESTION, answers: ['fair exposure for every group'], task: 'toy', metric: 'rouge1', candidates: ['long', 'short'] },
    { queryId: 'huge', text: longText(SEED + 1, 800), answers: ['x'], task: 'toy', metric: 'rouge1', candidates: ['short'] },
  ]);
  collectionId = c.id;
});

afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

const request = (truncation: Record<string, unknown>, queryIds = ['q1']) =>
  RequestSchema.parse({ collectionId, generator: { kind: 'local', modelId }, rougeImpl: 'rouge-score', maxTokens: 12, minUseful: 1, queryIds, truncation });

async function label(req: ReturnType<typeof request>) {
  const job = await services.jobs.wait(services.labeling.start(req).id);
  return job;
}
const promptTokens = async (prompt: string) => (await services.models.engineFor({ kind: 'local', modelId }).tokenize({ texts: [prompt], asPrompt: 'text' })).counts[0]!;

describe('utility labeling within a token budget', () => {
  it('defaults to context − maxTokens, shortens the document, keeps the question, and reports it', async () => {
    const req = request({ unit: 'tokens' });
    const preview = await services.labeling.previewPrompts(req);
    expect(preview.augmentedDocId).toBe('long');
    const prompt = preview.augmentedPrompt!;
    // The question and the template's end are whole; the prompt fits 512 − 12 as the engine counts it, and is cut close to it.
    expect(prompt.endsWith(`\n\nQuestion: ${QUESTION}\nAnswer:`)).toBe(true);
    const n = await promptTokens(prompt);
    expect(n).toBeLessThanOrEqual(500);
    expect(n).toBeGreaterThan(480);
    const job = await label(req);
    expect(job.error).toBeNull();
    const report = job.result as UtilityLabelReport;
    expect(report.promptBudget).toMatchObject({
      unit: 'tokens',
      total: 500,
      origin: 'the context size 512 − maxTokens 12',
      truncate: 'documents',
      prompts: 3,
      promptsCut: 1,
      documentsCut: 1,
      documentsDropped: 0,
      queriesCut: 0,
    });
    expect(report.promptBudget!.counts).toContain('beginning-of-sequence');
    const judgments = services.collections.repo.judgmentsOf(collectionId, 'q1');
    const prov = (id: string) => judgments.find((j) => j.docId === id)!.provenance as Record<string, unknown>;
    expect(prov('long').promptCut).toEqual({ document: 'shortened', queryCut: false, endCut: false });
    expect(prov('short').promptCut).toBeUndefined();
    expect(prov('long').truncation).toMatchObject({ unit: 'tokens', total: 500, truncate: 'documents' });
  }, 120_000);

  it('lowers a total above the context and says so', async () => {
    const preview = await services.labeling.previewPrompts(request({ unit: 'tokens', total: 4000 }));
    expect(await promptTokens(preview.augmentedPrompt!)).toBeLessThanOrEqual(500);
    const job = await label(request({ unit: 'tokens', total: 4000 }));
    expect((job.result as UtilityLabelReport).promptBudget).toMatchObject({ total: 500, origin: 'the context size 512 − maxTokens 12 (truncation.total 4000 lowered to fit the context)' });
  }, 120_000);

  it("cuts the end (the question) only under 'paper-end', and reports it", async () => {
    const preview = await services.labeling.previewPrompts(request({ unit: 'tokens', truncate: 'paper-end' }));
    expect(preview.augmentedPrompt).not.toContain('Question:');
    expect(await promptTokens(preview.augmentedPrompt!)).toBeLessThanOrEqual(500);
    const job = await label(request({ unit: 'tokens', truncate: 'paper-end' }));
    expect((job.result as UtilityLabelReport).promptBudget).toMatchObject({ truncate: 'paper-end', promptsCut: 1, queriesCut: 1 });
  }, 120_000);

  it('in words, the default now shortens the document instead of the question (512 words)', async () => {
    const preview = await services.labeling.previewPrompts(request({ unit: 'words' }));
    expect(preview.augmentedPrompt!.endsWith(`Question: ${QUESTION}\nAnswer:`)).toBe(true);
    expect(preview.augmentedPrompt!.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(512);
    // The sync preview keeps working for words.
    expect(services.labeling.preview(request({ unit: 'words' })).augmentedPrompt).toBe(preview.augmentedPrompt);
  }, 60_000);

  it('a question over the budget fails naming the sizes and writes nothing', async () => {
    const before = services.collections.repo.judgmentsOf(collectionId, 'huge').length;
    const job = await label(request({ unit: 'tokens' }, ['huge']));
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(/query 'huge': the prompt without its documents takes \d+ tokens, more than the budget of 500 tokens \(the context size 512 − maxTokens 12\)/);
    expect(services.collections.repo.judgmentsOf(collectionId, 'huge').length).toBe(before);
  }, 60_000);
});
