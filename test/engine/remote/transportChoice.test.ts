/**
 * Issue 24 items 2-4 without a real server:
 * - a JSON schema sent as node-llama-cpp's own GBNF (`gbnf`): the grammar is exactly the one the
 *   local engine decodes with (checked against node-llama-cpp's createGrammarForJsonSchema), with
 *   its "\n\n\n\n" stop and the answer's trailing whitespace trimmed, live and from a batch line;
 * - the transport each request uses comes from what the probe at `remote add` saw the server
 *   honour (engineConfigOf), and a request needing what the server does not honour is refused
 *   before it is sent, naming the model and what the probe saw (stand-ins: vLLM-like honouring
 *   response_format and guided_json only; llama.cpp-like reading json_schema but not a GBNF grammar;
 *   one honouring nothing);
 * - a stated `--revision` is checked where the servers report the weights they load (vLLM's root).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getLlama } from 'node-llama-cpp';
import { jsonSchemaGbnf } from '../../../src-main/engine/local/jsonSchemaGrammar';
import { batchRequestLines, resultFromBatch } from '../../../src-main/engine/remote/batchCodec';
import { buildGenerateCall, trimsAnswer } from '../../../src-main/engine/remote/generateRequestBody';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import { resolveRemoteConfig } from '../../../src-main/engine/remote/remoteEngineConfig';
import { readGenerateResponse } from '../../../src-main/engine/remote/responseReaders';
import { chooseTransports, type ServerCapabilities } from '../../../src-main/engine/remote/serverProbe';
import { EngineError, type GenerateRequest } from '../../../src-main/engine/types';
import { engineConfigOf, settleRemote, type RemoteRow } from '../../../src-main/services/remoteModels';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';
import { fastRetries } from './remoteTestSetup';

const ENTAILS = { type: 'object', properties: { entails: { type: 'boolean' } }, required: ['entails'] };
const CHOICE = { type: 'object', properties: { choice: { type: 'string', enum: ['D1', 'D2'] } }, required: ['choice'], additionalProperties: false };
const req = (extra: Partial<GenerateRequest>): GenerateRequest => ({ prompt: 'Premise: x', maxTokens: 12, sampling: { temperature: 0 }, ...extra });

describe('a JSON schema as the local engine grammar (transport gbnf)', () => {
  it('is the GBNF node-llama-cpp decodes the schema with, and its stop', async () => {
    const llama = await getLlama({ build: 'never', gpu: false });
    try {
      for (const schema of [ENTAILS, CHOICE]) {
        const local = await llama.createGrammarForJsonSchema(schema as Parameters<typeof llama.createGrammarForJsonSchema>[0]);
        expect(jsonSchemaGbnf(schema)).toBe(local.grammar);
        expect(local.trimWhitespaceSuffix).toBe(true);
      }
    } finally {
      await llama.dispose();
    }
    // Hand-checked: node-llama-cpp 3.22.1's grammar for ENTAILS (a space after ':' optional, a newline allowed before '}').
    expect(jsonSchemaGbnf(ENTAILS)).toBe(
      [
        'root ::= "{" whitespace-b-1-4-rule "\\"entails\\"" ":" [ ]? boolean-rule whitespace-b-0-4-rule "}" "\\n\\n\\n\\n" [\\n]*',
        'boolean-rule ::= "true" | "false"',
        'whitespace-b-1-4-rule ::= [\\n] ("    " | "\\t") | [ ]?',
        'whitespace-b-0-4-rule ::= [\\n] | [ ]?',
      ].join('\n'),
    );
  }, 60_000);

  it('travels as llama.cpp grammar with the stop "\\n\\n\\n\\n" beside the request stops, greedy with the temperature sampler only', () => {
    const settings = { model: 'm', serverKind: 'llama.cpp' as const, jsonSchemaTransport: 'gbnf' as const };
    const call = buildGenerateCall(req({ jsonSchema: ENTAILS, stop: ['\n\nQ:'] }), settings);
    expect(call.body).toEqual({
      model: 'm', prompt: 'Premise: x', max_tokens: 12, temperature: 0, stop: ['\n\nQ:', '\n\n\n\n'], cache_prompt: false, samplers: ['temperature'], grammar: jsonSchemaGbnf(ENTAILS),
    });
    expect(trimsAnswer(req({ jsonSchema: ENTAILS }), call.body)).toBe(true);
    // A GBNF request of the caller's own is not trimmed (node-llama-cpp does not trim it either).
    const own = buildGenerateCall(req({ grammar: 'root ::= "yes" | "no"' }), settings);
    expect(trimsAnswer(req({ grammar: 'root ::= "yes" | "no"' }), own.body)).toBe(false);
    expect(own.body.stop).toBeUndefined();
    // Sampled requests name node-llama-cpp's chain and its defaults (top-k 40, top-p 0.95, no min-p, min_keep 1), so the
    // same seed draws the same tokens (test/engine/llamaServer/sampledChatParity.test.ts); top-k 0 (the whole vocabulary
    // in node-llama-cpp, a no-op on the server) goes as the largest int32, which the server clamps to the vocabulary.
    expect(buildGenerateCall(req({ sampling: { temperature: 0.7, seed: 3 } }), settings).body).toMatchObject({ temperature: 0.7, seed: 3, samplers: ['top_k', 'top_p', 'temperature'], top_k: 40, top_p: 0.95, min_p: 0, min_keep: 1 });
    expect(buildGenerateCall(req({ sampling: { temperature: 1, seed: 3, topK: 0, topP: 0.8, minP: 0.05 } }), settings).body).toMatchObject({ samplers: ['top_k', 'top_p', 'min_p', 'temperature'], top_k: 2147483647, top_p: 0.8, min_p: 0.05 });
    expect(buildGenerateCall(req({ sampling: { temperature: 0.7, seed: 3 } }), { ...settings, serverKind: 'vllm', jsonSchemaTransport: 'json_schema' }).body).not.toHaveProperty('samplers');
    // A repeat penalty keeps its sampler at temperature 0.
    expect(buildGenerateCall(req({ sampling: { temperature: 0, repeatPenalty: 1.1 } }), settings).body.samplers).toEqual(['penalties', 'temperature']);
    // Only llama.cpp reads a GBNF grammar.
    expect(() => resolveRemoteConfig({ baseUrl: 'http://h/v1', model: 'm', serverKind: 'vllm', jsonSchemaTransport: 'gbnf' })).toThrow(/jsonSchemaTransport.*only by llama.cpp|only by llama.cpp/);
  });

  it('reads the answer trimmed, live and from a batch line alike', () => {
    const body = { model: 'm', choices: [{ index: 0, text: '{ "entails": false\n}\n\n', finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 9 } };
    expect(readGenerateResponse('/completions', body, { jsonSchema: ENTAILS }, { model: 'm' }, true).text).toBe('{ "entails": false\n}');
    expect(readGenerateResponse('/completions', body, { jsonSchema: ENTAILS }, { model: 'm' }).text).toBe('{ "entails": false\n}\n\n');
    const request = req({ jsonSchema: ENTAILS });
    const lines = batchRequestLines('k1', 'generate', request, { model: 'm', serverKind: 'llama.cpp', jsonSchemaTransport: 'gbnf', embedBatchSize: 8 });
    expect(lines[0]!.body.grammar).toBe(jsonSchemaGbnf(ENTAILS));
    expect(resultFromBatch('generate', request, lines, [body])).toMatchObject({ text: '{ "entails": false\n}', finishReason: 'stop' });
  });
});

const cap = (value: 'yes' | 'no' | 'unknown') => ({ value });
function caps(constraints: ServerCapabilities['constraints'], extra: Partial<ServerCapabilities> = {}): ServerCapabilities {
  return { probedAt: 'now', endpoint: 'http://h/v1', completions: cap('yes'), chat: cap('yes'), echoScoring: cap('no'), promptLogprobs: cap('no'), constraints, ...extra };
}

describe('chooseTransports (from the stored probe)', () => {
  it('prefers the local grammar on llama.cpp, then json_schema; response_format, structured_outputs, guided_json elsewhere', () => {
    const llama = caps({ 'completions.json_schema': cap('yes'), 'completions.grammar': cap('yes'), 'completions.response_format': cap('no'), 'chat.response_format': cap('yes') });
    expect(chooseTransports('llama.cpp', llama)).toEqual({ jsonSchemaTransport: 'gbnf', chatJsonSchemaTransport: 'response_format', refusals: {} });
    const noGrammar = caps({ 'completions.json_schema': cap('yes'), 'completions.grammar': cap('no') });
    expect(chooseTransports('llama.cpp', noGrammar).jsonSchemaTransport).toBe('json_schema');
    expect(chooseTransports('llama.cpp', noGrammar).refusals.grammar).toMatch(/did not honour a GBNF grammar .*completions.grammar no/);
    const vllmOld = caps({ 'completions.response_format': cap('no'), 'completions.structured_outputs': cap('no'), 'completions.guided_json': cap('yes'), 'chat.response_format': cap('no') });
    const chosen = chooseTransports('vllm', vllmOld);
    expect(chosen.jsonSchemaTransport).toBe('guided_json');
    expect(chosen.refusals.chatJsonSchema).toMatch(/did not honour response_format on \/v1\/chat\/completions/);
  });

  it("on llama.cpp's chat route prefers grammar, then json_schema, then response_format; refuses when all three were asked and none honoured", () => {
    const base = { 'completions.grammar': cap('yes'), 'completions.json_schema': cap('yes') } as const;
    expect(chooseTransports('llama.cpp', caps({ ...base, 'chat.response_format': cap('yes'), 'chat.grammar': cap('yes'), 'chat.json_schema': cap('yes') })).chatJsonSchemaTransport).toBe('gbnf');
    expect(chooseTransports('llama.cpp', caps({ ...base, 'chat.response_format': cap('yes'), 'chat.grammar': cap('no'), 'chat.json_schema': cap('yes') })).chatJsonSchemaTransport).toBe('json_schema');
    // The real llama-server on a SentencePiece vocabulary: response_format and json_schema on chat answer HTTP 400.
    const spm = caps({ ...base, 'chat.response_format': { value: 'no', detail: 'refused: HTTP 400' }, 'chat.grammar': cap('yes'), 'chat.json_schema': { value: 'no', detail: 'refused: HTTP 400' } });
    expect(chooseTransports('llama.cpp', spm)).toEqual({ jsonSchemaTransport: 'gbnf', chatJsonSchemaTransport: 'gbnf', refusals: {} });
    const none = chooseTransports('llama.cpp', caps({ ...base, 'chat.response_format': cap('no'), 'chat.grammar': { value: 'no', detail: 'ignored' }, 'chat.json_schema': cap('no') }));
    expect(none.chatJsonSchemaTransport).toBeUndefined();
    expect(none.refusals.chatJsonSchema).toBe(
      'its server honoured no JSON-schema transport on /v1/chat/completions when probed at remote add (chat.grammar no (ignored), chat.json_schema no, chat.response_format no)',
    );
    // A probe stored before the chat fields were asked: the completions choice stands on chat, nothing refused.
    const old = chooseTransports('llama.cpp', caps({ ...base, 'chat.response_format': cap('no') }));
    expect(old).toEqual({ jsonSchemaTransport: 'gbnf', refusals: {} });
    // Another kind is not asked llama.cpp's fields.
    expect(chooseTransports('vllm', caps({ 'completions.response_format': cap('yes'), 'chat.response_format': cap('yes'), 'chat.grammar': cap('yes') })).chatJsonSchemaTransport).toBe('response_format');
  });

  it('refuses only on a plain no; unknown leaves the default', () => {
    const none = caps({ 'completions.response_format': cap('no'), 'completions.structured_outputs': cap('no'), 'completions.guided_json': cap('no'), 'chat.response_format': cap('no') });
    expect(chooseTransports('openai', none).refusals.jsonSchema).toMatch(/honoured no JSON-schema transport on \/v1\/completions .*completions.response_format no/);
    const unknown = caps({ 'completions.response_format': cap('unknown'), 'chat.response_format': cap('unknown') });
    expect(chooseTransports('openai', unknown)).toEqual({ refusals: {} });
    expect(chooseTransports('openai', undefined)).toEqual({ refusals: {} });
    expect(chooseTransports('openai', caps({}, { completions: { value: 'no', detail: 'HTTP 404' } })).refusals.completions).toMatch(/does not answer \/v1\/completions .*HTTP 404/);
  });
});

describe('transports from the probe, against stand-in servers', () => {
  let vllmLike: FakeOpenAiServer;
  let llamaLike: FakeOpenAiServer;
  let deaf: FakeOpenAiServer;
  beforeAll(async () => {
    [vllmLike, llamaLike, deaf] = await Promise.all([
      FakeOpenAiServer.start({ models: ['m'], root: '/w/m', constraintFields: ['response_format', 'guided_json'] }),
      FakeOpenAiServer.start({ models: ['m'], root: null, constraintFields: ['json_schema'], tokenizer: 'llama.cpp' }),
      FakeOpenAiServer.start({ models: ['m'], root: '/w/m', constraintFields: [] }),
    ]);
  });
  afterAll(async () => Promise.all([vllmLike, llamaLike, deaf].map((x) => x?.close())));

  let rowId = 0;
  async function added(server: FakeOpenAiServer, serverKind: 'vllm' | 'llama.cpp' | 'openai', revision?: string): Promise<RemoteRow> {
    const settled = await settleRemote({ baseUrl: server.baseUrl, model: 'm', serverKind, maxConcurrency: 2, ...(revision ? { revision } : {}) });
    return { id: ++rowId, name: `r${rowId}`, base_url: settled.baseUrl, model: 'm', api_key: null, settings: JSON.stringify(settled.settings), added_at: 'now' };
  }

  it('a vLLM-like server (response_format and guided_json only) gets response_format; a GBNF request is refused before it is sent', async () => {
    const row = await added(vllmLike, 'vllm');
    const config = engineConfigOf(row);
    expect(config.jsonSchemaTransport).toBe('response_format');
    const engine = new RemoteEngine({ ...config, ...fastRetries });
    try {
      expect(JSON.parse((await engine.generate(req({ jsonSchema: ENTAILS, maxTokens: 40 }))).text)).toEqual({ entails: true });
      const before = vllmLike.requests.length;
      const err = (await engine.generate(req({ grammar: 'root ::= "yes" | "no"' })).catch((e: unknown) => e)) as EngineError;
      expect(err).toBeInstanceOf(EngineError);
      expect(err.code).toBe('unsupported');
      expect(vllmLike.requests.length).toBe(before);
    } finally {
      await engine.close();
    }
  });

  it('a llama.cpp-like server that reads json_schema but no GBNF gets json_schema; a GBNF request is refused, naming what the probe saw', async () => {
    const row = await added(llamaLike, 'llama.cpp');
    const config = engineConfigOf(row);
    expect(config.jsonSchemaTransport).toBe('json_schema');
    const engine = new RemoteEngine({ ...config, ...fastRetries });
    try {
      expect(JSON.parse((await engine.generate(req({ jsonSchema: ENTAILS, maxTokens: 40 }))).text)).toEqual({ entails: true });
      const before = llamaLike.requests.length;
      const err = (await engine.generate(req({ grammar: 'root ::= "yes" | "no"' })).catch((e: unknown) => e)) as EngineError;
      expect(err.message).toMatch(/model "m" cannot serve a GBNF-constrained plain-prompt request: its server did not honour a GBNF grammar on \/v1\/completions when probed at remote add/);
      expect(llamaLike.requests.length).toBe(before);
    } finally {
      await engine.close();
    }
  });

  it('a server that honours no JSON-schema transport: a JSON-schema request is refused before it is sent; plain requests still run', async () => {
    const row = await added(deaf, 'vllm');
    const engine = new RemoteEngine({ ...engineConfigOf(row), ...fastRetries });
    try {
      const before = deaf.requests.length;
      const err = (await engine.generate(req({ jsonSchema: ENTAILS })).catch((e: unknown) => e)) as EngineError;
      expect(err).toBeInstanceOf(EngineError);
      expect(err.message).toMatch(/cannot serve a JSON-schema-constrained plain-prompt request: its server honoured no JSON-schema transport on \/v1\/completions when probed at remote add \(completions.response_format no/);
      expect(deaf.requests.length).toBe(before);
      expect((await engine.generate(req({}))).finishReason).toBeDefined();
    } finally {
      await engine.close();
    }
  });

  it('a stated revision is checked where the server reports the weights it loads: a mismatch is refused naming both', async () => {
    const err = await added(vllmLike, 'vllm', '/w/other').catch((e: unknown) => e as Error);
    expect((err as Error).message).toBe(`the revision you stated ("/w/other") is not what the servers report: ${vllmLike.baseUrl} serves "root=/w/m"`);
    const ok = JSON.parse((await added(vllmLike, 'vllm', '/w/m')).settings) as { revision: string; identity: { verified: boolean; note: string } };
    expect(ok.revision).toBe('/w/m');
    expect(ok.identity).toEqual({ source: 'stated', verified: true, note: 'the servers report the same weights (root=/w/m)' });
    // A server reporting no weights: the stated revision is kept, marked not checked.
    const unchecked = JSON.parse((await added(llamaLike, 'llama.cpp', 'v7')).settings) as { identity: { verified: boolean; note: string } };
    expect(unchecked.identity).toMatchObject({ source: 'stated', verified: false, note: 'the revision you stated is not checked: the servers report none' });
  });
});
