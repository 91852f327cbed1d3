/**
 * Checks of engine requests against the contract in `types.ts`, done before any work so a bad
 * request fails fast with `EngineError('bad-request')` instead of deep inside llama.cpp. Any engine
 * may use them; they encode the rules that make outputs deterministic (a sampled generation needs
 * an explicit seed).
 */
import { EngineError, type EmbedRequest, type GenerateRequest, type ScoreRequest, type TokenizeRequest } from './types';

const bad = (message: string): never => {
  throw new EngineError('bad-request', message);
};

const isNonNegativeFinite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

export function checkGenerateRequest(req: GenerateRequest): void {
  if ((req.prompt === undefined) === (req.messages === undefined)) bad('generate: give exactly one of prompt and messages');
  if (req.prompt !== undefined && typeof req.prompt !== 'string') bad('generate: prompt must be a string');
  if (req.messages !== undefined) {
    if (!Array.isArray(req.messages) || req.messages.length === 0) bad('generate: messages must be a non-empty array');
    req.messages.forEach((m, i) => {
      if (!m || !['system', 'user', 'assistant'].includes(m.role)) bad(`generate: messages[${i}].role must be system, user or assistant`);
      if (typeof m.content !== 'string') bad(`generate: messages[${i}].content must be a string`);
    });
  }
  if (!Number.isInteger(req.maxTokens) || req.maxTokens < 1) bad(`generate: maxTokens must be a positive integer, got ${req.maxTokens}`);
  const s = req.sampling;
  if (!s || !isNonNegativeFinite(s.temperature)) bad('generate: sampling.temperature must be a number >= 0');
  if (s.temperature > 0 && !Number.isInteger(s.seed)) bad('generate: a sampled generation (temperature > 0) needs an integer sampling.seed');
  for (const key of ['topK', 'topP', 'minP', 'repeatPenalty'] as const) {
    if (s[key] !== undefined && !isNonNegativeFinite(s[key])) bad(`generate: sampling.${key} must be a number >= 0`);
  }
  if (req.stop !== undefined && (!Array.isArray(req.stop) || req.stop.some((x) => typeof x !== 'string' || x === ''))) {
    bad('generate: stop must be an array of non-empty strings');
  }
  if (req.jsonSchema !== undefined && req.grammar !== undefined) bad('generate: give at most one of jsonSchema and grammar');
  if (req.jsonSchema !== undefined && (typeof req.jsonSchema !== 'object' || req.jsonSchema === null)) bad('generate: jsonSchema must be an object');
  if (req.grammar !== undefined && (typeof req.grammar !== 'string' || req.grammar.trim() === '')) bad('generate: grammar must be a non-empty GBNF string');
}

export function checkScoreRequest(req: ScoreRequest): void {
  if (typeof req.prompt !== 'string') bad('score: prompt must be a string');
  if (!Array.isArray(req.continuations) || req.continuations.length === 0) bad('score: continuations must be a non-empty array');
  req.continuations.forEach((c, i) => {
    if (typeof c !== 'string' || c === '') bad(`score: continuations[${i}] must be a non-empty string`);
  });
}

export function checkEmbedRequest(req: EmbedRequest): void {
  if (!Array.isArray(req.texts) || req.texts.length === 0) bad('embed: texts must be a non-empty array');
  req.texts.forEach((t, i) => {
    if (typeof t !== 'string' || t === '') bad(`embed: texts[${i}] must be a non-empty string`);
  });
}

export function checkTokenizeRequest(req: TokenizeRequest): void {
  if (!Array.isArray(req.texts)) bad('tokenize: texts must be an array');
  req.texts.forEach((t, i) => {
    if (typeof t !== 'string') bad(`tokenize: texts[${i}] must be a string`);
  });
  if (req.maxTokens !== undefined && (!Number.isInteger(req.maxTokens) || req.maxTokens < 0)) {
    bad(`tokenize: maxTokens must be a non-negative integer, got ${String(req.maxTokens)}`);
  }
  if (req.asPrompt !== undefined && req.asPrompt !== 'text' && req.asPrompt !== 'chat') bad(`tokenize: asPrompt must be 'text' or 'chat', got ${String(req.asPrompt)}`);
  if (req.asPrompt !== undefined && req.maxTokens !== undefined) bad('tokenize: asPrompt counts whole prompts and cannot be combined with maxTokens');
}
