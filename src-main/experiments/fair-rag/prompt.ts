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
 */
import type { FairRagSpec } from '../../api/contract/experiments';
import { DataError } from '../../core/errors';
import { charCounter, GENERIC_QA_TEMPLATES, lampTemplates, parsePromptTemplate, renderPrompt, wordCounter, type PromptBudget, type PromptTemplate, type TokenCounter } from '../../core/prompts/index';

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

/**
 * A renderer for one spec: parses each template once; throws PromptTemplateError for a bad template.
 * `tokens` counts a 'tokens' budget (required for one: the generator's tokenizer).
 */
export function promptRenderer(spec: PromptSpec, tokens?: TokenCounter): (query: PromptQuery, ranking: readonly string[]) => string {
  const parsed = new Map<string, PromptTemplate>();
  const unit = spec.promptBudget?.unit;
  if (unit === 'tokens' && !tokens) throw new DataError("a promptBudget in 'tokens' needs the generator's tokenizer (pass a ModelTokenCounter)", { field: 'promptBudget.unit' });
  const budget: PromptBudget | undefined = spec.promptBudget && {
    counter: unit === 'tokens' ? (tokens as TokenCounter) : unit === 'chars' ? charCounter : wordCounter,
    ...(spec.promptBudget.queryMax !== undefined ? { queryMax: spec.promptBudget.queryMax } : {}),
    ...(spec.promptBudget.total !== undefined ? { total: spec.promptBudget.total } : {}),
  };
  const suffix = spec.attribution.judge === 'citation' ? `\n\n${spec.attribution.template ?? DEFAULT_CITATION_INSTRUCTION}` : '';
  return (query, ranking) => {
    const source = templateFor(spec, query.task);
    let template = parsed.get(source);
    if (!template) parsed.set(source, (template = parsePromptTemplate(source)));
    const byId = new Map(query.candidates.map((c) => [c.docId, c]));
    const documents = ranking.map((id) => {
      const c = byId.get(id)!;
      return { id: c.docId, title: c.title, text: c.text, attrs: c.attrs };
    });
    return renderPrompt(template, { query: query.text, documents }, budget) + suffix;
  };
}
