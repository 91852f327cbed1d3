/**
 * A fingerprint of the weights behind a served model, for servers whose `GET /models` does not
 * tell weights apart (llama.cpp's server reports the GGUF's shape, identical for two files of the
 * same shape; the OpenAI API and gateways report nothing): the greedy continuations of a few fixed
 * prompts, with their log-probabilities where the server gives them.
 *
 * Taken at `remote add` (twice on the first endpoint: a server whose greedy outputs are not
 * reproducible gets no fingerprint and is marked unverified rather than checked against noise),
 * compared on every endpoint before it joins a pool. Its digest (of the texts) becomes part of the
 * model's cache identity.
 *
 * Two fingerprints match when every continuation is the same text, or — where kernels differ
 * (another build, GPU vs CPU) — when the texts agree up to a divergence and every token both
 * produced before it carries the same log-probability within `logprobTolerance`. Different
 * weights differ in the first token's log-probability far beyond that (tested on two tiny GGUFs
 * of one shape).
 */
import { createHash } from 'node:crypto';
import type { RemoteServerKind } from './remoteEngineConfig';
import { describeOutcome, probeRequest, type ProbeTarget } from './probeHttp';
import type { FingerprintOutput, WeightsFingerprint } from './types';

export const fingerprintPrompts = ['The capital of France is', 'Once upon a time, there was a', '1, 2, 3, 4, 5,'] as const;
export const fingerprintMaxTokens = 8;
/** Nats. Kernel and batch-split differences move log-probabilities by ~1e-3; other weights by far more. */
export const logprobTolerance = 0.05;

export type { FingerprintOutput, WeightsFingerprint } from './types';

export type FingerprintAttempt = { ok: true; fingerprint: WeightsFingerprint } | { ok: false; reason: string };

/** Greedy continuations of the fixed prompts on one endpoint. */
export async function takeFingerprint(target: ProbeTarget, model: string, serverKind: RemoteServerKind): Promise<FingerprintAttempt> {
  const outputs: FingerprintOutput[] = [];
  for (const prompt of fingerprintPrompts) {
    const body: Record<string, unknown> = { model, prompt, max_tokens: fingerprintMaxTokens, temperature: 0, logprobs: 1 };
    // llama.cpp: no KV-cache reuse, whose batch split can flip near-tie argmaxes (engines.md).
    if (serverKind === 'llama.cpp') body.cache_prompt = false;
    let outcome = await probeRequest(target, 'POST', '/completions', body);
    if (outcome.kind === 'http' && outcome.status === 400) {
      // A server that refuses logprobs still has greedy texts to compare.
      delete body.logprobs;
      outcome = await probeRequest(target, 'POST', '/completions', body);
    }
    if (outcome.kind !== 'ok') return { ok: false, reason: `POST /completions: ${describeOutcome(outcome)}` };
    const output = readOutput(outcome.json);
    if (!output) return { ok: false, reason: 'POST /completions: no completion text in the answer' };
    outputs.push(output);
  }
  return { ok: true, fingerprint: { method: 'greedy-v1', prompts: [...fingerprintPrompts], maxTokens: fingerprintMaxTokens, outputs, digest: digestOf(outputs) } };
}

export function digestOf(outputs: readonly FingerprintOutput[]): string {
  const hash = createHash('sha256');
  for (const o of outputs) hash.update(o.text).update('\u0000');
  return hash.digest('hex').slice(0, 16);
}

/** Whether two fingerprints come from the same weights; the reason when not. */
export function compareFingerprints(expected: WeightsFingerprint, got: WeightsFingerprint): { same: true } | { same: false; reason: string } {
  if (expected.method !== got.method || expected.prompts.join('\u0000') !== got.prompts.join('\u0000') || expected.maxTokens !== got.maxTokens) {
    return { same: false, reason: 'the fingerprints were taken differently' };
  }
  for (let i = 0; i < expected.outputs.length; i++) {
    const a = expected.outputs[i]!;
    const b = got.outputs[i]!;
    if (a.text === b.text) continue;
    const prompt = JSON.stringify(expected.prompts[i]);
    if (!a.tokens || !b.tokens || !a.logprobs || !b.logprobs) {
      return { same: false, reason: `greedy continuation of ${prompt}: ${JSON.stringify(b.text)}, recorded ${JSON.stringify(a.text)}` };
    }
    // Same weights under other kernels: identical up to a near tie, with equal log-probabilities before it.
    if (a.tokens[0] !== b.tokens[0]) {
      return { same: false, reason: `first greedy token after ${prompt}: ${JSON.stringify(b.tokens[0] ?? '')}, recorded ${JSON.stringify(a.tokens[0] ?? '')}` };
    }
    for (let t = 0; t < Math.min(a.tokens.length, b.tokens.length) && a.tokens[t] === b.tokens[t]; t++) {
      const d = Math.abs(a.logprobs[t]! - b.logprobs[t]!);
      if (!(d <= logprobTolerance)) {
        return { same: false, reason: `log-probability of greedy token ${t + 1} after ${prompt}: ${b.logprobs[t]!.toFixed(4)}, recorded ${a.logprobs[t]!.toFixed(4)}` };
      }
    }
  }
  return { same: true };
}

/** Text, and tokens with log-probabilities in the legacy (`tokens`/`token_logprobs`) or chat (`content`) shape. */
function readOutput(json: unknown): FingerprintOutput | undefined {
  const choice = (json as { choices?: Array<Record<string, unknown>> } | null)?.choices?.[0];
  if (!choice || typeof choice.text !== 'string') return undefined;
  const lp = choice.logprobs as Record<string, unknown> | null | undefined;
  let tokens: string[] | null = null;
  let logprobs: number[] | null = null;
  if (lp && Array.isArray(lp.tokens) && Array.isArray(lp.token_logprobs)) {
    tokens = lp.tokens.map(String);
    logprobs = lp.token_logprobs.map((v) => (typeof v === 'number' ? v : Number.NaN));
  } else if (lp && Array.isArray(lp.content)) {
    const content = lp.content as Array<{ token?: unknown; logprob?: unknown }>;
    tokens = content.map((c) => String(c.token ?? ''));
    logprobs = content.map((c) => (typeof c.logprob === 'number' ? c.logprob : Number.NaN));
  }
  if (logprobs?.some((v) => !Number.isFinite(v))) logprobs = null;
  return { text: choice.text, tokens, logprobs };
}
