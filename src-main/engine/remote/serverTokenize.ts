/**
 * `tokenize` for a remote engine through the server's own tokenizer where it has one:
 * - llama.cpp's server: POST /tokenize {content, add_special: false} → {tokens}; POST /detokenize
 *   {tokens} → {content}; a whole text prompt (`asPrompt: 'text'`) with add_special: true (the BOS
 *   the server puts in front), a chat prompt through POST /apply-template {messages} → {prompt}, then
 *   tokenized as the chat route does (add_special and parse_special);
 * - vLLM: POST /tokenize {model, prompt, add_special_tokens: false} → {tokens, count}; POST
 *   /detokenize {model, tokens} → {prompt}; a chat prompt as {model, messages, add_generation_prompt: true}.
 * Both live at the server root, beside /v1 (the path `/../tokenize` resolves there from a base URL
 * ending in /v1, and stays at the root otherwise). The OpenAI API has no tokenizer endpoint: there,
 * and when the server's tokenizer fails in any way (404: the endpoint is off; 501, 500, a network
 * error, an answer without tokens), an estimate is used, `source: 'estimate'` with the reason,
 * remembered for the engine's lifetime so one run never mixes the two units: the model's token
 * costs calibrated from a few probes through its generation route (tokenCalibration.ts, issue 35
 * item 7: "calibrated estimate (N probes)"), or where those fail too, the stated upper bound
 * (tokenBudget.ts), the calibration's failure added to its method. Only a cancellation is passed on.
 */
import { estimateTokenize, tokenPrefixAsync } from '../tokenBudget';
import { EngineError, type TokenizeRequest, type TokenizeResult } from '../types';
import type { RemoteServerKind } from './remoteEngineConfig';
import { calibratedTokenize, requestScale, sampledScale, type TokenCalibration } from './tokenCalibration';

/** How a server without a tokenizer is measured instead (tokenCalibration.ts). */
export interface TokenEstimator {
  /** The model's fitted token costs (shared per endpoints + model). */
  calibrate(): Promise<TokenCalibration>;
  /** One text's tokens through the calibration's route (usage.prompt_tokens, the route's overhead included). */
  count(route: TokenCalibration['route'], text: string, signal: AbortSignal | undefined): Promise<number>;
  /** Longest sample sent (UTF-8 bytes), where the context is small. */
  maxSampleBytes?: number;
}

/** `promise`, or a rejection as soon as `signal` aborts (the promise itself goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(new EngineError('aborted', 'tokenize: cancelled'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new EngineError('aborted', 'tokenize: cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

export type PostJson = (path: string, body: unknown, signal: AbortSignal | undefined) => Promise<unknown>;

export class ServerTokenizer {
  /** Why the server's tokenizer is not used (set once, for the engine's lifetime). */
  private fallback: string | undefined;
  /** The estimate used from the first fallback on: a calibration, or the upper bound (undefined) with why. */
  private calibration: Promise<{ calibration: TokenCalibration } | { calibration: undefined; failed: string }> | undefined;

  constructor(
    private readonly serverKind: RemoteServerKind,
    private readonly model: string,
    private readonly post: PostJson,
    /** Measures the model's token costs through a generation route (tokenCalibration.ts); absent: the upper bound. */
    private readonly estimator?: TokenEstimator,
  ) {
    if (serverKind === 'openai') this.fallback = 'an OpenAI-style server has no tokenizer endpoint';
  }

  async tokenize(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult> {
    if (this.fallback !== undefined) return this.estimate(request, this.fallback, signal);
    try {
      return await this.byServer(request, signal);
    } catch (err) {
      if (signal?.aborted || (err instanceof EngineError && err.code === 'aborted')) throw err;
      this.fallback = `the server's tokenizer failed (${err instanceof Error ? err.message : String(err)})`;
      return this.estimate(request, this.fallback, signal);
    }
  }

  /** The calibrated estimate, measured once; where the calibration fails, the stated upper bound (a cancelled calibration is tried again). */
  private async estimate(request: TokenizeRequest, reason: string, signal?: AbortSignal): Promise<TokenizeResult> {
    const estimator = this.estimator;
    if (estimator === undefined) return estimateTokenize(request, reason);
    const measuring = (this.calibration ??= estimator.calibrate().then(
      (calibration) => ({ calibration }),
      (err: unknown) => {
        if (err instanceof EngineError && err.code === 'aborted') throw err;
        return { calibration: undefined, failed: err instanceof Error ? err.message : String(err) };
      },
    ));
    let found;
    try {
      // The calibration is shared (it runs under the engine's lifetime); this caller stops waiting when cancelled.
      found = await untilAborted(measuring, signal);
    } catch (err) {
      if (signal?.aborted) throw new EngineError('aborted', 'tokenize: cancelled');
      this.calibration = undefined;
      throw err;
    }
    const c = found.calibration;
    if (c !== undefined) {
      const scale = await requestScale(request, () => sampledScale(request.texts, c, (text, s) => estimator.count(c.route, text, s), signal, estimator.maxSampleBytes));
      return calibratedTokenize(request, c, reason, scale);
    }
    const stated = estimateTokenize(request, reason);
    return { ...stated, estimate: { ...stated.estimate!, method: `${stated.estimate!.method}; not calibrated: ${found.failed}` } };
  }

  private async byServer(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult> {
    if (request.asPrompt !== undefined) {
      const counts: number[] = [];
      for (const text of request.texts) counts.push((request.asPrompt === 'chat' ? await this.chatIds(text, signal) : await this.ids(text, signal, true)).length);
      return { counts, source: 'server' };
    }
    const tokens: number[][] = [];
    for (const text of request.texts) tokens.push(await this.ids(text, signal));
    const result: TokenizeResult = { counts: tokens.map((t) => t.length), source: 'server' };
    const max = request.maxTokens;
    if (max !== undefined) {
      const truncated: string[] = [];
      for (const [i, text] of request.texts.entries()) {
        const ids = tokens[i] as number[];
        truncated.push(ids.length <= max ? text : await tokenPrefixAsync(text, max, (k) => this.text(ids.slice(0, k), signal)));
      }
      result.truncated = truncated;
    }
    return result;
  }

  /** The tokens of one user message as the server's chat route evaluates them. */
  private async chatIds(content: string, signal?: AbortSignal): Promise<number[]> {
    const messages = [{ role: 'user', content }];
    if (this.serverKind === 'vllm') return this.tokensOf(await this.post('/../tokenize', { model: this.model, messages, add_generation_prompt: true }, signal));
    const json = (await this.post('/../apply-template', { messages }, signal)) as { prompt?: unknown };
    if (typeof json?.prompt !== 'string') throw new EngineError('remote-error', 'POST /apply-template: the response has no prompt');
    return this.tokensOf(await this.post('/../tokenize', { content: json.prompt, add_special: true, parse_special: true }, signal));
  }

  private async ids(text: string, signal?: AbortSignal, special = false): Promise<number[]> {
    const body = this.serverKind === 'vllm' ? { model: this.model, prompt: text, add_special_tokens: special } : { content: text, add_special: special };
    return this.tokensOf(await this.post('/../tokenize', body, signal));
  }

  private tokensOf(json: unknown): number[] {
    const raw = (json as { tokens?: unknown } | null)?.tokens;
    if (!Array.isArray(raw)) throw new EngineError('remote-error', 'POST /tokenize: the response has no tokens array');
    // llama.cpp's server answers [{id, piece}] when asked for pieces; ids otherwise.
    const ids = raw.map((t: unknown) => (typeof t === 'number' ? t : Number((t as { id?: unknown })?.id)));
    if (ids.some((id) => !Number.isInteger(id))) throw new EngineError('remote-error', 'POST /tokenize: a token is not an integer id');
    return ids;
  }

  private async text(ids: number[], signal?: AbortSignal): Promise<string> {
    const body = this.serverKind === 'vllm' ? { model: this.model, tokens: ids } : { tokens: ids };
    const json = (await this.post('/../detokenize', body, signal)) as { content?: unknown; prompt?: unknown };
    const text = this.serverKind === 'vllm' ? json?.prompt : json?.content;
    if (typeof text !== 'string') throw new EngineError('remote-error', 'POST /detokenize: the response has no text');
    return text;
  }
}
