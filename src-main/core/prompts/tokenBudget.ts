/**
 * Length budgets for prompts. Fair RAG trims with the generator's own tokenizer (fair-rag.md §6:
 * question to 256 tokens, each item to ⌊(512 − |q|)/#items⌋, the whole prompt to 512; Flan-T5).
 * Our engines do not hand a tokenizer to callers, so the unit is injected as a `TokenCounter`:
 *
 * - `wordCounter` (the default of utility labeling): a "token" is a run of non-whitespace. It
 *   UNDER-counts subword tokens — English averages about 1.3 Flan-T5/Llama tokens per word — so a
 *   budget of 512 words is roughly 650–700 model tokens. Give the model that much context (plus
 *   maxTokens), or pick a smaller budget.
 * - `charCounter`: Unicode code points; exact and model-independent, for hard limits.
 * - anything else that implements `TokenCounter` (a real tokenizer, when one is exposed).
 *
 * Truncation keeps a prefix, as Fair-RAG's `tokens[:n]` does, and never splits a word (words) or a
 * surrogate pair (chars). Text within budget is returned unchanged (whitespace kept).
 */

export interface TokenCounter {
  /** Name recorded in provenance, e.g. 'words'. */
  readonly unit: string;
  count(text: string): number;
  /** The longest prefix of `text` with at most `max` units (`text` itself when it fits). */
  truncate(text: string, max: number): string;
}

/** How much of a prompt to keep; every limit is optional (no limit when absent). */
export interface PromptBudget {
  counter: TokenCounter;
  /** The query is cut to this many units before it is placed (Fair-RAG: 256). */
  queryMax?: number;
  /**
   * The whole prompt is cut to this many units (Fair-RAG: 512); with documents, each document's
   * item also gets an equal share of what the query leaves: ⌊(total − |query|) / #documents⌋.
   */
  total?: number;
}

const WORD = /\S+/g;

export const wordCounter: TokenCounter = {
  unit: 'words',
  count(text) {
    return text.match(WORD)?.length ?? 0;
  },
  truncate(text, max) {
    if (max <= 0) return '';
    WORD.lastIndex = 0;
    let seen = 0;
    for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
      seen++;
      if (seen === max) {
        const end = m.index + m[0].length;
        WORD.lastIndex = 0;
        // Cut only when more words follow; otherwise keep the text as it is (trailing space too).
        return /\S/.test(text.slice(end)) ? text.slice(0, end) : text;
      }
    }
    return text;
  },
};

export const charCounter: TokenCounter = {
  unit: 'chars',
  count(text) {
    let n = 0;
    for (const _ of text) n++;
    return n;
  },
  truncate(text, max) {
    if (max <= 0) return '';
    let n = 0;
    let end = 0;
    for (const ch of text) {
      if (n === max) return text.slice(0, end);
      n++;
      end += ch.length;
    }
    return text;
  },
};

/** Fair-RAG's budgets in units of `counter`: augmented prompts (query 256, total 512) and the bare-question baseline (total 512). */
export function fairRagBudgets(counter: TokenCounter): { augmented: PromptBudget; baseline: PromptBudget } {
  return { augmented: { counter, queryMax: 256, total: 512 }, baseline: { counter, total: 512 } };
}
