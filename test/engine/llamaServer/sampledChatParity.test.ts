/**
 * Issue 24 item 2 for the calls the greedy replay (llamaServer.test.ts) does not reach on its own:
 * sampled generation and chat messages, the local engine (node-llama-cpp) against a real
 * llama-server built from the same llama.cpp source, on the tiny F16 GGUF.
 *
 * - Sampled: both sides are llama.cpp's samplers; node-llama-cpp runs [top-k 40, top-p 0.95,
 *   min-p when > 0, temperature, dist(seed)] and the server, told nothing, runs its own longer chain
 *   with other defaults. The remote engine now names the local chain and every value
 *   (generateRequestBody.ts, llamaCppSampledChain): with the same seed the draws are identical, for
 *   several chains, with and without a grammar (both reject-and-resample a refused token alike).
 *   Control: the same requests without the chain (the server's defaults) differ, so the test can fail.
 * - Chat: the tokens the server's chat route evaluates (its template through POST /apply-template,
 *   tokenized as the route does: one text, special-token text parsed) equal the local engine's
 *   (node-llama-cpp's chat wrapper, its context tokenized as one text: worker/generate.ts,
 *   wholeTextChatWrapper); node-llama-cpp's own piecewise tokenization differs (a space-prefix token
 *   before a message that starts with a newline). Greedy and sampled chat texts are then the same
 *   tokens, but node-llama-cpp's LlamaChat drops the first token's leading space and the server keeps
 *   it: the test counts both and asserts no other difference.
 *
 * Prompts and seeds are drawn at random; FAIRGROUND_TEST_SEED repeats a run.
 */
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { getLlama, LlamaLogLevel, resolveChatWrapper, type ChatHistoryItem } from 'node-llama-cpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRng } from '../../../src-main/core/random/rng';
import { writeTinyGguf } from '../../../src-main/engine/gguf/tinyModel';
import { LocalEngine } from '../../../src-main/engine/local/localEngine';
import { wholeTextChatWrapper } from '../../../src-main/engine/local/worker/generate';
import { buildGenerateCall } from '../../../src-main/engine/remote/generateRequestBody';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import type { ChatMessage, GenerateRequest, GenerateResult, SamplingOptions } from '../../../src-main/engine/types';
import { llamaServerSkip, startLlamaServer, type LlamaServer } from '../../support/llamaServer';
import { TEST_SETTINGS, tinyModels, type TinyModels } from '../support/tinyModels';

const SEED = Number(process.env.FAIRGROUND_TEST_SEED ?? randomInt(1, 2 ** 31));
console.log(`sampledChatParity: seed ${SEED} (FAIRGROUND_TEST_SEED=${SEED} repeats it)`);

const WORDS = ['the', 'lamp', 'question', 'answer', 'documents', 'heatwave', 'town', 'water', 'telescope', 'fair', 'ranking', 'of', 'a', 'is', 'and', 'which', 'cover', 'aspect', 'Next', 'id:', 'Chosen:', '[D1]', '\n', 'Answer:'];
const ALIAS = 'sampled-chat-parity';

let models: TinyModels;
let modelPath: string;
let server: LlamaServer;
let local: LocalEngine;
let remote: RemoteEngine;

function prompts(rng: ReturnType<typeof createRng>, count: number): string[] {
  return Array.from({ length: count }, () => Array.from({ length: 3 + rng.nextInt(30) }, () => WORDS[rng.nextInt(WORDS.length)]!).join(' '));
}

/** Characters two texts share from their start. */
const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};
/** A divergence counts as late (a rounding tie, not another chain) after this many identical characters. */
const LATE_PREFIX = 40;

const finish = (r: GenerateResult) => (r.finishReason === 'stopString' ? 'stop' : r.finishReason);
const same = (a: GenerateResult, b: GenerateResult) => a.text === b.text && finish(a) === finish(b);

/** The request as the remote engine sends it, less the sampler chain: what the server does with its own defaults. */
async function serverDefaults(request: GenerateRequest): Promise<string> {
  const origin = `http://127.0.0.1:${server.port}`;
  const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
    const res = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as Record<string, unknown>;
  };
  const promptTokens = (await post('/tokenize', { content: request.prompt, add_special: true, parse_special: false })).tokens as number[];
  const call = buildGenerateCall(request, { model: ALIAS, serverKind: 'llama.cpp', jsonSchemaTransport: 'gbnf' }, { promptTokens });
  const { samplers: _s, top_k: _k, top_p: _p, min_p: _m, min_keep: _mk, ...body } = call.body;
  const json = (await post(`/v1${call.path}`, body)) as { choices: Array<{ text: string }> };
  return json.choices[0]!.text;
}

describe.skipIf(llamaServerSkip !== undefined)('sampled and chat calls: node-llama-cpp and llama-server on the same GGUF', () => {
  beforeAll(async () => {
    models = tinyModels();
    modelPath = join(models.dir, 'tiny.gguf');
    await writeTinyGguf(modelPath, { preset: 'tiny', seed: 1 });
    server = await startLlamaServer(modelPath, { alias: ALIAS });
    local = new LocalEngine({ modelPath, settings: { ...TEST_SETTINGS, sequences: 1 } });
    await local.load();
    remote = new RemoteEngine({ baseUrl: server.baseUrl, model: ALIAS, serverKind: 'llama.cpp', jsonSchemaTransport: 'gbnf', maxConcurrency: 1 });
  }, 300_000);

  afterAll(async () => {
    await Promise.all([local?.close(), remote?.close(), server?.stop()]);
    models?.cleanup();
  });

  it('sampled with the same seed: identical texts for every chain (node-llama-cpp defaults, whole-vocabulary top-k, top-p off, min-p, a grammar); the server\'s default chain differs', async () => {
    const rng = createRng(`${SEED}:sampled`);
    const chains: Array<[string, Omit<SamplingOptions, 'seed'>, Partial<GenerateRequest>]> = [
      ['T=1 (node-llama-cpp defaults)', { temperature: 1 }, {}],
      ['T=0.7, top-k 0 (whole vocabulary)', { temperature: 0.7, topK: 0 }, {}],
      ['T=1.5, top-k 100, top-p 1', { temperature: 1.5, topK: 100, topP: 1 }, {}],
      ['T=1, top-k 20, top-p 0.8, min-p 0.05', { temperature: 1, topK: 20, topP: 0.8, minP: 0.05 }, {}],
      ['T=1 with a grammar', { temperature: 1 }, { grammar: 'root ::= ("D" [1-9] " ")+ "end"' }],
      ['T=1.2 with a JSON schema', { temperature: 1.2 }, { jsonSchema: { type: 'object', properties: { entails: { type: 'boolean' }, why: { type: 'string' } }, required: ['entails', 'why'] } }],
    ];
    const counts: Record<string, { same: number; total: number; defaultsSame: number }> = {};
    const differing: string[] = [];
    let early = 0;
    for (const [name, sampling, extra] of chains) {
      const c = (counts[name] = { same: 0, total: 0, defaultsSame: 0 });
      for (const prompt of prompts(rng, 8)) {
        const request: GenerateRequest = { prompt, maxTokens: 24, sampling: { ...sampling, seed: rng.nextUint32() }, ...extra };
        const [l, r] = [await local.generate(request), await remote.generate(request)];
        c.total++;
        if (same(l, r)) c.same++;
        else differing.push(`${name}, seed ${request.sampling.seed}: local ${JSON.stringify(l.text)}, server ${JSON.stringify(r.text)}`);
        if (!same(l, r) && commonPrefix(l.text, r.text) < LATE_PREFIX) early++;
        if (extra.jsonSchema === undefined && (await serverDefaults(request)) === l.text) c.defaultsSame++;
      }
    }
    console.log(`sampled parity (identical texts; with the server's default chain): ${Object.entries(counts).map(([k, v]) => `${k} ${v.same}/${v.total} (${v.defaultsSame})`).join('; ')}`);
    // The two sides' logits agree to the last bits only up to their batch splits (the server decodes the
    // prompt in its own batches), so a draw landing within rounding of a cumulative-probability boundary can
    // take the neighbouring token: seen in one CI run after 20 identical tokens (seed 3554631721), and on
    // re-running that seed in another chain (not reproducible: the tie depends on the evaluation). Up to 3
    // such divergences in the 48 draws are allowed. A tie can fall on the first token too: seed 2098669766
    // (deterministic for that seed), the top-k 20 / top-p 0.8 / min-p 0.05 chain's first draw of one text of 8
    // took another token on each side, where top-p's cumulative cut-off falls among near-equal probabilities
    // (random weights); the other 47 draws were identical. So at most one divergence may come early; a wrong
    // chain differs from the first tokens on in many draws (the control below: the server's default chain
    // matches almost none).
    expect(differing.length, differing.join('\n')).toBeLessThanOrEqual(3);
    expect(early, differing.join('\n')).toBeLessThanOrEqual(1);
    // Without the chain spelled out the server draws other tokens (the test can fail).
    const free = Object.entries(counts).filter(([k]) => !k.includes('JSON'));
    expect(free.reduce((n, [, v]) => n + v.total - v.defaultsSame, 0)).toBeGreaterThan(0);
  }, 600_000);

  it('chat: the server\'s template and tokenization give the tokens node-llama-cpp\'s chat wrapper evaluates, and greedy and sampled chat texts are identical', async () => {
    const rng = createRng(`${SEED}:chat`);
    const texts = prompts(rng, 12);
    const conversations: ChatMessage[][] = [
      [{ role: 'user', content: 'Premise: a lamp. Hypothesis: a light.' }],
      [{ role: 'system', content: 'You are fair.' }, { role: 'user', content: 'Rank the passages:\n[D1] a\n[D2] b' }],
      [{ role: 'user', content: ' leading space and trailing ' }],
      [{ role: 'user', content: 'q' }, { role: 'assistant', content: 'a' }, { role: 'user', content: 'again?' }],
      // A message starting with a newline: node-llama-cpp's own tokenization puts a space-prefix token before it.
      [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: '\nQuestion: which lamp?\n\nAnswer:' }],
      ...texts.map((content, i): ChatMessage[] => (i % 3 === 0 ? [{ role: 'system', content: texts[(i + 1) % texts.length]! }, { role: 'user', content }] : [{ role: 'user', content }])),
    ];
    // The tokens on each side: node-llama-cpp's chat wrapper (what LlamaChat evaluates) and the server's chat route
    // (its template, POST /apply-template, tokenized with the beginning token and special-token text parsed).
    const llama = await getLlama({ gpu: false, maxThreads: 1, build: 'never', logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath });
    // One retry: the server may close a kept-alive connection while the model above loads ("other side closed").
    const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const once = async () => (await (await fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as Record<string, unknown>;
      return once().catch(once);
    };
    const tokenDiffs: string[] = [];
    let ownDiffs = 0;
    try {
      // The local engine's wrapper (worker/modelHost.ts): node-llama-cpp's, its context tokenized as one text.
      const wrapper = wholeTextChatWrapper(resolveChatWrapper(model)!);
      const own = resolveChatWrapper(model)!;
      for (const messages of conversations) {
        const history: ChatHistoryItem[] = messages.map((m) => (m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content }));
        history.push({ type: 'model', response: [] });
        const localTokens = [...wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(model.tokenizer)];
        const ownTokens = [...own.generateContextState({ chatHistory: history }).contextText.tokenize(model.tokenizer)];
        const rendered = (await post('/apply-template', { messages })).prompt as string;
        const serverTokens = (await post('/tokenize', { content: rendered, add_special: true, parse_special: true })).tokens as number[];
        if (JSON.stringify(ownTokens) !== JSON.stringify(serverTokens)) ownDiffs++;
        if (JSON.stringify(localTokens) !== JSON.stringify(serverTokens)) tokenDiffs.push(`${JSON.stringify(messages)}: local ${localTokens.join(',')}, server ${serverTokens.join(',')}`);
      }
    } finally {
      await model.dispose();
      await llama.dispose();
    }
    const counts: Record<string, { same: number; total: number; sameButSpace: number }> = {};
    const differing: string[] = [];
    let lateOnly = true;
    for (const messages of conversations) {
      for (const [name, sampling] of [['greedy', { temperature: 0 }], ['sampled T=1', { temperature: 1, seed: rng.nextUint32() }]] as const) {
        const request: GenerateRequest = { messages, maxTokens: 24, sampling };
        const [l, r] = [await local.generate(request), await remote.generate(request)];
        const c = (counts[name] ??= { same: 0, total: 0, sameButSpace: 0 });
        c.total++;
        expect(r.promptTokens).toBe(l.promptTokens);
        if (same(l, r)) c.same++;
        // node-llama-cpp's LlamaChat drops the first generated token's leading space (" has" comes back "has");
        // the server's chat route keeps it.
        else if (finish(l) === finish(r) && r.text === ` ${l.text}`) c.sameButSpace++;
        else {
          differing.push(`${name} ${JSON.stringify(messages)}: local ${JSON.stringify(l.text)} (${l.finishReason}), server ${JSON.stringify(r.text)} (${r.finishReason})`);
          lateOnly &&= commonPrefix(l.text, r.text.startsWith(' ') ? r.text.slice(1) : r.text) >= LATE_PREFIX;
        }
      }
    }
    const line = Object.entries(counts).map(([k, v]) => `${k} ${v.same}/${v.total} (${v.sameButSpace} more but for the first token's leading space)`).join(', ');
    console.log(`chat parity: token sequences ${conversations.length - tokenDiffs.length}/${conversations.length} (node-llama-cpp's own tokenization ${conversations.length - ownDiffs}/${conversations.length}); identical texts ${line}`);
    if (tokenDiffs.length > 0) console.log(tokenDiffs.join('\n'));
    if (differing.length > 0) console.log(differing.join('\n'));
    expect(tokenDiffs).toEqual([]);
    expect(ownDiffs).toBeGreaterThan(0);
    // As in the sampled test above: a draw within rounding of a cumulative-probability boundary may take the
    // neighbouring token late in a text. Seen once in 10 repeated runs (seed 2126598393, deterministic for
    // that seed): one sampled T=1 chat text of 17 parted after 88 identical characters ("…betwe and dow" locally,
    // "…betwe tocj" on the server). At most 2 such late divergences in the 34 draws; a wrong template,
    // tokenization or chain differs from the first tokens on.
    expect(differing.length, differing.join('\n')).toBeLessThanOrEqual(2);
    expect(lateOnly, differing.join('\n')).toBe(true);
  }, 600_000);
});
