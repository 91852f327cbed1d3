/**
 * Token budgets for RichRAG's prompts (the generator's answer prompt and the list-wise ranker's step
 * prompts), counted as the engine counts: every token it evaluates for the whole prompt (the
 * beginning-of-sequence token of a text prompt, the chat template around a user message), through
 * the engine's own `tokenize` (local: the model's tokenizer; remote: the server's /tokenize, else the
 * stated upper-bound estimate, marked as one).
 *
 * The budget (`total`) defaults to what the context leaves: the engine's context size − the tokens
 * the call may generate (generation.maxTokens; a ranker step's constraint length). A spec total above
 * that is lowered to it (the origin says so). Without a known context size and without a spec total
 * there is no budget (the report says so).
 *
 * Only documents are cut, never the question, the sub-aspects, the ids chosen so far or the
 * template's own text. Every shown document keeps its place (none is dropped: the ranker may choose
 * only among candidates it sees, and the generator's k sources are the condition under study); each
 * document's text is cut to a common cap of c tokens, the largest c for which the whole prompt fits
 * ("water-filling": documents shorter than c keep their whole text). When the prompt with every
 * document's text removed (titles, labels and aspect tags kept) is still over the budget, the prompt
 * is refused with a DataError naming both sizes and what to change.
 *
 * `docWords` (when the spec sets one) cuts each document to its first words first, as before; the
 * token budget then applies to what is left.
 */
import type { GeneratorRef } from '../../api/contract/models';
import type { RichRagSpec } from '../../api/contract/richrag';
import { DataError } from '../../core/errors';
import { waterLevel } from '../../engine/tokenBudget';
import type { TokenizeRequest, TokenizeResult } from '../../engine/types';
import { choiceConstraint, resolveConstraint } from './constraints';
import { docLabel } from './items';

export { waterLevel };

export type TokenizeFn = (request: TokenizeRequest) => Promise<TokenizeResult>;

/** What the budget did to one prompt. */
export interface PromptFit {
  prompt: string;
  /** The documents' texts as the prompt shows them. */
  bodies: readonly string[];
  /** Tokens the engine evaluates for the prompt (as counted), or undefined when no budget applied. */
  tokens: number | undefined;
  /** Documents whose text was cut to fit (0: the prompt fitted as rendered). */
  documentsCut: number;
  /** The per-document cap in tokens, when documents were cut. */
  cap?: number;
}

/** The budget as a run applied it, for stats, manifest and warnings. */
export interface PromptBudgetReport {
  /** 'tokens' (the model's or the server's tokenizer), 'estimated tokens' (no tokenizer answered: an upper bound), or 'none'. */
  unit: 'tokens' | 'estimated tokens' | 'none';
  total: number | null;
  origin: string;
  counts: string;
  estimate?: { method: string; margin: string; reason: string };
  prompts: number;
  promptsCut: number;
  documentsCut: number;
}

/**
 * The generator's budget for answer prompts, as the run sets it (the run, the prompt preview and the
 * US³ export all take it from here): generation.promptBudget.total, else the context size − generation.maxTokens.
 */
export function generatorBudget(spec: Pick<RichRagSpec, 'generation'>, tokenize: TokenizeFn): Promise<RichRagBudget> {
  return RichRagBudget.create(tokenize, {
    chat: spec.generation.chat,
    requested: spec.generation.promptBudget?.total,
    reserve: spec.generation.maxTokens,
    reserveName: 'generation.maxTokens',
    field: 'generation.promptBudget',
  });
}

/**
 * The list-wise ranker's budget for its step prompts, as the run sets it: ranker.promptBudget.total,
 * else the context size − a step's maxTokens (the constraint length of the longest id D1…DM, M the
 * pool's capacity).
 */
export function rankerBudget(spec: Pick<RichRagSpec, 'ranker' | 'retrieval'>, ref: GeneratorRef, tokenize: TokenizeFn): Promise<RichRagBudget> {
  const reserve = choiceConstraint([docLabel(spec.retrieval.capacity - 1)], resolveConstraint(spec.ranker.constraint, ref)).maxTokens ?? 0;
  return RichRagBudget.create(tokenize, {
    chat: spec.ranker.chat,
    requested: spec.ranker.promptBudget?.total,
    reserve,
    reserveName: "a step's maxTokens",
    field: 'ranker.promptBudget',
  });
}

/**
 * The budget of the US³ / SFT training prompts (the ranker's input x = {q, Ŝ, P} of each exported
 * record), in the ranker's tokens: preferences.promptBudget.total, else the ranker's context size −
 * (the longest completion the file holds + 1 end-of-sequence token), so that a record's prompt and
 * completion fit the model that ranked. `completions` are the file's completion strings.
 */
export async function trainingBudget(spec: Pick<RichRagSpec, 'ranker' | 'preferences'>, tokenize: TokenizeFn, completions: readonly string[]): Promise<RichRagBudget> {
  const distinct = [...new Set(completions)];
  const longest = distinct.length > 0 ? Math.max(...(await tokenize({ texts: distinct })).counts) : 0;
  return RichRagBudget.create(tokenize, {
    chat: spec.ranker.chat,
    requested: spec.preferences.promptBudget?.total,
    reserve: longest + 1,
    reserveName: 'the longest completion + 1 (end of sequence)',
    field: 'preferences.promptBudget',
  });
}

/** Text bodies cut to at most `cap` tokens each, as the engine cuts (memoised). */
export class RichRagBudget {
  readonly total: number | undefined;
  readonly origin: string;
  private readonly counts = new Map<string, number>();
  private readonly cuts = new Map<string, string>();
  private readonly sources = new Set<string>();
  private estimate: { method: string; margin: string; reason: string } | undefined;
  private prompts = 0;
  private promptsCut = 0;
  private documentsCut = 0;

  private constructor(
    private readonly tokenize: TokenizeFn,
    readonly promptMode: 'text' | 'chat',
    total: number | undefined,
    origin: string,
    /** The spec field the budget belongs to, for errors ('generation.promptBudget'). */
    readonly field: string,
  ) {
    this.total = total;
    this.origin = origin;
  }

  /**
   * Probe the engine's context size (one tokenize of an empty prompt) and set the budget:
   * `requested` (the spec's total) when it fits what the context leaves, else contextSize − reserve.
   */
  static async create(tokenize: TokenizeFn, options: { chat: boolean; requested: number | undefined; reserve: number; reserveName: string; field: string }): Promise<RichRagBudget> {
    const promptMode = options.chat ? 'chat' : 'text';
    const probe = await tokenize({ texts: [''], asPrompt: promptMode });
    const contextSize = probe.contextSize;
    const limit = contextSize !== undefined ? contextSize - options.reserve : undefined;
    let total: number | undefined;
    let origin: string;
    if (limit === undefined) {
      total = options.requested;
      origin = options.requested !== undefined ? `${options.field}.total (the engine did not report its context size)` : "none (the engine did not report its context size and the spec sets no total)";
    } else if (options.requested !== undefined && options.requested <= limit) {
      total = options.requested;
      origin = `${options.field}.total`;
    } else {
      total = limit;
      const context = `the context size ${contextSize} − ${options.reserveName} ${options.reserve}`;
      origin = options.requested === undefined ? context : `${context} (${options.field}.total ${options.requested} lowered to fit the context)`;
    }
    if (total !== undefined && total < 1) throw new DataError(`no room for a prompt: ${origin} leaves ${total} tokens`, { field: options.field });
    const budget = new RichRagBudget(tokenize, promptMode, total, origin, options.field);
    budget.note(probe);
    return budget;
  }

  /** Whether any count so far was an estimate (no tokenizer answered). */
  get estimated(): boolean {
    return this.sources.has('estimate');
  }

  /**
   * The prompt `render(bodies)` within the budget, cutting the bodies (never anything else):
   * unchanged when it fits; otherwise every body to a common cap, the largest that fits.
   * `what` names the prompt in an error ("the answer prompt of condition 'x'").
   */
  async fit(render: (bodies: readonly string[]) => string, bodies: readonly string[], what: string, signal?: AbortSignal): Promise<PromptFit> {
    const full = render(bodies);
    if (this.total === undefined) return { prompt: full, bodies, tokens: undefined, documentsCut: 0 };
    const total = this.total;
    this.prompts++;
    const fullSize = await this.promptSize(full, signal);
    if (fullSize <= total) return { prompt: full, bodies, tokens: fullSize, documentsCut: 0 };
    const bare = render(bodies.map(() => ''));
    const bareSize = await this.promptSize(bare, signal);
    if (bareSize > total) {
      throw new DataError(
        `${what} is ${fullSize} tokens and ${bareSize} without any document text (the question, sub-aspects, titles and template are never cut); the budget is ${total} (${this.origin}): ` +
          'shorten the template or the ranker window, or give the model a larger context size',
        { field: this.field },
      );
    }
    const lengths = await this.bodyCounts(bodies, signal);
    // The largest common cap c with Σ min(len_i, c) ≤ what the rest of the prompt leaves, then
    // lowered by the overflow (shared over the cut documents) until the whole prompt fits: the
    // pieces' counts are not exactly additive (tokens merge at the seams).
    let cap = waterLevel(lengths, total - bareSize);
    for (;;) {
      signal?.throwIfAborted();
      const cut = await this.cutBodies(bodies, lengths, cap, signal);
      const prompt = render(cut);
      const size = await this.promptSize(prompt, signal);
      const documentsCut = lengths.filter((n) => n > cap).length;
      if (size <= total || cap === 0) {
        if (size > total) throw new DataError(`${what}: the prompt is ${size} tokens with every document's text cut; the budget is ${total} (${this.origin})`, { field: this.field });
        this.promptsCut++;
        this.documentsCut += documentsCut;
        return { prompt, bodies: cut, tokens: size, documentsCut, cap };
      }
      cap = Math.max(0, cap - Math.max(1, Math.ceil((size - total) / Math.max(1, documentsCut))));
    }
  }

  report(): PromptBudgetReport {
    const estimated = this.estimated;
    return {
      unit: this.total === undefined ? 'none' : estimated ? 'estimated tokens' : 'tokens',
      total: this.total ?? null,
      origin: this.origin,
      counts:
        this.total === undefined
          ? 'not counted (no budget)'
          : `every token the engine evaluates for the prompt: ${this.promptMode === 'chat' ? 'the chat template around one user message' : 'the beginning-of-sequence token'} (the call's generated tokens are left free)` +
            (estimated ? '; an upper-bound estimate, no tokenizer answered' : ''),
      ...(estimated && this.estimate ? { estimate: this.estimate } : {}),
      prompts: this.prompts,
      promptsCut: this.promptsCut,
      documentsCut: this.documentsCut,
    };
  }

  private note(res: TokenizeResult): TokenizeResult {
    this.sources.add(res.source);
    if (res.estimate) this.estimate ??= res.estimate;
    return res;
  }

  private async promptSize(prompt: string, signal?: AbortSignal): Promise<number> {
    const res = this.note(await this.tokenize({ texts: [prompt], asPrompt: this.promptMode }));
    signal?.throwIfAborted();
    return res.counts[0] as number;
  }

  private async bodyCounts(bodies: readonly string[], signal?: AbortSignal): Promise<number[]> {
    const want = [...new Set(bodies.filter((b) => !this.counts.has(b)))];
    if (want.length > 0) {
      const res = this.note(await this.tokenize({ texts: want }));
      signal?.throwIfAborted();
      this.remember(this.counts);
      want.forEach((t, i) => this.counts.set(t, res.counts[i] as number));
    }
    return bodies.map((b) => this.counts.get(b) as number);
  }

  private async cutBodies(bodies: readonly string[], lengths: readonly number[], cap: number, signal?: AbortSignal): Promise<string[]> {
    const key = (b: string) => `${cap}\u0000${b}`;
    const want = [...new Set(bodies.filter((b, i) => (lengths[i] as number) > cap && cap > 0 && !this.cuts.has(key(b))))];
    if (want.length > 0) {
      const res = this.note(await this.tokenize({ texts: want, maxTokens: cap }));
      signal?.throwIfAborted();
      this.remember(this.cuts);
      want.forEach((t, i) => this.cuts.set(key(t), res.truncated?.[i] ?? t));
    }
    return bodies.map((b, i) => ((lengths[i] as number) <= cap ? b : cap === 0 ? '' : (this.cuts.get(key(b)) as string)));
  }

  /** Bound the memo (a long run sees many documents). */
  private remember(map: Map<string, unknown>): void {
    if (map.size > 20_000) map.clear();
  }
}
