/**
 * Prompt budgets through whole Fair RAG runs on the tiny model (issue 16 item 8, issue 24 item 2):
 * - a budget in the generator's own tokens counts every token the engine evaluates (the
 *   beginning-of-sequence token included): every stored prompt fits, while the same budget in
 *   words lets the prompts run longer; the released code's cut of the prompt's end is there by name;
 * - with no budget in the spec, prompts far longer than the model's context (512) are cut to what
 *   the context leaves (512 − maxTokens), documents from the end of the ranking, the question
 *   whole; the run succeeds, and its manifest and metrics say what was cut.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FairRagMetrics } from '../../src-main/api/contract/fairRag';
import type { Router } from '../../src-main/api/router';
import { createApiRouter } from '../../src-main/handlers/index';
import { createAppServices } from '../../src-main/services/appServices';
import { DEMO_MODEL_NAME } from '../../src-main/services/demoSetup';
import { runCliCaptured } from '../support/cli';
import { makeDemoWorkspace, tinySpec } from './fixture';

let dir: string;
let ws: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fg-token-budget-'));
  ws = await makeDemoWorkspace(dir);
}, 240_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = async (name: string, over: Record<string, unknown>) => {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(tinySpec({ name, alphas: [0], samples: 3, ...over })));
  return runCliCaptured(['run', file, '--workspace', ws], { cwd: dir });
};

async function withServices<T>(fn: (s: ReturnType<typeof createAppServices>, router: Router) => Promise<T>): Promise<T> {
  const s = createAppServices(ws, { transport: 'http' });
  try {
    return await fn(s, createApiRouter(s));
  } finally {
    await s.close();
  }
}

const promptsOf = (s: ReturnType<typeof createAppServices>, name: string) =>
  (s.workspace.db.prepare(`SELECT json_extract(i.payload, '$.prompt') AS p FROM run_items i JOIN runs r ON r.id = i.run_id JOIN experiments e ON e.id = r.experiment_id WHERE e.name = ? AND i.key LIKE '["g",%'`).all(name) as { p: string }[]).map((r) => r.p);

describe('prompt budget in the generator tokens', () => {
  it('renders every prompt within the budget as the model counts it (paper-end: the end is cut, by name)', async () => {
    const total = 40;
    for (const [unit, name] of [
      ['tokens', 'by-tokens'],
      ['words', 'by-words'],
    ] as const) {
      const r = await run(name, { promptBudget: { unit, total, truncate: 'paper-end' } });
      expect(r.code, r.stderr).toBe(0);
    }
    await withServices(async (s) => {
      const engine = s.models.engineFor({ kind: 'local', modelId: s.models.models.getByName(DEMO_MODEL_NAME)!.id });
      const byTokens = promptsOf(s, 'by-tokens');
      const byWords = promptsOf(s, 'by-words');
      expect(byTokens.length).toBeGreaterThan(0);
      // Every token the engine evaluates, the beginning-of-sequence token included.
      const countsT = (await engine.tokenize({ texts: byTokens, asPrompt: 'text' })).counts;
      const countsW = (await engine.tokenize({ texts: byWords })).counts;
      for (const n of countsT) expect(n).toBeLessThanOrEqual(total);
      expect(Math.max(...countsT)).toBeGreaterThanOrEqual(total - 2);
      // 40 words are more than 40 of the tiny model's tokens: the word budget overshoots.
      expect(Math.max(...countsW)).toBeGreaterThan(total);
    });
  }, 300_000);

  it('by default, the question is never cut: a question longer than the budget fails the run naming the sizes', async () => {
    const r = await run('question-too-long', { promptBudget: { unit: 'tokens', total: 40 } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/the prompt without its documents takes \d+ tokens, more than the budget of 40 tokens \(promptBudget.total\)/);
  }, 300_000);

  it('no budget: prompts longer than the context are cut to context − maxTokens, documents first, and the run says so', async () => {
    // Each document's item repeated 12 times: three items of the top 3 are well over the 512-token context.
    const long = `{{#documents separator=", and "}}${'{{text}} '.repeat(12)}{{/documents}}. {{query}}`;
    const r = await run('long-documents', { promptTemplate: long, decoding: { maxTokens: 8 } });
    expect(r.code, r.stderr).toBe(0);
    await withServices(async (s, router) => {
      const engine = s.models.engineFor({ kind: 'local', modelId: s.models.models.getByName(DEMO_MODEL_NAME)!.id });
      const prompts = promptsOf(s, 'long-documents');
      expect(prompts.length).toBeGreaterThan(0);
      const counts = (await engine.tokenize({ texts: prompts, asPrompt: 'text' })).counts;
      for (const n of counts) expect(n).toBeLessThanOrEqual(512 - 8);
      expect(Math.max(...counts)).toBeGreaterThan(480);
      // The question is whole at the end of every prompt.
      const queries = readFileSync(join(__dirname, '../../resources/demo/queries.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { id: string; text: string })
        .filter((q) => q.id === 'tag-u1' || q.id === 'head-u2');
      expect(queries).toHaveLength(2);
      for (const p of prompts) expect(queries.some((q) => p.endsWith(`. ${q.text}`))).toBe(true);

      const runId = (s.workspace.db.prepare(`SELECT r.id FROM runs r JOIN experiments e ON e.id = r.experiment_id WHERE e.name = 'long-documents'`).get() as { id: number }).id;
      const got = await router.call('runs.get', { runId });
      if (!got.ok) throw new Error(got.error.message);
      const { stats, manifest } = got.data as { stats: Record<string, unknown>; manifest: { parameters: Record<string, unknown> } };
      const budget = { unit: 'tokens', total: 504, origin: 'the context size 512 − maxTokens 8', truncate: 'documents', queriesCut: 0 };
      expect(stats.promptBudget).toMatchObject(budget);
      expect(manifest.parameters.promptBudget).toMatchObject(budget);
      expect((stats.promptBudget as { promptsCut: number }).promptsCut).toBe(prompts.length);
      const metrics = await router.call('runs.metrics', { runId });
      if (!metrics.ok) throw new Error(metrics.error.message);
      expect((metrics.data as FairRagMetrics).warnings.join('\n')).toMatch(new RegExp(`the prompt budget cut ${prompts.length} of ${prompts.length} prompts: \\d+ documents shortened, \\d+ left out \\(from the end of the ranking\\)`));
    });
  }, 300_000);
});
