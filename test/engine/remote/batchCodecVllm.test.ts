/**
 * Issue 24 item 5: `--format openai-batch` lines are what vLLM's run-batch accepts — every line is
 * checked against the mirror of vLLM's request models at the pinned commit
 * (test/fixtures/vllm/runBatchModels.ts) — and what it cannot express is refused by name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchRouteError, batchRequestLines, resultFromBatch, type BatchSettings } from '../../../src-main/engine/remote/batchCodec';
import type { GenerateRequest } from '../../../src-main/engine/types';
import { batchRequestInput, batchRequestOutput, chatCompletionResponse, VLLM_PINNED_COMMIT } from '../../fixtures/vllm/runBatchModels';

const KEY = 'a'.repeat(64);
const settings = (over: Partial<BatchSettings> = {}): BatchSettings => ({ model: 'lab-model', serverKind: 'vllm', jsonSchemaTransport: 'response_format', embedBatchSize: 2, ...over });
const chat = (over: Partial<GenerateRequest> = {}): GenerateRequest => ({ messages: [{ role: 'user', content: 'Which lamp?' }], maxTokens: 8, sampling: { temperature: 0 }, ...over });

function issues(line: unknown): string[] {
  const r = batchRequestInput.safeParse(line);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe(`vLLM run-batch lines (mirror of vllm-project/vllm@${VLLM_PINNED_COMMIT.slice(0, 8)})`, () => {
  it('the mirror refuses what run-batch refuses or drops: /v1/completions, unknown fields, bad combinations', () => {
    // Each of these must fail, or the mirror could not catch a bad export.
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/completions', body: { model: 'm', prompt: 'x' } })).toEqual([expect.stringContaining('run-batch takes /v1/chat/completions')]);
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'x' }], grammar: 'root ::= "a"' } })).toEqual([expect.stringMatching(/grammar|Unrecognized/)]);
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { messages: [], top_logprobs: 2 } })).toEqual([expect.stringContaining('`logprobs` must be set to true')]);
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { messages: [], structured_outputs: { json: {}, regex: 'a' } } })).toHaveLength(1);
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { messages: [], continue_final_message: true, add_generation_prompt: true } })).toHaveLength(1);
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { messages: [], prompt_logprobs: -2 } })).toHaveLength(1);
    // Fields the newest vLLM dropped (issue 35 item 5): it would ignore them with a DEBUG log, the mirror refuses them.
    for (const gone of ['guided_json', 'guided_regex', 'guided_choice', 'guided_grammar', 'guided_decoding_backend', 'guided_whitespace_pattern', 'structural_tag', 'best_of', 'logits_processors']) {
      expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { messages: [], [gone]: gone === 'best_of' ? 2 : gone === 'logits_processors' ? [] : 'x' } }), gone).toHaveLength(1);
    }
    // …and takes what it added: prompt_logprobs -1 (every token), a per-request chat template.
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { messages: [], prompt_logprobs: -1, chat_template: '{{ messages[0].content }}', add_generation_prompt: false } })).toEqual([]);
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { messages: [] }, extra: 1 })).toHaveLength(1);
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { messages: [], stream: true } })).toHaveLength(1);
    // …and accepts a plain chat line.
    expect(issues({ custom_id: KEY, method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'x' }], max_tokens: 4 } })).toEqual([]);
  });

  it('chat generations become /v1/chat/completions lines that fit ChatCompletionRequest, with every sampling and constraint field', () => {
    const cases: [GenerateRequest, Partial<BatchSettings>][] = [
      [chat(), {}],
      [chat({ sampling: { temperature: 0.7, topP: 0.9, seed: 42, topK: 40, minP: 0.05, repeatPenalty: 1.1 }, stop: ['\n'] }), {}],
      [chat({ jsonSchema: { type: 'object', properties: { entails: { type: 'boolean' } }, required: ['entails'], additionalProperties: false } }), {}],
      [chat({ jsonSchema: { type: 'object' } }), { jsonSchemaTransport: 'guided_json' }],
      [chat({ jsonSchema: { type: 'object' } }), { jsonSchemaTransport: 'structured_outputs' }],
      [chat({ jsonSchema: { type: 'object' } }), { jsonSchemaTransport: 'json_schema', chatJsonSchemaTransport: 'response_format' }],
      // A model added as a llama.cpp server: vLLM's spelling of the penalty is used in a vLLM batch.
      [chat({ sampling: { temperature: 0, repeatPenalty: 1.2 } }), { serverKind: 'llama.cpp' }],
    ];
    for (const [request, over] of cases) {
      const lines = batchRequestLines(KEY, 'generate', request, settings(over), 'vllm-run-batch');
      expect(lines).toHaveLength(1);
      expect(lines[0]!.url).toBe('/v1/chat/completions');
      expect(issues(lines[0]), JSON.stringify(lines[0])).toEqual([]);
    }
    // vLLM's retired guided_json goes as structured_outputs, the field vLLM now reads: never written.
    const guided = batchRequestLines(KEY, 'generate', chat({ jsonSchema: { type: 'object' } }), settings({ jsonSchemaTransport: 'guided_json' }), 'vllm-run-batch')[0]!;
    expect(guided.body).toEqual({ model: 'lab-model', messages: [{ role: 'user', content: 'Which lamp?' }], max_tokens: 8, temperature: 0, structured_outputs: { json: { type: 'object' } } });
    const penalty = batchRequestLines(KEY, 'generate', chat({ sampling: { temperature: 0, repeatPenalty: 1.2 } }), settings({ serverKind: 'llama.cpp' }), 'vllm-run-batch')[0]!;
    expect(penalty.body).toEqual({ model: 'lab-model', messages: [{ role: 'user', content: 'Which lamp?' }], max_tokens: 8, temperature: 0, repetition_penalty: 1.2 });
  });

  it('embeddings become /v1/embeddings lines that fit EmbeddingCompletionRequest', () => {
    const lines = batchRequestLines(KEY, 'embed', { texts: ['a', 'b', 'c'] }, settings(), 'vllm-run-batch');
    expect(lines.map((l) => [l.custom_id, l.url, l.body.input])).toEqual([
      [`${KEY}#0`, '/v1/embeddings', ['a', 'b']],
      [`${KEY}#1`, '/v1/embeddings', ['c']],
    ]);
    for (const l of lines) expect(issues(l)).toEqual([]);
  });

  it('refuses a plain-prompt generation, a scoring call and a GBNF grammar, saying why', () => {
    const refuse = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return err as Error;
      }
      throw new Error('not refused');
    };
    const plain = refuse(() => batchRequestLines(KEY, 'generate', { prompt: 'Which lamp?', maxTokens: 8, sampling: { temperature: 0 } }, settings(), 'vllm-run-batch'));
    expect(plain).toBeInstanceOf(BatchRouteError);
    expect(plain.message).toContain("chat template, changing the tokens the model sees");
    const score = refuse(() => batchRequestLines(KEY, 'score', { prompt: 'Q: ', continuations: ['a', 'b'] }, settings(), 'vllm-run-batch'));
    expect(score).toBeInstanceOf(BatchRouteError);
    expect(score.message).toContain('run-batch has no /v1/completions route');
    // Both name the docs section that says, citing vLLM's renderer, why a pass-through chat template is no way out.
    for (const message of [plain.message, score.message]) {
      const named = /\(docs\/batch-plans\.md, "([^"]+)"\)/.exec(message);
      expect(named?.[1]).toBe('Why a pass-through chat template is not exact');
      const docs = readFileSync(join(__dirname, '../../../docs/batch-plans.md'), 'utf8');
      const section = docs.slice(docs.indexOf(`\n## ${named?.[1]}\n`));
      expect(section.length).toBeGreaterThan(1000);
      for (const cited of ['vllm/renderers/hf.py', 'vllm-project/vllm@e7ad92e5308e67c9657fc06f351ff4326848f130', 'vllm/renderers/base.py', 'vllm-project/vllm@03499b26edfabe3fbc1c2fac48812c9502a0314b', 'tokenize: bool = True', 'add_special_tokens=False', 'metaspace.rs']) {
        expect(section).toContain(cited);
      }
    }
    expect(refuse(() => batchRequestLines(KEY, 'generate', chat({ grammar: 'root ::= "a"' }), settings({ serverKind: 'llama.cpp' }), 'vllm-run-batch')).message).toContain('GBNF grammars need the local engine or a llama.cpp server');
    // The completions routes keep the lines a /v1/completions server takes (llama-server replay).
    const old = batchRequestLines(KEY, 'score', { prompt: 'Q: ', continuations: ['a'] }, settings(), 'completions');
    expect(old).toEqual([{ custom_id: `${KEY}#0`, method: 'POST', url: '/v1/completions', body: { model: 'lab-model', prompt: 'Q: a', echo: true, logprobs: 1, max_tokens: 1, temperature: 0 } }]);
    expect(issues(old[0])).toEqual([expect.stringContaining('not /v1/completions')]);
  });

  it("reads a chat answer in the shape run-batch writes it (every field of vLLM's ChatCompletionResponse, nulls included)", () => {
    const request = chat({ stop: ['\n'] });
    const [line] = batchRequestLines(KEY, 'generate', request, settings(), 'vllm-run-batch');
    // BatchRequestOutput.model_dump_json() of a ChatCompletionResponse at the pinned commit.
    const output = {
      id: 'vllm-5c1e',
      custom_id: KEY,
      response: {
        status_code: 200,
        request_id: 'vllm-batch-77a0',
        body: {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 1764270000,
          model: 'lab-model',
          choices: [{ index: 0, message: { role: 'assistant', content: 'The red lamp', refusal: null, annotations: null, audio: null, function_call: null, tool_calls: [], reasoning_content: null }, logprobs: null, finish_reason: 'stop', stop_reason: '\n' }],
          service_tier: null,
          system_fingerprint: null,
          usage: { prompt_tokens: 12, total_tokens: 15, completion_tokens: 3, prompt_tokens_details: null },
          prompt_logprobs: null,
          kv_transfer_params: null,
        },
      },
      error: null,
    };
    expect(batchRequestOutput.safeParse(output).success).toBe(true);
    expect(chatCompletionResponse.safeParse(output.response.body).success).toBe(true);
    expect(resultFromBatch('generate', request, [line!], [output.response.body])).toEqual({ text: 'The red lamp', promptTokens: 12, completionTokens: 3, finishReason: 'stopString' });
  });
});
