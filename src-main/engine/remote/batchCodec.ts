/**
 * Engine calls as OpenAI-Batch request lines and back. A plan's uncached calls leave Fairground as
 * a JSONL file that vLLM's `run-batch` entry point (one GPU or a Ray cluster) or any OpenAI-Batch
 * compatible service runs unchanged; its output file comes back as cache entries.
 *
 * - generate → one line to /v1/chat/completions (messages) or /v1/completions (plain prompt), the
 *   same body the live engine sends (generateRequestBody.ts); `custom_id` = the call's cache key.
 * - score → one /v1/completions line per continuation with the echo/logprobs parameters
 *   (`echo: true, logprobs: 1, max_tokens: 1, temperature: 0`: run-batch servers insist on at
 *   least one generated token, which the reader drops); `custom_id` = `<key>#<i>`.
 * - embed → one /v1/embeddings line per batch of `embedBatchSize` texts; `custom_id` = `<key>#<i>`.
 *
 * The response readers are the live engine's (responseReaders.ts), so a call answered through a
 * batch stores exactly what the same server would have answered over HTTP.
 */
import { checkEmbedRequest, checkGenerateRequest, checkScoreRequest } from '../requestChecks';
import { EngineError, type EmbedRequest, type EmbedResult, type GenerateRequest, type GenerateResult, type ScoreRequest, type ScoreResult } from '../types';
import { buildGenerateCall, type GenerateBodySettings } from './generateRequestBody';
import { readEchoResponse, readEmbeddingsResponse, readGenerateResponse } from './responseReaders';

export type BatchSettings = GenerateBodySettings & { embedBatchSize: number };

export type BatchOp = 'generate' | 'score' | 'embed';

export interface BatchRequestLine {
  custom_id: string;
  method: 'POST';
  url: string;
  body: Record<string, unknown>;
}

const SCORE_MAX_TOKENS = 1;

/** The request lines of one call (`key` = its cache key). */
export function batchRequestLines(key: string, op: BatchOp, request: unknown, settings: BatchSettings): BatchRequestLine[] {
  if (op === 'generate') {
    const r = request as GenerateRequest;
    checkGenerateRequest(r);
    const call = buildGenerateCall(r, settings);
    return [{ custom_id: key, method: 'POST', url: `/v1${call.path}`, body: call.body }];
  }
  if (op === 'score') {
    const r = request as ScoreRequest;
    checkScoreRequest(r);
    return r.continuations.map((continuation, i) => ({
      custom_id: `${key}#${i}`,
      method: 'POST',
      url: '/v1/completions',
      body: { model: settings.model, prompt: r.prompt + continuation, echo: true, logprobs: 1, max_tokens: SCORE_MAX_TOKENS, temperature: 0 },
    }));
  }
  const r = request as EmbedRequest;
  checkEmbedRequest(r);
  const lines: BatchRequestLine[] = [];
  for (let at = 0, i = 0; at < r.texts.length; at += settings.embedBatchSize, i++) {
    lines.push({ custom_id: `${key}#${i}`, method: 'POST', url: '/v1/embeddings', body: { model: settings.model, input: r.texts.slice(at, at + settings.embedBatchSize) } });
  }
  return lines;
}

/** The engine result of a call from the response bodies of its lines (in line order). */
export function resultFromBatch(op: BatchOp, request: unknown, lines: readonly BatchRequestLine[], bodies: readonly unknown[]): GenerateResult | ScoreResult | EmbedResult {
  if (bodies.length !== lines.length) throw new EngineError('remote-error', `${bodies.length} responses for ${lines.length} requests`);
  if (op === 'generate') {
    const path = lines[0]!.url.replace(/^\/v1/, '') as '/chat/completions' | '/completions';
    return readGenerateResponse(path, bodies[0], request as GenerateRequest);
  }
  if (op === 'score') {
    const r = request as ScoreRequest;
    const scores = r.continuations.map((c, i) => readEchoResponse(bodies[i], SCORE_MAX_TOKENS, c));
    return {
      promptTokens: Math.min(...scores.map((s) => s.promptTokens)),
      scores: scores.map(({ tokens, logprobs, sum, mean }) => ({ tokens, logprobs, sum, mean })),
    };
  }
  const vectors = lines.flatMap((line, i) => readEmbeddingsResponse(bodies[i], (line.body.input as unknown[]).length));
  const dimensions = vectors[0]!.length;
  if (vectors.some((v) => v.length !== dimensions)) throw new EngineError('remote-error', 'embeddings of different lengths in one call');
  return { vectors, dimensions };
}
