/**
 * A SentencePiece-style ("llama" tokenizer) vocabulary for generated test models. With byte
 * fallback any UTF-8 text tokenizes: characters that are not pieces become `<0xXX>` byte tokens.
 *
 * llama.cpp's SPM tokenizer starts from single characters and repeatedly merges the adjacent pair
 * whose concatenation is a piece with the highest score, so every piece here is reachable through
 * its prefixes (`▁t`, `▁th`, `▁the`): each word contributes its whole prefix chain. Scores are
 * −id, so earlier (shorter, commoner) pieces merge first.
 */
import { TokenType } from './ggufFormat';

export interface TinyVocab {
  tokens: string[];
  scores: number[];
  types: TokenType[];
  unk: number;
  bos: number;
  eos: number;
  /** Ids of tokens a greedy tiny model should never emit (control, unknown, byte tokens). */
  nonText: number[];
}

/** SentencePiece's visible space. */
export const SPACE = '\u2581';

/** ChatML turn markers, used by the tiny models' chat template. */
export const IM_START = '<|im_start|>';
export const IM_END = '<|im_end|>';

// Common English words plus the vocabulary of retrieval experiments, so typical prompts tokenize
// into a few pieces per word rather than into single characters.
const WORDS = `the of and to in is it that for on was with as be by at this are from or an have not
but they which one you were all we can her has there been if more when will would who so no
what about out up into than them only other new some could time these two may first then do
any like my now over such our man me even most made after also did many before must through
back years where much your way well down should because each just those people how too little
state good very make world still own see men work long get here between both life being under
never day same another know while last might us great old year off come since against go came
right used take three document documents query queries answer answers question questions
relevant irrelevant retrieval retrieve ranking rank ranked fair fairness exposure group groups
user users model models generate generated text context prompt system assistant yes true false
null json score scores item items list name value number result results source sources cite
citation passage passages search engine data set test train evaluation metric metrics
language information paper author authors title summary response responses`
  .split(/\s+/)
  .filter(Boolean);

const LOWER = 'abcdefghijklmnopqrstuvwxyz';

export function buildTinyVocab(size: number): TinyVocab {
  const tokens: string[] = [];
  const types: TokenType[] = [];
  const seen = new Set<string>();
  const add = (text: string, type: TokenType): void => {
    if (seen.has(text) || tokens.length >= size) return;
    seen.add(text);
    tokens.push(text);
    types.push(type);
  };

  add('<unk>', TokenType.UNKNOWN);
  add('<s>', TokenType.CONTROL);
  add('</s>', TokenType.CONTROL);
  for (let b = 0; b < 256; b++) add(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`, TokenType.BYTE);
  add(IM_START, TokenType.CONTROL);
  add(IM_END, TokenType.CONTROL);
  const firstText = tokens.length;
  if (size < firstText + 1 + 94) throw new RangeError(`a tiny vocabulary needs at least ${firstText + 95} tokens, got ${size}`);

  add(SPACE, TokenType.NORMAL);
  for (let c = 0x21; c <= 0x7e; c++) add(String.fromCharCode(c), TokenType.NORMAL);
  for (const word of WORDS) {
    const piece = SPACE + word;
    for (let len = 2; len <= piece.length; len++) add(piece.slice(0, len), TokenType.NORMAL);
  }
  // Filler for larger vocabularies: letter pairs, then word-initial letter pairs and triples.
  for (const a of LOWER) for (const b of LOWER) add(a + b, TokenType.NORMAL);
  for (const a of LOWER) for (const b of LOWER) add(SPACE + a + b, TokenType.NORMAL);
  for (const a of LOWER) for (const b of LOWER) for (const c of LOWER) add(SPACE + a + b + c, TokenType.NORMAL);
  for (const a of LOWER) for (const b of LOWER) for (const c of LOWER) add(a + b + c, TokenType.NORMAL);
  if (tokens.length < size) throw new RangeError(`tiny vocabularies go up to ${tokens.length} tokens, asked for ${size}`);

  const nonText: number[] = [];
  types.forEach((t, id) => {
    if (t !== TokenType.NORMAL) nonText.push(id);
  });
  return { tokens, types, scores: tokens.map((_, id) => -id), unk: 0, bos: 1, eos: 2, nonText };
}
