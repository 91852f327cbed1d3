/**
 * Length budgets for prompts. Fair RAG trims with the generator's own tokenizer (fair-rag.md §6:
 * question to 256 tokens, each item to ⌊(512 − |q|)/#items⌋, the whole prompt to 512; Flan-T5).
 * The unit is injected as a `TokenCounter`:
 *
 * - `ModelTokenCounter`: the generator's own tokens, as the papers truncated, through the engine's
 *   `tokenize` operation (local: the model's tokenizer; remote: the server's /tokenize, else an
 *   estimate). Engines answer asynchronously and rendering is synchronous, so the counter answers
 *   from what it fetched and `settle(render)` renders until every count and cut it used was fetched.
 *
 * - `wordCounter` (the default of utility labeling): a "token" is a run of non-whitespace. It
 *   UNDER-counts subword tokens — English averages about 1.3 Flan-T5/Llama tokens per word — so a
 *   budget of 512 words is roughly 650–700 model tokens. Give the model that much context (plus
 *   maxTokens), or pick a smaller budget.
 * - `charCounter`: Unicode code points; exact and model-independent, for hard limits.
 * - anything else that implements `TokenCounter`.
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

/** An engine's tokenize operation as the counter needs it (engine/types.ts `Engine.tokenize`). */
export type TokenizeTexts = (texts: string[], maxTokens?: number) => Promise<{ counts: number[]; truncated?: string[] | undefined }>;

/**
 * Counts and cuts in a model's own tokens, answered synchronously from what was fetched before.
 * A text not fetched yet is answered by `provisional` (words) and remembered; `fetch()` asks the
 * engine for everything remembered (one request for counts, one per distinct cut length), and
 * `settle(compute)` runs a synchronous computation (rendering, planning) again until it needed
 * nothing new — usually three passes: the query, the documents' shares, the whole prompt.
 */
export class ModelTokenCounter implements TokenCounter {
  readonly unit = 'tokens';
  private readonly counts = new Map<string, number>();
  private readonly cuts = new Map<number, Map<string, string>>();
  private readonly wantCounts = new Set<string>();
  private readonly wantCuts = new Map<number, Set<string>>();
  /** Engine requests made (tests, diagnostics). */
  requests = 0;

  constructor(
    private readonly tokenize: TokenizeTexts,
    private readonly provisional: TokenCounter = wordCounter,
  ) {}

  count(text: string): number {
    const n = this.counts.get(text);
    if (n !== undefined) return n;
    this.wantCounts.add(text);
    return this.provisional.count(text);
  }

  truncate(text: string, max: number): string {
    if (max <= 0) return '';
    const n = this.counts.get(text);
    if (n !== undefined && n <= max) return text;
    const cut = this.cuts.get(max)?.get(text);
    if (cut !== undefined) return cut;
    let want = this.wantCuts.get(max);
    if (!want) this.wantCuts.set(max, (want = new Set()));
    want.add(text);
    return this.provisional.truncate(text, max);
  }

  /** Whether a count or cut was answered provisionally since the last fetch. */
  get pending(): boolean {
    return this.wantCounts.size > 0 || this.wantCuts.size > 0;
  }

  async fetch(): Promise<void> {
    const counts = [...this.wantCounts].filter((t) => !this.counts.has(t));
    this.wantCounts.clear();
    const cuts = [...this.wantCuts.entries()];
    this.wantCuts.clear();
    if (counts.length > 0) {
      this.requests++;
      const res = await this.tokenize(counts);
      counts.forEach((t, i) => this.counts.set(t, res.counts[i] as number));
    }
    for (const [max, texts] of cuts) {
      const list = [...texts];
      this.requests++;
      const res = await this.tokenize(list, max);
      let byText = this.cuts.get(max);
      if (!byText) this.cuts.set(max, (byText = new Map()));
      for (const [i, t] of list.entries()) {
        this.counts.set(t, res.counts[i] as number);
        byText.set(t, res.truncated?.[i] ?? t);
      }
    }
  }

  /** Run `compute` until it used only fetched counts and cuts (at most `maxPasses` times). */
  async settle<T>(compute: () => T, maxPasses = 8): Promise<T> {
    for (let pass = 1; ; pass++) {
      const out = compute();
      if (!this.pending) return out;
      if (pass >= maxPasses) throw new Error(`token budget: the prompt did not settle after ${maxPasses} passes`);
      await this.fetch();
    }
  }

  /** Forget everything fetched (between queries, to bound memory). */
  clear(): void {
    this.counts.clear();
    this.cuts.clear();
    this.wantCounts.clear();
    this.wantCuts.clear();
  }
}

/** Fair-RAG's budgets in units of `counter`: augmented prompts (query 256, total 512) and the bare-question baseline (total 512). */
export function fairRagBudgets(counter: TokenCounter): { augmented: PromptBudget; baseline: PromptBudget } {
  return { augmented: { counter, queryMax: 256, total: 512 }, baseline: { counter, total: 512 } };
}
