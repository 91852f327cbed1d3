/**
 * Prompts for RAG experiments (pure). The whole API:
 *
 *   parsePromptTemplate(text)              check a template once; errors name the placeholder
 *   renderPrompt(template, ctx, budget?)   fill it for one query and its documents
 *   lampTemplates(n), GENERIC_QA_TEMPLATES default {augmented, baseline} pairs (Fair-RAG AIP for LaMP)
 *   wordCounter, charCounter, fairRagBudgets   length budgets; ModelTokenCounter: the generator's tokens (tokenBudget.ts)
 *
 * Example (LaMP-2, one profile item):
 *   const t = lampTemplates(2);
 *   renderPrompt(t.augmented, { query: q, documents: [{ id: 'p1', title: '', text: 'A heist…', attrs: { tag: 'crime' } }] },
 *                fairRagBudgets(wordCounter).augmented)
 *   → 'the tag for the movie: A heist… is crime. Which tag does this movie relate to …'
 */
export { parsePromptTemplate, renderPrompt, renderPromptWithin, PromptBudgetError, PromptTemplateError, type PromptContext, type PromptDocument, type PromptTemplate } from './promptTemplate';
export { GENERIC_QA_TEMPLATES, lampTemplates, type TaskTemplates } from './defaultTemplates';
export { charCounter, fairRagBudgets, ModelTokenCounter, wordCounter, type PromptBudget, type PromptCuts, type TokenCounter, type TokenizeAnswer, type TokenizeTexts } from './tokenBudget';
