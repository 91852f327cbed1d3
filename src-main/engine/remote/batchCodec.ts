/**
 * Engine calls as OpenAI-Batch request lines and back. A plan's uncached calls leave Fairground as
 * a JSONL file; its output file comes back as cache entries. Two sets of routes:
 *
 * - `vllm-run-batch` (`plan export --format openai-batch`): only lines vLLM's `run-batch` accepts
 *   (checked against a mirror of its request models, test/fixtures/vllm/runBatchModels.ts, pinned
 *   to vllm-project/vllm@02759f3134b06095f945295978ce38dec738d122, chat protocol at 002032ee). run-batch takes
 *   /v1/chat/completions, /v1/embeddings, …/score and …/rerank — no /v1/completions. So:
 *   generate with `messages` → one chat line; embed → /v1/embeddings lines; a plain-prompt
 *   generation and any scoring call are refused (BatchRouteError): a chat request passes its text
 *   through the model's chat template, which changes the tokens the model sees, and MoI's
 *   teacher-forced scoring needs the raw prompt's token log-probabilities (echo) — neither can be
 *   expressed as a run-batch line without changing the experiment.
 * - `completions` (`--format openai-batch-completions`): the lines a server with /v1/completions
 *   takes (llama.cpp's llama-server replayed line by line, a `vllm serve` endpoint behind a gateway):
 *   generate → chat or completions as the live engine sends it (generateRequestBody.ts); score →
 *   one /v1/completions line per continuation with `echo: true, logprobs: 1, max_tokens: 1,
 *   temperature: 0` (servers insist on at least one generated token, which the reader drops).
 *
 * `custom_id` = the call's cache key, or `<key>#<i>` for a call of several lines. The response
 * readers are the live engine's (responseReaders.ts), so a call answered through a batch stores
 * exactly what the same server would have answered over HTTP.
 */
import { checkEmbedRequest, checkGenerateRequest, checkScoreRequest } from '../requestChecks';
import { EngineError, type EmbedRequest, type EmbedResult, type GenerateRequest, type GenerateResult, type ScoreRequest, type ScoreResult } from '../types';
import { buildGenerateCall, trimsAnswer, type GenerateBodySettings } from './generateRequestBody';
import type { JsonSchemaTransport } from './remoteEngineConfig';
import { readEchoResponse, readEmbeddingsResponse, readGenerateResponse } from './responseReaders';

export type BatchSettings = GenerateBodySettings & { embedBatchSize: number };

export type BatchOp = 'generate' | 'score' | 'embed';

/** Which routes the lines may use (see the file comment). */
export type BatchRoutes = 'vllm-run-batch' | 'completions';

/** A call the chosen routes cannot express; `reason` says why and what works instead. */
export class BatchRouteError extends Error {
  constructor(
    readonly what: 'plain-prompt generation' | 'scoring' | 'field',
    message: string,
  ) {
    super(message);
    this.name = 'BatchRouteError';
  }
}

/**
 * The body fields of vLLM's ChatCompletionRequest that a Fairground chat line may carry (a subset of
 * what vLLM reads at the pinned commit). vLLM drops unknown fields with only a DEBUG log line, so a
 * field outside this list would be lost without a trace: refused at export instead. `guided_json`
 * is not among them: vLLM no longer reads it (structured_outputs replaced the guided fields).
 */
const VLLM_CHAT_FIELDS = new Set(['model', 'messages', 'max_tokens', 'temperature', 'top_p', 'seed', 'stop', 'top_k', 'min_p', 'repetition_penalty', 'response_format', 'structured_outputs']);

/**
 * The JSON-schema transport of a run-batch chat line: the one the model was added with, except
 * vLLM's retired `guided_json`, which goes as `structured_outputs` (the field vLLM now reads for
 * it: the same schema, the same constraint). Other servers' transports stay and are refused below.
 */
function runBatchTransport(settings: BatchSettings): JsonSchemaTransport {
  const t = settings.chatJsonSchemaTransport ?? settings.jsonSchemaTransport;
  return t === 'guided_json' ? 'structured_outputs' : t;
}

export interface BatchRequestLine {
  custom_id: string;
  method: 'POST';
  url: string;
  body: Record<string, unknown>;
}

const SCORE_MAX_TOKENS = 1;

/** Where the docs say why a pass-through chat template does not make such a line exact (vLLM's renderer, file and line). */
const PASS_THROUGH_NOTE = 'a pass-through chat template is not exact either (docs/batch-plans.md, "Why a pass-through chat template is not exact")';

/** The request lines of one call (`key` = its cache key). */
export function batchRequestLines(key: string, op: BatchOp, request: unknown, settings: BatchSettings, routes: BatchRoutes = 'completions'): BatchRequestLine[] {
  if (op === 'generate') {
    const r = request as GenerateRequest;
    checkGenerateRequest(r);
    if (routes === 'vllm-run-batch') {
      if (r.messages === undefined) {
        throw new BatchRouteError(
          'plain-prompt generation',
          `a plain-prompt generation (no chat template) has no run-batch route: vLLM's run-batch takes no /v1/completions lines, and a chat line would pass the prompt through the model's chat template, changing the tokens the model sees; ${PASS_THROUGH_NOTE}`,
        );
      }
      // vLLM spells the extras its own way whatever server the model was added as.
      const call = buildGenerateCall(r, { ...settings, serverKind: 'vllm', chatJsonSchemaTransport: runBatchTransport(settings) });
      const unknown = Object.keys(call.body).filter((f) => !VLLM_CHAT_FIELDS.has(f));
      if (unknown.length > 0) throw new BatchRouteError('field', `vLLM's chat requests do not read ${unknown.join(', ')} (run-batch would drop ${unknown.length === 1 ? 'it' : 'them'} without an error)`);
      return [{ custom_id: key, method: 'POST', url: '/v1/chat/completions', body: call.body }];
    }
    const call = buildGenerateCall(r, settings);
    return [{ custom_id: key, method: 'POST', url: `/v1${call.path}`, body: call.body }];
  }
  if (op === 'score') {
    const r = request as ScoreRequest;
    checkScoreRequest(r);
    if (routes === 'vllm-run-batch') {
      throw new BatchRouteError(
        'scoring',
        `teacher-forced scoring needs the log-probabilities of a raw prompt's tokens (echo on /v1/completions); run-batch has no /v1/completions route, and its chat route's prompt_logprobs score the chat template's tokens, not the prompt's; ${PASS_THROUGH_NOTE}`,
      );
    }
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
    return readGenerateResponse(path, bodies[0], request as GenerateRequest, undefined, trimsAnswer(request as GenerateRequest, lines[0]!.body));
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
