/**
 * The default tokenizer of Google `rouge-score` 0.1.2 (`rouge_score/tokenize.py`), reference note
 * rouge.md §3.1:
 *   1. lower-case (Python `str.lower()`; JS `toLowerCase()` applies the same Unicode mappings, incl.
 *      U+212A KELVIN SIGN → "k" and U+0130 "İ" → "i" + U+0307, whose combining dot then separates);
 *   2. replace every run of characters outside [a-z0-9] by one space — so punctuation, "_", accented
 *      and non-Latin letters, CJK and full-width digits are all separators ("café" → "caf",
 *      "3.5" → "3" "5", "don't" → "don" "t"), and non-English text silently loses most letters;
 *   3. split on whitespace;
 *   4. if stemming, apply NLTK's Porter stemmer ONLY to tokens longer than 3 characters;
 *   5. keep tokens matching ^[a-z0-9]+$ (drops the empty strings from leading/trailing spaces).
 */
import { porterStem } from './porterStemmer';

const NON_ALPHANUMERIC_RUN = /[^a-z0-9]+/g;

export function rougeScoreTokenize(text: string, stem: boolean): string[] {
  const tokens = text.toLowerCase().replace(NON_ALPHANUMERIC_RUN, ' ').split(' ');
  const out: string[] = [];
  for (const raw of tokens) {
    if (raw === '') continue;
    // Stemmed output of an [a-z0-9]+ token is again [a-z0-9]+ and non-empty, so step 5 only drops ''.
    out.push(stem && raw.length > 3 ? porterStem(raw) : raw);
  }
  return out;
}
