/**
 * Tokenizers for in-memory BM25 (candidate-set scoring, e.g. LaMP profiles).
 *
 * Default (`words`): Unicode-aware, lower-cased, tokens are maximal runs of letters, digits and
 * combining marks (`[\p{L}\p{M}\p{N}]+`); everything else (punctuation, symbols, whitespace)
 * separates tokens, so "Don't stop-words!" → ["don", "t", "stop", "words"]. This is close to
 * SQLite FTS5's `unicode61` tokenizer, without its diacritic folding.
 *
 * `whitespace`: Python `str.split()` with no argument, case kept — the tokenization of the
 * Fair-RAG code (rank_bm25's BM25Okapi over `text.split()`; reference/fair-rag.md §7: "whitespace
 * tokens, case-sensitive"). Punctuation stays attached ("cat." ≠ "cat").
 *
 * Stop words and stemming are off by default (neither Fair-RAG nor rank_bm25 uses them). A stemmer
 * is passed in as a function so this module stays free of any particular stemmer.
 */

import { pySplit } from '../text/pythonWhitespace';

export type TokenizerMode = 'words' | 'whitespace';

export interface TokenizerOptions {
  /** Default `words`. */
  mode?: TokenizerMode;
  /** Lower-case before splitting (default: true for `words`, false for `whitespace`). */
  lowercase?: boolean;
  /** Tokens to drop, compared after lower-casing (when on) and before stemming. */
  stopwords?: ReadonlySet<string>;
  /** Applied to every kept token, e.g. a Porter stemmer. */
  stem?: (token: string) => string;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

export function tokenize(text: string, options: TokenizerOptions = {}): string[] {
  const mode = options.mode ?? 'words';
  const lowercase = options.lowercase ?? mode === 'words';
  const source = lowercase ? text.toLowerCase() : text;
  let tokens: string[];
  // Python's whitespace, not JS `\s` (they differ on U+001C–U+001F, U+0085 and U+FEFF).
  if (mode === 'whitespace') tokens = pySplit(source);
  else if (mode === 'words') tokens = source.match(WORD) ?? [];
  else throw new RangeError(`unknown tokenizer mode '${String(mode)}'`);
  const { stopwords, stem } = options;
  if (stopwords && stopwords.size > 0) tokens = tokens.filter((t) => !stopwords.has(t));
  if (stem) tokens = tokens.map(stem);
  return tokens;
}

/** The tokenizer of the Fair-RAG code: `text.split()`, case-sensitive, nothing removed. */
export const FAIR_RAG_TOKENIZER: Readonly<TokenizerOptions> = Object.freeze({ mode: 'whitespace', lowercase: false });

/**
 * Lucene's default English stop set (`EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`, 33 words), the
 * list Anserini/Pyserini apply by default. Offered for `stopwords`; not applied unless asked.
 */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on',
  'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with',
]);
