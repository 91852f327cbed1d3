/**
 * Reading OpenAI-compatible response bodies into engine results, shared by the live remote engine
 * (remoteEngine.ts, over HTTP) and by batch results (batchCodec.ts, from an OpenAI-Batch output
 * file), so a call answered either way gives the same stored result.
 */
import { EngineError, type GenerateRequest, type GenerateResult } from '../types';
import { checkConstrainedOutput, type ConstraintContext } from './constraintCheck';
import { continuationLogprobs } from './echoLogprobs';
import type { ScoredContinuation } from './types';
import { mapFinishReason } from './generateRequestBody';
import { chatCompletionResponse, completionLogprobsSchema, completionResponse, embeddingsResponse, parseResponse } from './openAiResponses';

/**
 * A constrained request's answer is checked against its constraint (constraintCheck.ts): one the
 * server ignored fails here, live or imported, naming the model (`context`, else the response's).
 * `trim` (a JSON schema sent as the local engine's grammar, generateRequestBody.ts `trimsAnswer`)
 * drops the answer's trailing whitespace, as node-llama-cpp does with that grammar.
 */
export function readGenerateResponse(
  path: '/chat/completions' | '/completions',
  json: unknown,
  request: Pick<GenerateRequest, 'stop' | 'jsonSchema' | 'grammar'>,
  context?: ConstraintContext,
  trim = false,
): GenerateResult {
  const where = `POST ${path}`;
  const response = path === '/chat/completions' ? parseResponse(chatCompletionResponse, json, where) : parseResponse(completionResponse, json, where);
  const choice = response.choices[0]!;
  const text = 'message' in choice ? (choice.message.content ?? '') : choice.text;
  const result: GenerateResult = {
    text: trim ? text.trimEnd() : text,
    // Servers that omit usage leave the counts unknown; 0 keeps them numeric.
    promptTokens: response.usage?.prompt_tokens ?? 0,
    completionTokens: response.usage?.completion_tokens ?? 0,
    finishReason: mapFinishReason(choice.finish_reason, choice.stop_reason, request.stop),
  };
  if (request.jsonSchema !== undefined || request.grammar !== undefined) {
    const named = (json as { model?: unknown } | null)?.model;
    checkConstrainedOutput(result.text, result.finishReason, request, context ?? { model: typeof named === 'string' ? named : 'the served model' });
  }
  return result;
}

/** The continuation's token log-probabilities from an echoed /completions response. */
export function readEchoResponse(json: unknown, maxTokens: 0 | 1, continuation: string): ScoredContinuation {
  const response = parseResponse(completionResponse, json, 'POST /completions');
  const raw = response.choices[0]!.logprobs;
  const parsed = completionLogprobsSchema.safeParse(raw);
  if (raw === null || raw === undefined || !parsed.success) {
    throw new EngineError('unsupported', 'this server cannot score: its completions carry no echoed token logprobs');
  }
  const generated = Math.min(maxTokens, response.usage?.completion_tokens ?? maxTokens);
  const picked = continuationLogprobs(parsed.data, parsed.data.tokens.length - generated, continuation);
  const sum = picked.logprobs.reduce((a, b) => a + b, 0);
  return {
    tokens: picked.tokens,
    logprobs: picked.logprobs,
    sum,
    // Cannot be empty for a non-empty continuation; the guard only keeps NaN out.
    mean: picked.logprobs.length > 0 ? sum / picked.logprobs.length : 0,
    promptTokens: picked.promptTokens,
  };
}

/** Vectors of an /embeddings response in input order (the API orders by `index`, not position). */
export function readEmbeddingsResponse(json: unknown, inputs: number): number[][] {
  const { data } = parseResponse(embeddingsResponse, json, 'POST /embeddings');
  const vectors: Array<number[] | undefined> = new Array(inputs);
  for (const item of data) {
    if (item.index >= inputs || vectors[item.index] !== undefined) {
      throw new EngineError('remote-error', `POST /embeddings: unexpected or repeated index ${item.index}`);
    }
    vectors[item.index] = item.embedding;
  }
  if (data.length !== inputs) throw new EngineError('remote-error', `POST /embeddings: ${data.length} vectors for ${inputs} inputs`);
  return vectors as number[][];
}
