import { EngineError, type CallReport } from '../types';
import { abortable } from './abortable';
import type { OpenAiHttpClient } from './openAiHttpClient';
import type { RemoteScoringMode } from './remoteEngineConfig';
import { readEchoResponse } from './responseReaders';
import type { ScoredContinuation } from './types';

export type { ScoredContinuation } from './types';

/** A tiny request that shows whether the server echoes the prompt with logprobs. */
const probe = { prompt: 'The sky is', continuation: ' blue' };

/**
 * Log-probabilities of continuations through /completions with `echo: true`: the server returns
 * the logprob of every input token, and the continuation's tokens are picked out (echoLogprobs.ts).
 *
 * `max_tokens: 0` asks for nothing to be generated (the OpenAI API allowed it for exactly this);
 * servers that insist on at least one token (vLLM: "max_tokens must be at least 1") get 1 and the
 * generated token is ignored. `logprobs: 1` rather than 0 because some servers test the value for
 * truthiness (Python), and 0 turns echoed logprobs off there.
 *
 * Until one echo request has succeeded, a 400 is read as "cannot echo": first retry with
 * `max_tokens: 1`, then report `unsupported`. After one has succeeded, a 400 is the request's own
 * fault (e.g. too long for the context) and surfaces as `bad-request`. In `auto` mode a probe
 * settles this before the first real request, and a negative answer is remembered.
 */
export class EchoScorer {
  private maxTokens: 0 | 1 = 0;
  private echoConfirmed = false;
  private probing: Promise<void> | undefined;
  private cannotScore: EngineError | undefined;

  constructor(
    private readonly http: OpenAiHttpClient,
    private readonly model: string,
    private readonly mode: RemoteScoringMode,
    /** Aborts with the engine; the shared probe must not die with one caller's signal. */
    private readonly lifetime: AbortSignal,
  ) {}

  async ready(signal: AbortSignal | undefined): Promise<void> {
    if (this.mode === 'none') {
      throw new EngineError('unsupported', 'this server cannot score: scoring is set to "none" for this engine');
    }
    if (this.cannotScore) throw this.cannotScore;
    if (this.mode === 'echo-logprobs' || this.echoConfirmed) return;
    this.probing ??= this.scoreOne(probe.prompt, probe.continuation, this.lifetime).then(
      () => undefined,
      (error: unknown) => {
        this.probing = undefined;
        if (error instanceof EngineError && error.code === 'unsupported') this.cannotScore = error;
        throw error;
      },
    );
    await abortable(this.probing, signal, 'score');
  }

  async scoreOne(prompt: string, continuation: string, signal: AbortSignal, report?: CallReport): Promise<ScoredContinuation> {
    for (;;) {
      const maxTokens = this.maxTokens;
      const body = { model: this.model, prompt: prompt + continuation, echo: true, logprobs: 1, max_tokens: maxTokens, temperature: 0 };
      let json: unknown;
      try {
        json = await this.http.postJson('/completions', body, { signal, report });
      } catch (error) {
        if (!(error instanceof EngineError) || error.code !== 'bad-request' || this.echoConfirmed) throw error;
        if (maxTokens === 0) {
          this.maxTokens = 1;
          continue;
        }
        throw new EngineError('unsupported', `this server cannot score: it rejected echo with logprobs (${error.message})`);
      }
      const result = this.read(json, maxTokens, continuation);
      this.echoConfirmed = true;
      return result;
    }
  }

  private read(json: unknown, maxTokens: 0 | 1, continuation: string): ScoredContinuation {
    return readEchoResponse(json, maxTokens, continuation);
  }

}
