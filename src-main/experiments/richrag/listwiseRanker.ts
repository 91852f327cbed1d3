/**
 * The generative list-wise ranker (RichRAG Sec. 3.4), run by an LLM: it sees the query, the
 * sub-aspects and the candidates (each with its aspect tags s(d), Eq. 5) and emits a top-k list of
 * document ids, one id per step. The paper's ranker masks chosen documents (M() in Eq. 7) so ids are
 * valid and distinct; here every step is one constrained generation whose only possible outputs are
 * the ids still available in the window (a GBNF alternation, or a JSON-schema enum —
 * constraints.ts). The prompt shows the ids chosen so far ({{selected}}).
 *
 * Ids are pool labels D1…DM (pool position + 1), stable across windows.
 *
 * Windows (when the pool has more than W = spec.ranker.window candidates): the pool is read in pool
 * order. The first window is the first W candidates; the ranker picks min(k, |window|) of them. Each
 * following window is those picks, in their order, followed by the next W − k unread candidates
 * (stride W − k), and the ranker picks k again from the whole window (earlier picks may be dropped).
 * The picks of the last window are the list. A pool of n > W candidates takes
 * 1 + ⌈(n − W)/(W − k)⌉ windows and k steps each.
 *
 * Greedy ranking decodes with temperature 0; US³ samples pass a temperature and a seed per step.
 */
import type { GenerateRequest, GenerateResult, SamplingOptions } from '../../engine/types';
import { choiceConstraint, parseChoice, type ConstraintMode } from './constraints';
import type { RankStep } from './items';
import type { PromptFit, RichRagBudget } from './promptBudget';
import { firstWords, renderTemplate } from './templates';

export interface RankerCandidate {
  id: string;
  label: string;
  title: string;
  text: string;
  aspects: readonly string[];
}

export interface RankerInput {
  query: string;
  aspects: readonly string[];
  /** The pool in pool order. */
  candidates: readonly RankerCandidate[];
  k: number;
}

export interface RankerSettings {
  template: string;
  window: number;
  /** Each candidate's text cut to its first docWords words (null: whole, one line). */
  docWords: number | null;
  mode: ConstraintMode;
  /** The ranker's token budget (promptBudget.ts): candidates' texts are cut to fit, nothing else. */
  budget?: RichRagBudget;
  chat: boolean;
  /** Decoding of step `step` (0-based over the whole list) in window `window`. */
  sampling(window: number, step: number): SamplingOptions;
}

export interface RankerEngine {
  /** `fromCache` (when the engine knows it) is recorded per step. */
  generate(request: GenerateRequest, signal?: AbortSignal): Promise<GenerateResult & { fromCache?: boolean }>;
}

export interface RankingResult {
  ranking: string[];
  steps: RankStep[];
  /** With a budget: the windows whose candidates' texts were cut to fit, and the most candidates cut in one prompt. */
  budget?: { windowsCut: number; documentsCut: number; maxPromptTokens: number };
}

/** The sub-aspects numbered one per line ("1. aspect"), as {{aspects}} shows them to the ranker. */
export function numberedAspects(aspects: readonly string[]): string {
  return aspects.map((a, i) => `${i + 1}. ${a}`).join('\n');
}

/**
 * One candidate as the prompt shows it: `[D3] Title: text (aspects 1, 3)`, s(d) as the numbers of the
 * aspects listed under {{aspects}} (Eq. 5 concatenates the aspect texts; numbers keep a long pool's
 * prompt short). An aspect not in the list is written out.
 */
export function candidateLine(c: RankerCandidate, docWords: number | null, aspects: readonly string[], body = candidateBody(c, docWords)): string {
  const head = c.title ? `${c.title}: ${body}` : body;
  const tags = c.aspects.map((a) => {
    const i = aspects.indexOf(a);
    return i >= 0 ? String(i + 1) : a;
  });
  return `[${c.label}] ${head}${tags.length > 0 ? ` (aspects ${tags.join(', ')})` : ''}`;
}

/** A candidate's text as the ranker shows it: its first docWords words ("…" when cut), or all of it on one line. */
export function candidateBody(c: Pick<RankerCandidate, 'text'>, docWords: number | null): string {
  return docWords === null ? c.text.split(/\s+/).filter(Boolean).join(' ') : firstWords(c.text, docWords);
}

export function rankerPrompt(
  template: string,
  input: Pick<RankerInput, 'query' | 'aspects' | 'k'>,
  window: readonly RankerCandidate[],
  selected: readonly string[],
  docWords: number | null,
  field = 'ranker.template',
  bodies?: readonly string[],
): string {
  return renderTemplate(
    template,
    {
      query: input.query,
      aspects: numberedAspects(input.aspects),
      candidates: window.map((c, i) => candidateLine(c, docWords, input.aspects, bodies ? bodies[i] : undefined)).join('\n'),
      selected: selected.length > 0 ? selected.join(' ') : '(none)',
      k: String(input.k),
    },
    field,
  );
}

type StepRender = (selected: readonly string[]) => (bodies: readonly string[]) => string;

const stepRenderer = (input: Pick<RankerInput, 'query' | 'aspects' | 'k'>, settings: Pick<RankerSettings, 'template' | 'docWords'>, window: readonly RankerCandidate[]): StepRender => (selected) => (b) =>
  rankerPrompt(settings.template, input, window, selected, settings.docWords, 'ranker.template', b);

/**
 * The texts a window's candidates show at every step (the run and the prompt preview both take them
 * from here): their docWords cut, and with a budget fitted once, with the longest "chosen so far" the
 * window can reach (its want − 1 longest labels).
 */
export async function windowBodies(
  input: Pick<RankerInput, 'query' | 'aspects' | 'k'>,
  settings: Pick<RankerSettings, 'template' | 'docWords' | 'budget'>,
  window: readonly RankerCandidate[],
  want: number,
  w: number,
  signal?: AbortSignal,
): Promise<{ bodies: string[]; documentsCut: number; cap?: number }> {
  const bodies = window.map((c) => candidateBody(c, settings.docWords));
  const budget = settings.budget;
  if (!budget) return { bodies, documentsCut: 0 };
  const longest = [...window.map((c) => c.label)].sort((a, b) => b.length - a.length).slice(0, Math.max(0, want - 1));
  const fit = await budget.fit(stepRenderer(input, settings, window)(longest), bodies, `the ranker prompt of window ${w + 1}`, signal);
  return { bodies: [...fit.bodies], documentsCut: fit.documentsCut, ...(fit.cap !== undefined ? { cap: fit.cap } : {}) };
}

/**
 * The prompt of step t of window w (0-based) with `selected` chosen so far, over the window's fitted
 * bodies (windowBodies); a step whose own prompt still does not fit the budget is refitted.
 */
export async function stepPrompt(
  input: Pick<RankerInput, 'query' | 'aspects' | 'k'>,
  settings: Pick<RankerSettings, 'template' | 'docWords' | 'budget'>,
  window: readonly RankerCandidate[],
  bodies: readonly string[],
  selected: readonly string[],
  w: number,
  t: number,
  signal?: AbortSignal,
): Promise<PromptFit> {
  const render = stepRenderer(input, settings, window)(selected);
  if (!settings.budget) return { prompt: render(bodies), bodies, tokens: undefined, documentsCut: 0 };
  return settings.budget.fit(render, bodies, `the ranker prompt of window ${w + 1}, step ${t + 1}`, signal);
}

/** Number of windows for a pool of n candidates (see the module comment). */
export function windowCount(n: number, window: number, k: number): number {
  if (n <= window) return 1;
  return 1 + Math.ceil((n - window) / (window - k));
}

export async function rankListwise(engine: RankerEngine, input: RankerInput, settings: RankerSettings, signal?: AbortSignal): Promise<RankingResult> {
  const { candidates, k } = input;
  if (settings.window <= k && candidates.length > settings.window) throw new RangeError(`the window (${settings.window}) must be larger than k (${k})`);
  const steps: RankStep[] = [];
  let picks: RankerCandidate[] = [];
  let next = 0;
  let w = 0;
  let stepIndex = 0;
  const cut = { windowsCut: 0, documentsCut: 0, maxPromptTokens: 0 };
  while (w === 0 || next < candidates.length) {
    const take = w === 0 ? settings.window : settings.window - picks.length;
    const window = [...picks, ...candidates.slice(next, next + take)];
    next += take;
    picks = [];
    const want = Math.min(k, window.length);
    const fitted = await windowBodies(input, settings, window, want, w, signal);
    const bodies = fitted.bodies;
    if (fitted.documentsCut > 0) {
      cut.windowsCut++;
      cut.documentsCut = Math.max(cut.documentsCut, fitted.documentsCut);
    }
    for (let t = 0; t < want; t++) {
      signal?.throwIfAborted();
      const remaining = window.filter((c) => !picks.includes(c));
      const labels = remaining.map((c) => c.label);
      const fit = await stepPrompt(input, settings, window, bodies, picks.map((c) => c.label), w, t, signal);
      const prompt = fit.prompt;
      if (settings.budget) {
        cut.maxPromptTokens = Math.max(cut.maxPromptTokens, fit.tokens ?? 0);
        if (fit.documentsCut > 0) cut.documentsCut = Math.max(cut.documentsCut, fit.documentsCut);
      }
      const request: GenerateRequest = {
        ...(settings.chat ? { messages: [{ role: 'user' as const, content: prompt }] } : { prompt }),
        ...choiceConstraint(labels, settings.mode),
        sampling: settings.sampling(w, stepIndex),
      };
      const result = await engine.generate(request, signal);
      signal?.throwIfAborted();
      if (result.finishReason === 'aborted') throw new Error('a ranker step was aborted');
      const label = parseChoice(result.text, labels);
      const chosen = remaining.find((c) => c.label === label) ?? remaining[0]!;
      picks.push(chosen);
      steps.push({ window: w, raw: result.text, docId: chosen.id, fallback: label === null, fromCache: result.fromCache === true });
      stepIndex++;
    }
    w++;
  }
  return { ranking: picks.map((c) => c.id), steps, ...(settings.budget?.total !== undefined ? { budget: cut } : {}) };
}
