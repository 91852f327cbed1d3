/**
 * How text becomes tokens, the same way for generation and for scoring, so a score is the
 * log-probability of exactly the tokens a generation would have seen.
 *
 * - Text is taken literally: no space is invented at its start (node-llama-cpp's
 *   "trimLeadingSpace"; SentencePiece tokenizers otherwise add one).
 * - A prompt gets the model's beginning-of-sequence token in front when the model asks for one,
 *   as LlamaCompletion does (this mirrors node-llama-cpp's internal resolveBeginningTokenToPrepend).
 * - A continuation is tokenized on its own and its ids are appended to the prompt's: the boundary
 *   is a token boundary even where tokenizing the joined text would merge across it, so
 *   `prompt: "The answer is", continuation: " yes"` scores the tokens of " yes" after those of the
 *   prompt. Put the separating space in the continuation.
 */
import { LlamaVocabularyType, type LlamaModel, type Token } from 'node-llama-cpp';

export function textTokens(model: LlamaModel, text: string): Token[] {
  return model.tokenize(text, false, 'trimLeadingSpace');
}

export function beginningToken(model: LlamaModel): Token | null {
  const type = model.vocabularyType;
  if (type === LlamaVocabularyType.rwkv || type === LlamaVocabularyType.ugm) return null;
  if (type === LlamaVocabularyType.wpm) return model.tokens.bos;
  return model.tokens.shouldPrependBosToken ? model.tokens.bos : null;
}

/** The tokens a prompt is evaluated as (beginning token included). */
export function promptTokens(model: LlamaModel, prompt: string): Token[] {
  const bos = beginningToken(model);
  const tokens = textTokens(model, prompt);
  return bos === null ? tokens : [bos, ...tokens];
}
