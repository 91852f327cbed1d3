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
  /** True while some answer given was provisional (a counter that fetches, then renders again: ModelTokenCounter). */
  readonly pending?: boolean;
}

/** How much of a prompt to keep; every limit is optional (no limit when absent). */
export interface PromptBudget {
  counter: TokenCounter;
  /** The query is cut to this many units before it is placed (Fair-RAG: 256). */
  queryMax?: number;
  /**
   * The whole prompt (with `suffix`, as `measure` counts it) is kept within this many units
   * (Fair-RAG: 512); with documents and `share` (the default), each document's item also gets an
   * equal share of what the query leaves: ⌊(total − |query|) / #documents⌋.
   */
  total?: number;
  /** Give each document an equal share of `total` (Fair-RAG's rule; default true). */
  share?: boolean;
  /**
   * How a prompt still over `total` is cut:
   * - 'paper-end' (the default here): its end is cut, as Fair-RAG's released code does
   *   (`tokens[:512]`); with documents first and the question last this cuts the question;
   * - 'documents': documents are cut from the end of the list (the last-ranked first: shortened,
   *   then dropped, then the one before), the query and the template's own text are kept; when they
   *   alone exceed `total`, rendering fails with a PromptBudgetError naming the sizes.
   */
  truncate?: 'paper-end' | 'documents';
  /** Text appended after the rendered prompt (an instruction); counted within `total`, never cut. */
  suffix?: string;
  /**
   * Counts the whole prompt as the engine will see it (beginning-of-sequence token, chat
   * template); default `counter.count`. It must be non-decreasing as text is removed from the end.
   */
  measure?: (prompt: string) => number;
  /** Where `total` comes from, for error messages (e.g. "the context size 512 − maxTokens 16"). */
  origin?: string;
}

/** What rendering within a budget cut. */
export interface PromptCuts {
  /** Whether the query was cut (queryMax, or the end of the prompt under 'paper-end'). */
  queryCut: boolean;
  /** Documents shortened (not dropped) to fit. */
  documentsCut: number;
  /** Documents left out entirely (from the end of the list). */
  documentsDropped: number;
  /** Whether the end of the whole prompt was cut ('paper-end'). */
  endCut: boolean;
  /** The whole prompt's size as `measure` counted it. */
  size: number | undefined;
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

/** What an engine's tokenizer answers, as the counter needs it (engine/types.ts `TokenizeResult`). */
export interface TokenizeAnswer {
  counts: number[];
  truncated?: string[] | undefined;
  /** 'model' | 'server' | 'estimate' */
  source?: string;
  contextSize?: number | undefined;
  estimate?: { method: string; margin: string; reason: string } | undefined;
}

/** An engine's tokenize operation as the counter needs it (engine/types.ts `Engine.tokenize`). */
export type TokenizeTexts = (texts: string[], maxTokens?: number, asPrompt?: 'text' | 'chat') => Promise<TokenizeAnswer>;

/**
 * Counts and cuts in a model's own tokens, answered synchronously from what was fetched before.
 * A text not fetched yet is answered by `provisional` (words) and remembered; `fetch()` asks the
 * engine for everything remembered (one request for counts, one per distinct cut length, one for
 * whole prompts), and `settle(compute)` runs a synchronous computation (rendering, planning) again
 * until it needed nothing new — usually a few passes: the query, the documents' shares, the whole
 * prompt, the documents cut to fit.
 *
 * `countPrompt(text)` counts a whole prompt as the engine will evaluate it (`promptMode`: 'text'
 * adds the beginning-of-sequence token, 'chat' the chat template). `probe()` asks the engine once
 * for its context size. `sources` and `estimate` say who counted (the model, a server, or an estimate).
 */
export class ModelTokenCounter implements TokenCounter {
  readonly unit = 'tokens';
  private readonly counts = new Map<string, number>();
  private readonly prompts = new Map<string, number>();
  private readonly cuts = new Map<number, Map<string, string>>();
  private readonly wantCounts = new Set<string>();
  private readonly wantPrompts = new Set<string>();
  private readonly wantCuts = new Map<number, Set<string>>();
  /** Engine requests made (tests, diagnostics). */
  requests = 0;
  /** Who counted: 'model', 'server', 'estimate' (every source an answer named). */
  readonly sources = new Set<string>();
  /** How the estimate counted, when any answer was estimated. */
  estimate: { method: string; margin: string; reason: string } | undefined;
  /** The engine's context size, when an answer named it. */
  contextSize: number | undefined;

  constructor(
    private readonly tokenize: TokenizeTexts,
    private readonly provisional: TokenCounter = wordCounter,
    readonly promptMode: 'text' | 'chat' = 'text',
  ) {}

  count(text: string): number {
    const n = this.counts.get(text);
    if (n !== undefined) return n;
    this.wantCounts.add(text);
    return this.provisional.count(text);
  }

  /** Tokens the engine evaluates for `text` as a whole prompt (see the class comment). */
  countPrompt(text: string): number {
    const n = this.prompts.get(text);
    if (n !== undefined) return n;
    this.wantPrompts.add(text);
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
    return this.wantCounts.size > 0 || this.wantCuts.size > 0 || this.wantPrompts.size > 0;
  }

  /** Ask the engine for its context size (and who counts) before anything is rendered. */
  async probe(): Promise<void> {
    this.note(await this.tokenize([''], undefined, this.promptMode));
  }

  async fetch(): Promise<void> {
    const counts = [...this.wantCounts].filter((t) => !this.counts.has(t));
    this.wantCounts.clear();
    const prompts = [...this.wantPrompts].filter((t) => !this.prompts.has(t));
    this.wantPrompts.clear();
    const cuts = [...this.wantCuts.entries()];
    this.wantCuts.clear();
    if (counts.length > 0) {
      this.requests++;
      const res = this.note(await this.tokenize(counts));
      counts.forEach((t, i) => this.counts.set(t, res.counts[i] as number));
    }
    if (prompts.length > 0) {
      this.requests++;
      const res = this.note(await this.tokenize(prompts, undefined, this.promptMode));
      prompts.forEach((t, i) => this.prompts.set(t, res.counts[i] as number));
    }
    for (const [max, texts] of cuts) {
      const list = [...texts];
      this.requests++;
      const res = this.note(await this.tokenize(list, max));
      let byText = this.cuts.get(max);
      if (!byText) this.cuts.set(max, (byText = new Map()));
      for (const [i, t] of list.entries()) {
        this.counts.set(t, res.counts[i] as number);
        byText.set(t, res.truncated?.[i] ?? t);
      }
    }
  }

  private note(res: TokenizeAnswer): TokenizeAnswer {
    if (res.source !== undefined) this.sources.add(res.source);
    if (res.estimate !== undefined) this.estimate ??= res.estimate;
    if (res.contextSize !== undefined) this.contextSize = res.contextSize;
    return res;
  }

  /** Run `compute` until it used only fetched counts and cuts (at most `maxPasses` times). */
  async settle<T>(compute: () => T, maxPasses = 64): Promise<T> {
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
    this.prompts.clear();
    this.cuts.clear();
    this.wantCounts.clear();
    this.wantPrompts.clear();
    this.wantCuts.clear();
  }
}

/** Fair-RAG's budgets in units of `counter`: augmented prompts (query 256, total 512) and the bare-question baseline (total 512). */
export function fairRagBudgets(counter: TokenCounter): { augmented: PromptBudget; baseline: PromptBudget } {
  return { augmented: { counter, queryMax: 256, total: 512 }, baseline: { counter, total: 512 } };
}
