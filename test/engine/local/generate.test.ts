import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { EngineError, type GenerateRequest } from '../../../src-main/engine/types';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../support/tinyModels';

let models: TinyModels;
let engine: LocalEngine;

const greedy = (prompt: string, maxTokens = 24): GenerateRequest => ({ prompt, maxTokens, sampling: { temperature: 0 } });

beforeAll(async () => {
  models = tinyModels();
  engine = new LocalEngine({ modelPath: await models.model(1), settings: TEST_SETTINGS });
  await engine.load();
});
afterAll(async () => {
  await engine?.close();
  models?.cleanup();
});

describe('LocalEngine.generate', () => {
  it('is greedy and identical across runs and across processes', async () => {
    const first = await engine.generate(greedy('The answer to the question is'));
    expect(first.finishReason).toBe('length'); // the tiny model never emits end-of-generation greedily
    expect(first.completionTokens).toBe(24);
    expect(first.promptTokens).toBeGreaterThan(3);
    expect(first.text.length).toBeGreaterThan(10);
    expect(await engine.generate(greedy('The answer to the question is'))).toEqual(first);

    const other = new LocalEngine({ modelPath: await models.model(1), settings: { ...TEST_SETTINGS, sequences: 1 } });
    try {
      await other.load();
      expect(other.workerPid).not.toBe(engine.workerPid);
      expect(await other.generate(greedy('The answer to the question is'))).toEqual(first);
    } finally {
      await other.close();
    }
  });

  it('gives the same greedy text when generations run in parallel sequences', async () => {
    const prompts = ['Is this document relevant?', 'Rank the passages:'];
    const sequential = [];
    for (const p of prompts) sequential.push(await engine.generate(greedy(p)));
    const parallel = await Promise.all(prompts.map((p) => engine.generate(greedy(p))));
    expect(parallel).toEqual(sequential);
  });

  it("keeps the first token's leading space, so prompt + text reads as the model wrote it", async () => {
    // With this seed the first greedy token after the prompt is a word-initial piece ("▁that").
    expect((await engine.generate(greedy('The answer is', 1))).text).toMatch(/^ \S+$/);
  });

  it('clears history between unrelated prompts (a prompt answers the same after another one)', async () => {
    const alone = await engine.generate(greedy('query: fair ranking'));
    await engine.generate(greedy('something else entirely, longer than the first one'));
    expect(await engine.generate(greedy('query: fair ranking'))).toEqual(alone);
  });

  it('repeats a sampled generation with the same seed and varies with another', async () => {
    const sampled = (seed: number): GenerateRequest => ({ prompt: 'Once upon a time', maxTokens: 24, sampling: { temperature: 1, seed } });
    const a = await engine.generate(sampled(7));
    expect(await engine.generate(sampled(7))).toEqual(a);
    expect((await engine.generate(sampled(8))).text).not.toBe(a.text);
  });

  it('renders chat messages with the model chat template', async () => {
    const messages = [
      { role: 'system' as const, content: 'Answer briefly.' },
      { role: 'user' as const, content: 'Which document is relevant?' },
    ];
    const res = await engine.generate({ messages, maxTokens: 12, sampling: { temperature: 0 } });
    expect(res.completionTokens).toBe(12);
    // ChatML markers and role names add tokens beyond the two contents.
    const plain = await engine.generate({ prompt: 'Answer briefly.Which document is relevant?', maxTokens: 1, sampling: { temperature: 0 } });
    expect(res.promptTokens).toBeGreaterThan(plain.promptTokens + 6);
    expect(await engine.generate({ messages, maxTokens: 12, sampling: { temperature: 0 } })).toEqual(res);
  });

  it('stops at a stop string and leaves it out', async () => {
    const full = await engine.generate(greedy('The retrieval system', 40));
    const words = full.text.split(' ').filter((w) => w.length >= 3);
    const stop = words[Math.floor(words.length / 2)] as string;
    const cut = await engine.generate({ ...greedy('The retrieval system', 40), stop: [stop] });
    expect(cut.finishReason).toBe('stopString');
    expect(cut.text).toBe(full.text.slice(0, full.text.indexOf(stop)));
  });

  it('always produces JSON that parses under a JSON-schema constraint', async () => {
    const schema = {
      type: 'object',
      properties: { label: { enum: ['relevant', 'irrelevant'] }, ok: { type: 'boolean' }, ids: { type: 'array', items: { enum: ['d1', 'd2', 'd3'] }, maxItems: 3 } },
      required: ['label', 'ok', 'ids'],
    };
    const prompts = ['Judge the document.', 'JSON:', 'Is passage 3 relevant to the query about fair ranking?'];
    for (const [i, prompt] of prompts.entries()) {
      for (const sampling of [{ temperature: 0 }, { temperature: 1, seed: i }]) {
        const res = await engine.generate({ prompt, maxTokens: 120, sampling, jsonSchema: schema });
        expect(res.finishReason).toBe('stop');
        const parsed = JSON.parse(res.text) as { label: string; ok: boolean; ids: string[] };
        expect(['relevant', 'irrelevant']).toContain(parsed.label);
        expect(typeof parsed.ok).toBe('boolean');
        for (const id of parsed.ids) expect(['d1', 'd2', 'd3']).toContain(id);
      }
    }
  });

  it('follows a GBNF grammar', async () => {
    for (const seed of [1, 2, 3]) {
      const res = await engine.generate({ prompt: 'Relevant?', maxTokens: 8, sampling: { temperature: 1, seed }, grammar: 'root ::= "yes" | "no"' });
      expect(['yes', 'no']).toContain(res.text);
    }
  });

  it('handles any UTF-8 through byte fallback', async () => {
    const res = await engine.generate(greedy('Ünïcødé — 中文 🙂', 4));
    expect(res.promptTokens).toBeGreaterThan(15); // the non-ASCII characters became byte tokens
    expect(res.completionTokens).toBe(4);
  });

  it('stops a long generation when cancelled, returning the text so far with finishReason aborted', async () => {
    const full = await engine.generate(greedy('Once', 480));
    const controller = new AbortController();
    const started = Date.now();
    const pending = engine.generate(greedy('Once', 480), controller.signal);
    setTimeout(() => controller.abort(), 60);
    const res = await pending;
    expect(res.finishReason).toBe('aborted');
    expect(res.completionTokens).toBeLessThan(480);
    expect(full.text.startsWith(res.text)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
    // The engine keeps serving after a cancel.
    expect((await engine.generate(greedy('Once', 8))).completionTokens).toBe(8);
  });

  it('refuses bad requests with EngineError bad-request', async () => {
    const bad = async (req: GenerateRequest): Promise<EngineError> => (await engine.generate(req).then(() => undefined, (e: unknown) => e)) as EngineError;
    expect((await bad({ prompt: 'x', maxTokens: 4, sampling: { temperature: 0.7 } })).code).toBe('bad-request'); // sampled without a seed
    expect((await bad({ prompt: 'x', messages: [], maxTokens: 4, sampling: { temperature: 0 } })).code).toBe('bad-request');
    const tooLong = await bad(greedy('word '.repeat(300), 400));
    expect(tooLong).toBeInstanceOf(EngineError);
    expect(tooLong.code).toBe('bad-request');
    expect(tooLong.message).toMatch(/exceeds the context size \(512 tokens\)/);
    const badGrammar = await bad({ ...greedy('x'), grammar: 'root ::= (' });
    expect(badGrammar.code).toBe('bad-request');
  });
});
