/**
 * `tokenize` for a remote engine through the server's own tokenizer where it has one:
 * - llama.cpp's server: POST /tokenize {content, add_special: false} → {tokens}; POST /detokenize
 *   {tokens} → {content};
 * - vLLM: POST /tokenize {model, prompt, add_special_tokens: false} → {tokens, count}; POST
 *   /detokenize {model, tokens} → {prompt}.
 * Both live at the server root, beside /v1 (the path `/../tokenize` resolves there from a base URL
 * ending in /v1, and stays at the root otherwise). The OpenAI API has no tokenizer endpoint: there,
 * and when a server answers 404 (the endpoint is off), the stated fallback is used: UTF-8 bytes / 4
 * rounded up (tokenBudget.ts, `source: 'estimate'`), remembered for the engine's lifetime.
 */
import { estimateTokenize, tokenPrefixAsync } from '../tokenBudget';
import { EngineError, type TokenizeRequest, type TokenizeResult } from '../types';
import type { RemoteServerKind } from './remoteEngineConfig';

export type PostJson = (path: string, body: unknown, signal: AbortSignal | undefined) => Promise<unknown>;

export class ServerTokenizer {
  private missing = false;

  constructor(
    private readonly serverKind: RemoteServerKind,
    private readonly model: string,
    private readonly post: PostJson,
  ) {}

  async tokenize(request: TokenizeRequest, signal?: AbortSignal): Promise<TokenizeResult> {
    if (this.serverKind === 'openai' || this.missing) return estimateTokenize(request);
    try {
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
    } catch (err) {
      if (err instanceof EngineError && err.code === 'remote-error' && /HTTP 404/.test(err.message)) {
        this.missing = true;
        return estimateTokenize(request);
      }
      throw err;
    }
  }

  private async ids(text: string, signal?: AbortSignal): Promise<number[]> {
    const body = this.serverKind === 'vllm' ? { model: this.model, prompt: text, add_special_tokens: false } : { content: text, add_special: false };
    const json = (await this.post('/../tokenize', body, signal)) as { tokens?: unknown };
    const raw = json?.tokens;
    if (!Array.isArray(raw)) throw new EngineError('remote-error', 'POST /tokenize: the response has no tokens array');
    // llama.cpp's server answers [{id, piece}] when asked for pieces; ids otherwise.
    return raw.map((t: unknown) => (typeof t === 'number' ? t : Number((t as { id?: unknown })?.id)));
  }

  private async text(ids: number[], signal?: AbortSignal): Promise<string> {
    const body = this.serverKind === 'vllm' ? { model: this.model, tokens: ids } : { tokens: ids };
    const json = (await this.post('/../detokenize', body, signal)) as { content?: unknown; prompt?: unknown };
    const text = this.serverKind === 'vllm' ? json?.prompt : json?.content;
    if (typeof text !== 'string') throw new EngineError('remote-error', 'POST /detokenize: the response has no text');
    return text;
  }
}
