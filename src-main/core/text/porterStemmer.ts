/**
 * The Porter stemmer exactly as NLTK's `PorterStemmer()` behaves in its default mode
 * `NLTK_EXTENSIONS` — the stemmer Google `rouge-score` 0.1.2 uses when `use_stemmer=True`
 * (reference note rouge.md §3.1 and Pitfall 2: NLTK mode, not the original 1980 algorithm, so
 * "dying" → "die", "flies" → "fli", "dies" → "die").
 *
 * Algorithm: Porter, M. "An algorithm for suffix stripping", Program 14(3), 1980, steps 1a–5b, with
 * NLTK's departures, each marked "NLTK:" below:
 *   - a table of irregular forms consulted before stemming;
 *   - words of length ≤ 2 are returned unchanged;
 *   - step 1a: "ies" → "ie" when the whole word has length 4 ("ties" → "tie");
 *   - step 1b: "ied" → "ie" for 4-letter words, else "ied" → "i" ("died" → "die", "spied" → "spi");
 *   - condition *o also holds for a 2-letter stem vowel+consonant;
 *   - step 1c: y → i only when preceded by a consonant that is not the first letter;
 *   - step 2: "alli" → "al" is tried first and step 2 re-run on the result; "bli" → "ble" replaces
 *     "abli" → "able"; extra rules "fulli" → "ful" and "logi" → "log" (the "l" counted with the stem).
 *
 * Rule-list semantics matter for exactness: within one step the FIRST rule whose suffix matches is
 * the only one tried — if its condition fails the word is returned unchanged (except step 5a, which
 * tries both of its "e" rules). Input is expected in lower case (rouge-score lower-cases first).
 */

/** NLTK's irregular forms: word → stem, bypassing the algorithm. */
const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['sky', 'sky'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['news', 'news'],
  ['innings', 'inning'],
  ['inning', 'inning'],
  ['outings', 'outing'],
  ['outing', 'outing'],
  ['cannings', 'canning'],
  ['canning', 'canning'],
  ['howe', 'howe'],
  ['proceed', 'proceed'],
  ['exceed', 'exceed'],
  ['succeed', 'succeed'],
]);

type Condition = ((stem: string) => boolean) | null;
/** [suffix, replacement, condition on the stem left after removing the suffix]. */
type Rule = readonly [string, string, Condition];

function isVowelLetter(ch: string): boolean {
  return ch === 'a' || ch === 'e' || ch === 'i' || ch === 'o' || ch === 'u';
}

/** Porter's consonant: not a,e,i,o,u, and not a 'y' preceded by a consonant. */
function isConsonant(word: string, i: number): boolean {
  // Iterative form of the recursive definition: a run of y's alternates consonant/vowel
  // starting from the first letter before the run (or consonant at the word start).
  let k = i;
  while (k >= 0 && word[k] === 'y') k--;
  let consonant: boolean;
  if (k < 0) consonant = true; // word starts with y: y at 0 is a consonant
  else consonant = !isVowelLetter(word[k]!);
  // word[k] has that status; each following y flips it.
  if (k === i) return consonant;
  // k < 0: the y at index 0 is a consonant, so start flipping from index 1.
  const firstY = k < 0 ? 0 : k + 1;
  let status = k < 0 ? true : !consonant;
  for (let j = firstY + 1; j <= i; j++) status = !status;
  return status;
}

/** m in [C](VC){m}[V]: the number of vowel→consonant transitions. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const cons = isConsonant(stem, i);
    if (cons && prevVowel) m++;
    prevVowel = !cons;
  }
  return m;
}

const positiveMeasure = (stem: string): boolean => measure(stem) > 0;
const measureAbove1 = (stem: string): boolean => measure(stem) > 1;

function containsVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** Condition *d: ends with a double consonant. */
function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** Condition *o: ends consonant-vowel-consonant, last not w/x/y; NLTK: or is exactly vowel+consonant. */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n >= 3 && isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1)) {
    const last = word[n - 1];
    if (last !== 'w' && last !== 'x' && last !== 'y') return true;
  }
  return n === 2 && !isConsonant(word, 0) && isConsonant(word, 1);
}

/** Apply the first rule whose suffix matches; if its condition fails, leave the word unchanged. */
function applyFirstMatching(word: string, rules: readonly Rule[]): string {
  for (const [suffix, replacement, condition] of rules) {
    if (word.endsWith(suffix)) {
      const stem = word.slice(0, word.length - suffix.length);
      return condition === null || condition(stem) ? stem + replacement : word;
    }
  }
  return word;
}

function step1a(word: string): string {
  // NLTK: 'ties' -> 'tie', 'dies' -> 'die' (but 'flies' -> 'fli').
  if (word.endsWith('ies') && word.length === 4) return word.slice(0, -3) + 'ie';
  return applyFirstMatching(word, [
    ['sses', 'ss', null],
    ['ies', 'i', null],
    ['ss', 'ss', null],
    ['s', '', null],
  ]);
}

function step1b(word: string): string {
  // NLTK: 'died' -> 'die', 'spied' -> 'spi'.
  if (word.endsWith('ied')) return word.slice(0, -3) + (word.length === 4 ? 'ie' : 'i');
  if (word.endsWith('eed')) {
    const stem = word.slice(0, -3);
    return measure(stem) > 0 ? stem + 'ee' : word;
  }
  let stem: string | undefined;
  for (const suffix of ['ed', 'ing']) {
    if (word.endsWith(suffix)) {
      const candidate = word.slice(0, word.length - suffix.length);
      if (containsVowel(candidate)) {
        stem = candidate;
        break;
      }
    }
  }
  if (stem === undefined) return word;
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e';
  if (endsDoubleConsonant(stem)) {
    const last = stem[stem.length - 1]!;
    // (*d and not (*L or *S or *Z)) -> single letter; for l/s/z stop here unchanged.
    return last === 'l' || last === 's' || last === 'z' ? stem : stem.slice(0, -1);
  }
  // (m=1 and *o) -> E
  return measure(stem) === 1 && endsCvc(stem) ? stem + 'e' : stem;
}

function step1c(word: string): string {
  // NLTK: y -> i only after a consonant, and not when that consonant is the whole stem.
  return applyFirstMatching(word, [['y', 'i', (stem) => stem.length > 1 && isConsonant(stem, stem.length - 1)]]);
}

const STEP2_RULES: readonly Rule[] = [
  ['ational', 'ate', positiveMeasure],
  ['tional', 'tion', positiveMeasure],
  ['enci', 'ence', positiveMeasure],
  ['anci', 'ance', positiveMeasure],
  ['izer', 'ize', positiveMeasure],
  ['bli', 'ble', positiveMeasure], // NLTK/Martin: replaces 'abli' -> 'able'
  ['alli', 'al', positiveMeasure],
  ['entli', 'ent', positiveMeasure],
  ['eli', 'e', positiveMeasure],
  ['ousli', 'ous', positiveMeasure],
  ['ization', 'ize', positiveMeasure],
  ['ation', 'ate', positiveMeasure],
  ['ator', 'ate', positiveMeasure],
  ['alism', 'al', positiveMeasure],
  ['iveness', 'ive', positiveMeasure],
  ['fulness', 'ful', positiveMeasure],
  ['ousness', 'ous', positiveMeasure],
  ['aliti', 'al', positiveMeasure],
  ['iviti', 'ive', positiveMeasure],
  ['biliti', 'ble', positiveMeasure],
  ['fulli', 'ful', positiveMeasure], // NLTK
];

function step2(word: string): string {
  // NLTK: 'alli' -> 'al' first, then step 2 again on the result.
  if (word.endsWith('alli') && positiveMeasure(word.slice(0, -4))) return step2(word.slice(0, -4) + 'al');
  // NLTK: 'logi' -> 'log' with the measure taken on the word minus 'ogi' (the 'l' stays in the stem).
  const logi: Rule = ['logi', 'log', () => positiveMeasure(word.slice(0, -3))];
  return applyFirstMatching(word, [...STEP2_RULES, logi]);
}

const STEP3_RULES: readonly Rule[] = [
  ['icate', 'ic', positiveMeasure],
  ['ative', '', positiveMeasure],
  ['alize', 'al', positiveMeasure],
  ['iciti', 'ic', positiveMeasure],
  ['ical', 'ic', positiveMeasure],
  ['ful', '', positiveMeasure],
  ['ness', '', positiveMeasure],
];

const STEP4_RULES: readonly Rule[] = [
  ['al', '', measureAbove1],
  ['ance', '', measureAbove1],
  ['ence', '', measureAbove1],
  ['er', '', measureAbove1],
  ['ic', '', measureAbove1],
  ['able', '', measureAbove1],
  ['ible', '', measureAbove1],
  ['ant', '', measureAbove1],
  ['ement', '', measureAbove1],
  ['ment', '', measureAbove1],
  ['ent', '', measureAbove1],
  ['ion', '', (stem) => measure(stem) > 1 && (stem.endsWith('s') || stem.endsWith('t'))],
  ['ou', '', measureAbove1],
  ['ism', '', measureAbove1],
  ['ate', '', measureAbove1],
  ['iti', '', measureAbove1],
  ['ous', '', measureAbove1],
  ['ive', '', measureAbove1],
  ['ize', '', measureAbove1],
];

function step5a(word: string): string {
  // Both 'e' rules are tried (unlike the other steps): (m>1) E -> ; (m=1 and not *o) E -> .
  if (!word.endsWith('e')) return word;
  const stem = word.slice(0, -1);
  const m = measure(stem);
  if (m > 1) return stem;
  if (m === 1 && !endsCvc(stem)) return stem;
  return word;
}

function step5b(word: string): string {
  // (m>1 and *d and *L) -> single letter; the measure is of the word minus one 'l'.
  return applyFirstMatching(word, [['ll', 'l', () => measure(word.slice(0, -1)) > 1]]);
}

/** Stem one lower-case word as NLTK `PorterStemmer().stem(word)` does. */
export function porterStem(word: string): string {
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  if (word.length <= 2) return word; // NLTK: 1–2 letter strings are not stemmed
  let w = step1a(word);
  w = step1b(w);
  w = step1c(w);
  w = step2(w);
  w = applyFirstMatching(w, STEP3_RULES);
  w = applyFirstMatching(w, STEP4_RULES);
  w = step5a(w);
  return step5b(w);
}
