/**
 * MoI's prompts within the contexts (issue 24 item 2), on the real tiny GGUF (context 512): prompts
 * that fit stay as they are; passages too long for the longest ordering are cut once per query to one
 * common cap that every ordering shares (each scoring request and final-answer prompt then fits, and
 * the engine scores the longest one); a query that cannot fit even at the least MoI allows is refused
 * naming the query, the ordering and the numbers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MoiPromptLayout } from '../../../src-main/api/contract/moi';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { estimateTokenize } from '../../../src-main/engine/tokenBudget';
import type { PassageDoc } from '../../../src-main/experiments/moi/data';
import { budgetSide, fitMoiQuery, type MoiFitInput } from '../../../src-main/experiments/moi/promptBudget';
import { PromptLayout } from '../../../src-main/experiments/moi/promptLayout';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../../engine/support/tinyModels';

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

const LONG = (seed: string, n: number) => Array.from({ length: n }, (_, i) => `${seed} ${i} keeps the light.`).join(' ');
const passage = (id: string, text: string): PassageDoc => ({ id, docId: id, title: id.toUpperCase(), text, attrs: {}, retrieverScore: null, gold: null });
const QUERY = 'Who keeps the light?';
const layout = new PromptLayout(MoiPromptLayout.parse({}));
const ORDERS = [
  [0, 1, 2],
  [1, 2, 0],
  [2, 0, 1],
];

async function input(passages: PassageDoc[], over: Partial<MoiFitInput> = {}): Promise<MoiFitInput> {
  const tokenize = (r: Parameters<LocalEngine['tokenize']>[0]) => engine.tokenize(r);
  return {
    queryId: 'q7',
    query: QUERY,
    passages,
    scoringOrders: ORDERS,
    generationOrders: [[0, 1, 2], [2, 1, 0]],
    layout,
    agent: await budgetSide(tokenize, false),
    generator: await budgetSide(tokenize, false),
    maxTokens: 16,
    chat: false,
    minPassageTokens: 32,
    ...over,
  };
}

const scoringSize = async (passages: readonly PassageDoc[], order: readonly number[]) => {
  const s = layout.scoring(
    order.map((i) => passages[i]!),
    QUERY,
  );
  const prompt = (await engine.tokenize({ texts: [s.prompt], asPrompt: 'text' })).counts[0]!;
  return prompt + (await engine.tokenize({ texts: [s.continuation] })).counts[0]!;
};

describe('MoI prompts within the context (tiny model, context 512)', () => {
  it('prompts that fit are left as they are', async () => {
    const passages = [passage('a', 'Short one.'), passage('b', 'Short two.'), passage('c', 'Short three.')];
    const fit = await fitMoiQuery(await input(passages));
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    expect(fit.cap).toBeNull();
    expect(fit.passages).toEqual(passages);
    expect(fit.scoringTokens).toBe(Math.max(...(await Promise.all(ORDERS.map((o) => scoringSize(passages, o))))));
  }, 120_000);

  it('long passages are cut once, to one cap for every ordering; every request then fits and the longest is scored', async () => {
    const passages = [passage('a', LONG('alpha', 40)), passage('b', 'A short one.'), passage('c', LONG('gamma', 40))];
    expect(await scoringSize(passages, [0, 1, 2])).toBeGreaterThan(512);
    const fit = await fitMoiQuery(await input(passages));
    expect(fit.ok).toBe(true);
    if (!fit.ok) return;
    expect(fit.cap).not.toBeNull();
    expect(fit.passagesCut).toBe(2);
    expect(fit.passages[1]).toEqual(passages[1]); // the short passage is whole
    for (const i of [0, 2]) {
      expect(passages[i]!.text.startsWith(fit.passages[i]!.text)).toBe(true);
      expect((await engine.tokenize({ texts: [fit.passages[i]!.text] })).counts[0]).toBe(fit.cap);
    }
    const sizes = await Promise.all(ORDERS.map((o) => scoringSize(fit.passages, o)));
    for (const n of sizes) expect(n).toBeLessThanOrEqual(512);
    expect(Math.max(...sizes)).toBe(fit.scoringTokens);
    expect(fit.scoringTokens).toBeGreaterThan(480); // cut only as far as needed
    const gen = (await engine.tokenize({ texts: [layout.generationPrompt(fit.passages, QUERY)], asPrompt: 'text' })).counts[0]!;
    expect(gen + 16).toBeLessThanOrEqual(512);
    // The engine scores the longest ordering without a context error.
    const worst = ORDERS[sizes.indexOf(Math.max(...sizes))]!;
    const s = layout.scoring(
      worst.map((i) => fit.passages[i]!),
      QUERY,
    );
    const scored = await engine.score({ prompt: s.prompt, continuations: [s.continuation] });
    expect(scored.scores[0]!.logprobs.length).toBeGreaterThan(400);
  }, 180_000);

  it('a query that cannot fit at the least MoI allows is refused, naming the query, the ordering and the numbers', async () => {
    const passages = [passage('a', LONG('alpha', 60)), passage('b', LONG('beta', 60)), passage('c', LONG('gamma', 60))];
    const fit = await fitMoiQuery(await input(passages, { minPassageTokens: 200 }));
    expect(fit.ok).toBe(false);
    if (fit.ok) return;
    expect(fit.reason).toMatch(
      /^query 'q7': with every passage cut to 200 tokens \(promptBudget\.minPassageTokens, the least MoI lets a passage keep\) its longest scoring request \(ordering \d,\d,\d\) is (\d+) tokens \((\d+) uncut\) and the agent's context holds 512/,
    );
    const [, atFloor] = /is (\d+) tokens/.exec(fit.reason)!;
    expect(Number(atFloor)).toBeGreaterThan(600); // 3 × 200 passage tokens alone
    expect(fit.reason).toContain("the generator's context 512 leaves 493 after decoding.maxTokens 16 and 3 seam tokens");
  }, 180_000);

  it('an estimated count (no tokenizer) is said so in the refusal', async () => {
    const estimate = (r: Parameters<LocalEngine['tokenize']>[0]) => Promise.resolve(estimateTokenize(r, 'test: no /tokenize', 512));
    const passages = [passage('a', LONG('alpha', 60)), passage('b', LONG('beta', 60)), passage('c', LONG('gamma', 60))];
    const side = await budgetSide(estimate, false);
    expect(side).toMatchObject({ contextSize: 512, estimated: true });
    const fit = await fitMoiQuery(await input(passages, { agent: side, generator: side, minPassageTokens: 200 }));
    expect(fit.ok).toBe(false);
    if (!fit.ok) expect(fit.reason).toContain('(counted by an estimate: no tokenizer answered)');
  }, 60_000);
});
