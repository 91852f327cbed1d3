/**
 * How text becomes tokens, the same way for generation and for scoring, so a score is the
 * log-probability of exactly the tokens a generation would have seen — and the same way as
 * llama.cpp's server tokenizes a text prompt, so one prompt is one token sequence on every engine
 * (issue 24 item 2).
 *
 * - A prompt's text is tokenized by the model's own rule, as llama.cpp (`llama_tokenize`) and the
 *   model's reference tokenizer do: a SentencePiece ("llama") vocabulary puts its space prefix
 *   (`▁`) in front unless the GGUF says `tokenizer.ggml.add_space_prefix = false`; other
 *   vocabularies add none. Special-token text in a prompt (`<s>`) stays text.
 *   Until this rule (TOKENIZATION in protocol.ts, part of the cache identity) the prompt was tokenized without the prefix, so the
 *   server saw one token more than the local engine on every call.
 * - A continuation (scoring) is taken literally: no space is invented at its start
 *   (node-llama-cpp's "trimLeadingSpace"), since it continues the prompt's text.
 * - A prompt gets the model's beginning-of-sequence token in front when the model asks for one,
 *   as LlamaCompletion does (this mirrors node-llama-cpp's internal resolveBeginningTokenToPrepend).
 * - A continuation is tokenized on its own and its ids are appended to the prompt's: the boundary
 *   is a token boundary even where tokenizing the joined text would merge across it, so
 *   `prompt: "The answer is", continuation: " yes"` scores the tokens of " yes" after those of the
 *   prompt. Put the separating space in the continuation.
 */
import { LlamaVocabularyType, type LlamaModel, type Token } from 'node-llama-cpp';

/** A continuation's tokens: the text literally, no space invented at its start. */
export function textTokens(model: LlamaModel, text: string): Token[] {
  return model.tokenize(text, false, 'trimLeadingSpace');
}

/** A prompt's text tokens (no beginning token) by the model's rule: llama.cpp's own tokenizer call. */
export function promptTextTokens(model: LlamaModel, text: string): Token[] {
  return model.tokenize(text, false);
}

export function beginningToken(model: LlamaModel): Token | null {
  const type = model.vocabularyType;
  if (type === LlamaVocabularyType.rwkv || type === LlamaVocabularyType.ugm) return null;
  if (type === LlamaVocabularyType.wpm) return model.tokens.bos;
  return model.tokens.shouldPrependBosToken ? model.tokens.bos : null;
}

/** The token node-llama-cpp's embedding context appends to a text (its `resolveEndTokenToAppend`), if any. */
export function embeddingEndToken(model: LlamaModel): Token | null {
  const type = model.vocabularyType;
  if (type === LlamaVocabularyType.rwkv) return null;
  if (type === LlamaVocabularyType.wpm) return model.tokens.sep;
  if (type === LlamaVocabularyType.ugm) return model.tokens.eos;
  return model.tokens.shouldAppendEosToken ? model.tokens.eos : null;
}

/**
 * The most text tokens (`promptTextTokens`) an embedding context of `contextSize` takes whole:
 * node-llama-cpp refuses an input of `contextSize` tokens or more, the beginning and end tokens it
 * adds included (LlamaEmbeddingContext.getEmbeddingFor).
 */
export function embeddingTextLimit(model: LlamaModel, contextSize: number): number {
  return Math.max(0, contextSize - 1 - (beginningToken(model) === null ? 0 : 1) - (embeddingEndToken(model) === null ? 0 : 1));
}

/** The tokens a prompt is evaluated as (beginning token included). */
export function promptTokens(model: LlamaModel, prompt: string): Token[] {
  const bos = beginningToken(model);
  const tokens = promptTextTokens(model, prompt);
  return bos === null ? tokens : [bos, ...tokens];
}
