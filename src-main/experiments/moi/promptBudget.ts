/**
 * MoI's prompts within the models' contexts, checked per query before any call (issue 24 item 2),
 * counted as the engines count: a scoring request is the instruction as a whole prompt (its
 * beginning-of-sequence token) plus the continuation's tokens (the passages and the question), on
 * the agent's context; a final-answer prompt is every token the generator evaluates (BOS, or the
 * chat template) plus decoding.maxTokens, on the generator's context.
 *
 * Passages may be cut, but only once per query: every passage's text is cut to one common cap of c
 * tokens (the largest that fits; shorter passages stay whole) and that cut passage is what every
 * ordering, every baseline and every final answer of the query sees. MoI must not cut differently
 * per ordering: its interventions compare the same passages in other orders, so an ordering whose
 * passages were cut more than another's would confound position with content. When even a cap of
 * `minPassageTokens` (spec promptBudget.minPassageTokens, default 32: the least MoI allows a
 * passage to keep) does not fit the longest request, the run is refused before any call, naming the
 * query and the numbers.
 *
 * Prompts that fit as they are stay exactly as they were (no cut, no change).
 */
import type { TokenizeRequest, TokenizeResult } from '../../engine/types';
import { waterLevel } from '../../engine/tokenBudget';
import type { PassageDoc } from './data';
import type { PromptLayout } from './promptLayout';

export type TokenizeFn = (request: TokenizeRequest) => Promise<TokenizeResult>;

export const DEFAULT_MIN_PASSAGE_TOKENS = 32;

/** A model's side of the check: its tokenizer and context size. */
export interface BudgetSide {
  tokenize: TokenizeFn;
  contextSize: number | undefined;
  estimated: boolean;
}

export interface MoiFitInput {
  queryId: string;
  query: string;
  passages: readonly PassageDoc[];
  /** Every scoring ordering of the plan (indices into passages). */
  scoringOrders: readonly (readonly number[])[];
  /** Final-answer orders known before the run (retriever, reversed, self-consistency); others are full orders of the same passages. */
  generationOrders: readonly (readonly number[])[];
  layout: PromptLayout;
  agent: BudgetSide;
  generator: BudgetSide;
  maxTokens: number;
  chat: boolean;
  minPassageTokens: number;
}

export type MoiFit =
  | { ok: true; passages: PassageDoc[]; cap: number | null; passagesCut: number; scoringTokens: number; generationTokens: number }
  | { ok: false; reason: string };

/** Probe a model's context size (and whether its tokenizer answers or an estimate counts). */
export async function budgetSide(tokenize: TokenizeFn, chat: boolean): Promise<BudgetSide> {
  const probe = await tokenize({ texts: [''], asPrompt: chat ? 'chat' : 'text' });
  return { tokenize, contextSize: probe.contextSize, estimated: probe.source === 'estimate' };
}

/**
 * The query's passages as every request of the query will show them: unchanged when everything fits,
 * else cut to one common cap; or the reason it cannot fit.
 */
export async function fitMoiQuery(input: MoiFitInput): Promise<MoiFit> {
  const { agent, generator, layout, query } = input;
  // A final-answer order the fit does not know yet (MoI's own ranking) may tokenize a few tokens
  // longer at the seams: one token per passage is kept free.
  const seam = input.passages.length;
  const scoringLimit = agent.contextSize;
  const generationLimit = generator.contextSize !== undefined ? generator.contextSize - input.maxTokens - seam : undefined;
  if (scoringLimit === undefined && generationLimit === undefined) return { ok: true, passages: [...input.passages], cap: null, passagesCut: 0, scoringTokens: 0, generationTokens: 0 };
  const instruction = (await agent.tokenize({ texts: [layout.scoring([], query).prompt], asPrompt: 'text' })).counts[0] as number;

  const measure = async (passages: readonly PassageDoc[]) => {
    const docs = (order: readonly number[]) => order.map((i) => passages[i]!);
    let scoring = 0;
    let worstOrder: readonly number[] = input.scoringOrders[0] ?? [];
    if (scoringLimit !== undefined && input.scoringOrders.length > 0) {
      const counts = (await agent.tokenize({ texts: input.scoringOrders.map((o) => layout.scoring(docs(o), query).continuation) })).counts;
      counts.forEach((n, i) => {
        if (instruction + n > scoring) {
          scoring = instruction + n;
          worstOrder = input.scoringOrders[i]!;
        }
      });
    }
    let generation = 0;
    if (generationLimit !== undefined && input.generationOrders.length > 0) {
      const counts = (await generator.tokenize({ texts: input.generationOrders.map((o) => layout.generationPrompt(docs(o), query)), asPrompt: input.chat ? 'chat' : 'text' })).counts;
      generation = Math.max(...counts);
    }
    return { scoring, generation, worstOrder };
  };
  const fits = (m: { scoring: number; generation: number }) => (scoringLimit === undefined || m.scoring <= scoringLimit) && (generationLimit === undefined || m.generation <= generationLimit);

  const whole = await measure(input.passages);
  if (fits(whole)) return { ok: true, passages: [...input.passages], cap: null, passagesCut: 0, scoringTokens: whole.scoring, generationTokens: whole.generation };

  const texts = input.passages.map((p) => p.text);
  const lengths = (await agent.tokenize({ texts })).counts;
  const bare = await measure(input.passages.map((p) => ({ ...p, text: '' })));
  const rooms = [scoringLimit !== undefined ? scoringLimit - bare.scoring : Infinity, generationLimit !== undefined ? generationLimit - bare.generation : Infinity];
  let cap = waterLevel(lengths, Math.max(0, Math.min(...rooms)));
  const floor = Math.min(input.minPassageTokens, Math.max(...lengths));
  let last = whole;
  while (cap >= floor) {
    const cut = (await agent.tokenize({ texts, maxTokens: cap })).truncated ?? texts;
    const passages = input.passages.map((p, i) => ((lengths[i] as number) > cap ? { ...p, text: cut[i] as string } : p));
    last = await measure(passages);
    if (fits(last)) return { ok: true, passages, cap, passagesCut: lengths.filter((n) => n > cap).length, scoringTokens: last.scoring, generationTokens: last.generation };
    const over = Math.max(scoringLimit !== undefined ? last.scoring - scoringLimit : 0, generationLimit !== undefined ? last.generation - generationLimit : 0);
    cap -= Math.max(1, Math.ceil(over / Math.max(1, lengths.filter((n) => n > cap).length)));
  }
  // Refused: the sizes with every passage at the floor.
  const atFloor = (await agent.tokenize({ texts, maxTokens: floor })).truncated ?? texts;
  const m = await measure(input.passages.map((p, i) => ((lengths[i] as number) > floor ? { ...p, text: atFloor[i] as string } : p)));
  const parts: string[] = [];
  if (scoringLimit !== undefined && m.scoring > scoringLimit)
    parts.push(`its longest scoring request (ordering ${m.worstOrder.map((i) => i + 1).join(',')}) is ${m.scoring} tokens (${whole.scoring} uncut) and the agent's context holds ${scoringLimit}${agent.estimated ? ' (counted by an estimate: no tokenizer answered)' : ''}`);
  if (generationLimit !== undefined && m.generation > generationLimit)
    parts.push(
      `its longest final-answer prompt is ${m.generation} tokens (${whole.generation} uncut) and the generator's context ${generator.contextSize} leaves ${generationLimit} after decoding.maxTokens ${input.maxTokens} and ${seam} seam tokens${generator.estimated ? ' (counted by an estimate: no tokenizer answered)' : ''}`,
    );
  return {
    ok: false,
    reason: `query '${input.queryId}': with every passage cut to ${floor} tokens (promptBudget.minPassageTokens, the least MoI lets a passage keep) ${parts.join('; ')}`,
  };
}

/** Why MoI refuses rather than cutting a query's passages differently per ordering (in the refusal). */
export const ONE_CUT_REASON =
  'MoI cuts a query’s passages once, the same in every ordering, because its interventions compare the same passages in other orders: a cut that differed per ordering would confound position with content';
