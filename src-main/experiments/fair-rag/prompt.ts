/**
 * φ_p(x, π): the prompt for a query and one sampled top-k ranking (Fair RAG Sec. 3), rendered with
 * core/prompts. Without a `promptTemplate` in the spec, a LaMP query (task `LaMP-n`) gets Fair-RAG's
 * augmented input prompt for its task and any other query the generic QA template (core/prompts
 * defaultTemplates.ts). With the citation judge, the citation instruction is appended after a blank
 * line, so the generator is asked to cite documents as [n] (n = position in the ranking).
 *
 * A `promptBudget` in 'tokens' counts in the generator's own tokens, as the Fair-RAG code truncates
 * (fair-rag.md §6): the caller passes a `ModelTokenCounter` over the generator engine's `tokenize`
 * and renders (or plans) inside `counter.settle(...)` so every count and cut comes from the model.
 * The total covers the whole prompt as the engine evaluates it (beginning-of-sequence token or chat
 * template, the citation instruction); without a spec total it is what the context leaves
 * (context − maxTokens). Documents are cut first, from the end of the ranking; the question never
 * (`truncate: 'paper-end'` is the released code's cut of the prompt's end, by name).
 */
import type { FairRagSpec } from '../../api/contract/fairRag';
import { DataError } from '../../core/errors';
import {
  charCounter,
  contextBudget,
  GENERIC_QA_TEMPLATES,
  lampTemplates,
  ModelTokenCounter,
  parsePromptTemplate,
  renderPrompt,
  renderPromptWithin,
  wordCounter,
  type PromptBudget,
  type PromptCuts,
  type PromptTemplate,
  type TokenCounter,
} from '../../core/prompts/index';

export const DEFAULT_CITATION_INSTRUCTION = 'Cite every document you use by its number in square brackets, for example [1].';

export interface PromptQuery {
  text: string;
  task: string | null;
  candidates: readonly { docId: string; title: string; text: string; attrs: Record<string, unknown> }[];
}

export type PromptSpec = Pick<FairRagSpec, 'promptTemplate' | 'promptBudget' | 'attribution'>;

/** The template text a query is rendered with. */
export function templateFor(spec: Pick<FairRagSpec, 'promptTemplate'>, task: string | null): string {
  if (spec.promptTemplate !== undefined) return spec.promptTemplate;
  const lamp = /^LaMP-([1-7])$/.exec(task ?? '');
  return lamp ? lampTemplates(Number(lamp[1])).augmented : GENERIC_QA_TEMPLATES.augmented;
}

/** How a run's prompts were budgeted, for its stats, manifest and warnings. */
export interface PromptBudgetReport {
  /** 'tokens' counted by the model or its server; 'estimated tokens' where no tokenizer answered. */
  unit: 'tokens' | 'estimated tokens' | 'words' | 'chars';
  /** The whole prompt's limit, or null when there is none (no budget and no known context size). */
  total: number | null;
  /** Where the total comes from. */
  origin: string;
  truncate: 'documents' | 'paper-end';
  /** What the count includes. */
  counts: string;
  /** With 'estimated tokens': the estimate's method, margin and why no tokenizer counted. */
  estimate?: { method: string; margin: string; reason: string };
  /** Distinct prompts rendered, and how many of them the budget cut. */
  prompts: number;
  promptsCut: number;
  documentsCut: number;
  documentsDropped: number;
  queriesCut: number;
}

export type PromptRenderer = ((query: PromptQuery, ranking: readonly string[]) => string) & {
  /** What this renderer cut, over the distinct prompts it rendered last for each (query, ranking). */
  report(): PromptBudgetReport | null;
  /** What the budget cut in a prompt this renderer returned (undefined when nothing was cut). */
  cutsOf(prompt: string): PromptCuts | undefined;
};

/**
 * A renderer for one spec: parses each template once; throws PromptTemplateError for a bad template.
 * `tokens` counts a 'tokens' budget (required for one: the generator's tokenizer). With a
 * ModelTokenCounter that knows the engine's context size (`probe()` first), the whole prompt —
 * every token the engine evaluates: beginning-of-sequence token, chat template, the citation
 * instruction — is kept within context − maxTokens, also when the spec sets no budget; a spec
 * total above that is lowered to it (the report says so).
 */
export function promptRenderer(spec: PromptSpec & Partial<Pick<FairRagSpec, 'decoding'>>, tokens?: TokenCounter): PromptRenderer {
  const parsed = new Map<string, PromptTemplate>();
  const pb = spec.promptBudget;
  const model = tokens instanceof ModelTokenCounter ? tokens : undefined;
  const unit = pb?.unit ?? (model ? 'tokens' : undefined);
  if (unit === 'tokens' && !tokens) throw new DataError("a promptBudget in 'tokens' needs the generator's tokenizer (pass a ModelTokenCounter)", { field: 'promptBudget.unit' });
  const suffix = spec.attribution.judge === 'citation' ? `\n\n${spec.attribution.template ?? DEFAULT_CITATION_INSTRUCTION}` : '';
  const truncate = pb?.truncate ?? 'documents';
  const maxTokens = spec.decoding?.maxTokens;
  const { total, origin } = unit === 'tokens' ? contextBudget(pb?.total, model?.contextSize, maxTokens, 'promptBudget.total') : { total: pb?.total, origin: pb?.total !== undefined ? 'promptBudget.total' : 'none' };
  const budget: PromptBudget | undefined =
    unit === undefined || (total === undefined && pb?.queryMax === undefined)
      ? undefined
      : {
          counter: unit === 'tokens' ? (tokens as TokenCounter) : unit === 'chars' ? charCounter : wordCounter,
          ...(pb?.queryMax !== undefined ? { queryMax: pb.queryMax } : {}),
          ...(total !== undefined ? { total } : {}),
          // Fair-RAG's equal share per document applies to a total the spec sets, not to the context's.
          share: pb?.total !== undefined,
          truncate,
          suffix,
          ...(unit === 'tokens' && model ? { measure: (p: string) => model.countPrompt(p) } : {}),
          origin,
        };
  /** The prompt of the last rendering of each (query, ranking) (earlier, provisional renderings are replaced), and what each prompt had cut. */
  const promptByRanking = new Map<string, string>();
  const cutsByPrompt = new Map<string, PromptCuts>();
  const render = (query: PromptQuery, ranking: readonly string[]): string => {
    const source = templateFor(spec, query.task);
    let template = parsed.get(source);
    if (!template) parsed.set(source, (template = parsePromptTemplate(source)));
    const byId = new Map(query.candidates.map((c) => [c.docId, c]));
    const documents = ranking.map((id) => {
      const c = byId.get(id)!;
      return { id: c.docId, title: c.title, text: c.text, attrs: c.attrs };
    });
    const ctx = { query: query.text, documents };
    if (!budget) return renderPrompt(template, ctx) + suffix;
    const { prompt, cuts } = renderPromptWithin(template, ctx, budget);
    promptByRanking.set(`${query.text}\u0000${ranking.join('\u0000')}`, prompt);
    if (cuts.queryCut || cuts.endCut || cuts.documentsCut > 0 || cuts.documentsDropped > 0) cutsByPrompt.set(prompt, cuts);
    return prompt;
  };
  return Object.assign(render, {
    report(): PromptBudgetReport | null {
      if (!budget && unit === undefined) return null;
      const estimated = model?.sources.has('estimate') === true && unit === 'tokens';
      // Distinct prompts (rankings that differ only in what was left out render to one prompt).
      const prompts = new Set(promptByRanking.values());
      const all = [...prompts].flatMap((p) => cutsByPrompt.get(p) ?? []);
      return {
        unit: estimated ? 'estimated tokens' : (unit as PromptBudgetReport['unit']),
        total: total ?? null,
        origin,
        truncate,
        counts:
          unit === 'tokens' && model
            ? `every token the engine evaluates for the prompt: ${model.promptMode === 'chat' ? 'the chat template around one user message' : 'the beginning-of-sequence token'}${suffix ? ', the citation instruction' : ''} (maxTokens are left free)`
            : `the rendered prompt in ${unit}${suffix ? ', the citation instruction included' : ''} (not checked against the context size)`,
        ...(estimated && model?.estimate ? { estimate: model.estimate } : {}),
        prompts: prompts.size,
        promptsCut: all.length,
        documentsCut: all.reduce((a, c) => a + c.documentsCut, 0),
        documentsDropped: all.reduce((a, c) => a + c.documentsDropped, 0),
        queriesCut: all.filter((c) => c.queryCut).length,
      };
    },
    cutsOf: (prompt: string) => cutsByPrompt.get(prompt),
  });
}
