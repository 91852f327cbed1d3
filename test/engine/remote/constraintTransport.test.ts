/**
 * Issue 24 item 3: each request carries its constraint in the field the server reads, and an
 * answer that breaks its constraint (a server that ignored the field) fails the call, naming the
 * model and the transport — never a free-text "success". Item 2: llama.cpp requests ask for no
 * prompt-cache reuse and send the prompt as the server's token ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkConstrainedOutput, literalAlternatives, schemaViolation } from '../../../src-main/engine/remote/constraintCheck';
import { buildGenerateCall } from '../../../src-main/engine/remote/generateRequestBody';
import { RemoteEngine } from '../../../src-main/engine/remote/remoteEngine';
import { resolveRemoteConfig } from '../../../src-main/engine/remote/remoteEngineConfig';
import { EngineError, type GenerateRequest } from '../../../src-main/engine/types';
import { FakeOpenAiServer } from '../../support/fakeOpenAiServer';
import { fastRetries } from './remoteTestSetup';

const ENTAILS = { type: 'object', properties: { entails: { type: 'boolean' } }, required: ['entails'] };
const CHOICE = { type: 'object', properties: { choice: { type: 'string', enum: ['D1', 'D2'] } }, required: ['choice'], additionalProperties: false };
const req = (extra: Partial<GenerateRequest>): GenerateRequest => ({ prompt: 'Premise: x', maxTokens: 12, sampling: { temperature: 0 }, ...extra });

describe('constraint transport by server kind', () => {
  it('defaults to json_schema on llama.cpp (read on /v1/completions), response_format elsewhere; an explicit setting wins', () => {
    expect(resolveRemoteConfig({ baseUrl: 'http://h/v1', model: 'm', serverKind: 'llama.cpp' }).jsonSchemaTransport).toBe('json_schema');
    expect(resolveRemoteConfig({ baseUrl: 'http://h/v1', model: 'm', serverKind: 'vllm' }).jsonSchemaTransport).toBe('response_format');
    expect(resolveRemoteConfig({ baseUrl: 'http://h/v1', model: 'm' }).jsonSchemaTransport).toBe('response_format');
    expect(resolveRemoteConfig({ baseUrl: 'http://h/v1', model: 'm', serverKind: 'llama.cpp', jsonSchemaTransport: 'response_format' }).jsonSchemaTransport).toBe('response_format');
    expect(() => resolveRemoteConfig({ baseUrl: 'http://h/v1', model: 'm', jsonSchemaTransport: 'grammar' as never })).toThrow(/jsonSchemaTransport/);
  });

  it('spells each transport as its server reads it, and llama.cpp bodies carry cache_prompt: false and token ids when given', () => {
    const settings = { model: 'm', serverKind: 'llama.cpp' as const, jsonSchemaTransport: 'json_schema' as const };
    const llama = buildGenerateCall(req({ jsonSchema: ENTAILS }), settings, { promptTokens: [1, 261, 300] });
    expect(llama).toEqual({
      path: '/completions',
      body: { model: 'm', prompt: [1, 261, 300], max_tokens: 12, temperature: 0, cache_prompt: false, samplers: ['temperature'], json_schema: ENTAILS },
    });
    expect(buildGenerateCall(req({ grammar: 'root ::= "yes" | "no"' }), settings).body).toEqual({
      model: 'm', prompt: 'Premise: x', max_tokens: 12, temperature: 0, cache_prompt: false, samplers: ['temperature'], grammar: 'root ::= "yes" | "no"',
    });
    const vllm = { model: 'm', serverKind: 'vllm' as const };
    expect(buildGenerateCall(req({ jsonSchema: ENTAILS }), { ...vllm, jsonSchemaTransport: 'structured_outputs' }).body).toEqual({
      model: 'm', prompt: 'Premise: x', max_tokens: 12, temperature: 0, structured_outputs: { json: ENTAILS },
    });
    const rf = buildGenerateCall(req({ jsonSchema: ENTAILS }), { ...vllm, jsonSchemaTransport: 'response_format' }).body;
    expect(rf.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', schema: ENTAILS, strict: true } });
    expect(rf).not.toHaveProperty('cache_prompt');
  });
});

describe('checkConstrainedOutput', () => {
  const ctx = { model: 'tiny.gguf', transport: 'response_format' };
  it('accepts answers that satisfy the schema, and a cut answer that begins as the schema does', () => {
    expect(() => checkConstrainedOutput('{"entails": true}', 'stop', { jsonSchema: ENTAILS }, ctx)).not.toThrow();
    expect(() => checkConstrainedOutput(' {"choice":"D2"} ', 'stop', { jsonSchema: CHOICE }, ctx)).not.toThrow();
    expect(() => checkConstrainedOutput('{"ent', 'length', { jsonSchema: ENTAILS }, ctx)).not.toThrow();
    expect(() => checkConstrainedOutput('ye', 'length', { grammar: 'root ::= "yes" | "no"' }, ctx)).not.toThrow();
    expect(() => checkConstrainedOutput('no', 'stop', { grammar: 'root ::= "yes" | "no"' }, ctx)).not.toThrow();
    expect(() => checkConstrainedOutput('', 'aborted', { jsonSchema: ENTAILS }, ctx)).not.toThrow();
  });

  it('refuses free text (the 0-of-92 case: finish length), JSON that breaks the schema, and a grammar answer outside its literals', () => {
    const freeText = () => checkConstrainedOutput(' The premise says that the', 'length', { jsonSchema: ENTAILS }, ctx);
    expect(freeText).toThrow(EngineError);
    expect(freeText).toThrow(/model "tiny.gguf" did not honour the JSON schema sent as response_format: .*does not begin/);
    expect(() => checkConstrainedOutput('{"entails": "yes"}', 'stop', { jsonSchema: ENTAILS }, ctx)).toThrow(/\$\.entails is string, the schema wants boolean/);
    expect(() => checkConstrainedOutput('{"choice":"D3"}', 'stop', { jsonSchema: CHOICE }, ctx)).toThrow(/\$\.choice is "D3", not one of/);
    expect(() => checkConstrainedOutput('{"choice":"D1","x":1}', 'stop', { jsonSchema: CHOICE }, ctx)).toThrow(/"x", which the schema does not allow/);
    expect(() => checkConstrainedOutput('{}', 'stop', { jsonSchema: ENTAILS }, ctx)).toThrow(/lacks the required "entails"/);
    expect(() => checkConstrainedOutput('maybe', 'stop', { grammar: 'root ::= "yes" | "no"' }, { model: 'm' })).toThrow(/did not honour the GBNF grammar: the answer is not one of "yes", "no"/);
  });

  it('reads only literal-alternation grammars; others are not checked', () => {
    expect(literalAlternatives('root ::= "D1" | "D2" | "a \\"q\\"\\n"')).toEqual(['D1', 'D2', 'a "q"\n']);
    expect(literalAlternatives('root ::= "x"')).toEqual(['x']);
    expect(literalAlternatives('root ::= "[" item ("," item)* "]"\nitem ::= "a"')).toBeUndefined();
    expect(() => checkConstrainedOutput('anything', 'stop', { grammar: 'root ::= [a-z]+' }, ctx)).not.toThrow();
  });

  it('checks nested arrays, lengths and bounds', () => {
    const list = { type: 'object', properties: { aspects: { type: 'array', items: { type: 'string', maxLength: 3 }, maxItems: 2 } }, required: ['aspects'] };
    expect(schemaViolation({ aspects: ['ab', 'cd'] }, list, '$')).toBeUndefined();
    expect(schemaViolation({ aspects: ['ab', 'cd', 'e'] }, list, '$')).toBe('$.aspects has more than 2 items');
    expect(schemaViolation({ aspects: ['abcd'] }, list, '$')).toBe('$.aspects[0] is longer than 3');
    expect(schemaViolation(3, { type: 'integer', minimum: 4 }, '$')).toBe('$ is below 4');
    expect(schemaViolation(2.5, { type: 'integer' }, '$')).toBe('$ is number, the schema wants integer');
  });
});

describe('a server that ignores the transport it was sent', () => {
  let server: FakeOpenAiServer;
  beforeAll(async () => {
    // Like llama.cpp's /v1/completions: reads json_schema and grammar, ignores response_format.
    server = await FakeOpenAiServer.start({ models: ['fake-model'], constraintFields: ['json_schema'], tokenizer: 'llama.cpp' });
  });
  afterAll(async () => server?.close());

  it('fails the call naming model and transport when the field was ignored, and succeeds with the transport the server reads', async () => {
    const wrong = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'llama.cpp', jsonSchemaTransport: 'response_format', ...fastRetries });
    const err = (await wrong.generate(req({ jsonSchema: ENTAILS, maxTokens: 40 })).catch((e: unknown) => e)) as EngineError;
    expect(err).toBeInstanceOf(EngineError);
    expect(err.message).toMatch(/model "fake-model" did not honour the JSON schema sent as response_format/);
    await wrong.close();

    const before = server.requests.length;
    const right = new RemoteEngine({ baseUrl: server.baseUrl, model: 'fake-model', serverKind: 'llama.cpp', ...fastRetries });
    const result = await right.generate(req({ jsonSchema: ENTAILS, maxTokens: 40 }));
    expect(JSON.parse(result.text)).toEqual({ entails: true });
    // The prompt went through the server's /tokenize first (special text as text, beginning token added), then as ids.
    const sent = server.requests.slice(before);
    expect(sent.map((r) => r.path)).toEqual(['/tokenize', '/v1/completions']);
    expect(sent[0]!.body).toEqual({ content: 'Premise: x', add_special: true, parse_special: false });
    const body = sent[1]!.body as Record<string, unknown>;
    expect(Array.isArray(body.prompt)).toBe(true);
    expect(body).toMatchObject({ cache_prompt: false, json_schema: ENTAILS });
    await right.close();
  });
});
