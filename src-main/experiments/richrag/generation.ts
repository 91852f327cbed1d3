/**
 * The generator G(q, L) and how its answer is scored (RichRAG Sec. 4.1, richrag.md §1.6-1.7).
 *
 * Prompt: the spec's template with {{sources}} = the top-k documents one per line as numbered sources
 * ("Source 1: Title: text", each cut to generation.docWords words when set, and to the
 * generator's token budget: promptBudget.ts), {{query}}, and {{aspects}} = the
 * condition's sub-aspects one per line (empty for closed-book and retriever). The default template
 * does not show the sub-aspects; adding {{aspects}} reproduces the paper's "Golden" rows, whose
 * generator prompt lists the golden sub-aspects. Closed-book uses its own template (no sources).
 *
 * Scores, stored with the answer (all pure functions of it):
 *   F1        SQuAD F1, max over the answers and their ", "-join (core/text richRagAnswerF1)
 *   R2, RL    pltrdy ROUGE-2 / ROUGE-L F, max over the answers
 *   CR1, CR2, CRL  com-rouge: Σ_i δ_i · pltrdy recall against sub-answer a_i (core/richrag/comRouge)
 *   coverage  φ(answer, a_i) per sub-answer with the spec's φ (the per-query coverage chart)
 * BERTScore is not computed (it needs roberta-large; nothing here runs it).
 */
import type { RichRagSpec } from '../../api/contract/richrag';
import { comRougeScores } from '../../core/richrag/comRouge';
import { phi } from '../../core/richrag/coverage';
import { pltrdyRougeMulti } from '../../core/text/pltrdyRouge';
import { richRagAnswerF1 } from '../../core/text/squadAnswer';
import type { GenerateRequest } from '../../engine/types';
import type { AnswerScores, DocSnapshot, GoldenAspect } from './items';
import type { PromptFit, RichRagBudget } from './promptBudget';
import { aspectLines, firstWords, renderTemplate } from './templates';

/** A document's text as a source shows it: its first `docWords` words ("…" when cut), or all of it (whitespace collapsed, one line) when docWords is null. */
export function sourceBody(text: string, docWords: number | null): string {
  return docWords === null ? text.split(/\s+/).filter(Boolean).join(' ') : firstWords(text, docWords);
}

/** The numbered sources, one per line; `bodies` (default: each text cut to docWords) replace the documents' texts. */
export function sourcesText(docs: readonly Pick<DocSnapshot, 'title' | 'text'>[], docWords: number | null, bodies?: readonly string[]): string {
  return docs.map((d, i) => `Source ${i + 1}: ${d.title ? `${d.title}: ` : ''}${bodies ? bodies[i] : sourceBody(d.text, docWords)}`).join('\n');
}

export function generationPrompt(
  generation: Pick<RichRagSpec['generation'], 'template' | 'closedBookTemplate' | 'docWords'>,
  query: string,
  docs: readonly Pick<DocSnapshot, 'title' | 'text'>[] | null,
  aspects: readonly string[],
  bodies?: readonly string[],
): string {
  if (docs === null) return renderTemplate(generation.closedBookTemplate, { query, aspects: aspectLines(aspects) }, 'generation.closedBookTemplate');
  return renderTemplate(generation.template, { query, sources: sourcesText(docs, generation.docWords, bodies), aspects: aspectLines(aspects) }, 'generation.template');
}

/**
 * The answer prompt within the generator's token budget (promptBudget.ts): the sources' texts are
 * cut first (to a common cap), never the question, the sub-aspects or the template; without a
 * budget, the prompt as generationPrompt renders it.
 */
export async function generationPromptWithin(
  generation: Pick<RichRagSpec['generation'], 'template' | 'closedBookTemplate' | 'docWords'>,
  budget: RichRagBudget | undefined,
  query: string,
  docs: readonly Pick<DocSnapshot, 'title' | 'text'>[] | null,
  aspects: readonly string[],
  what: string,
  signal?: AbortSignal,
): Promise<PromptFit> {
  const bodies = docs ? docs.map((d) => sourceBody(d.text, generation.docWords)) : [];
  const render = (b: readonly string[]) => generationPrompt(generation, query, docs, aspects, b);
  if (!budget) return { prompt: render(bodies), bodies, tokens: undefined, documentsCut: 0 };
  return budget.fit(render, bodies, what, signal);
}

export function generationRequest(spec: Pick<RichRagSpec, 'generation' | 'seeds'>, prompt: string): GenerateRequest {
  const g = spec.generation;
  return {
    ...(g.chat ? { messages: [{ role: 'user' as const, content: prompt }] } : { prompt }),
    maxTokens: g.maxTokens,
    sampling: g.temperature === 0 ? { temperature: 0 } : { temperature: g.temperature, seed: spec.seeds.generation },
    ...(g.stop ? { stop: g.stop } : {}),
  };
}

export function scoreAnswer(output: string, answers: readonly string[], golden: readonly GoldenAspect[], phiPreset: RichRagSpec['coverage']['phi']): AnswerScores {
  const refs = answers.filter((a) => a.trim() !== '');
  const subAnswers = golden.map((g) => g.answer);
  const cr = comRougeScores(output, subAnswers);
  return {
    f1: richRagAnswerF1(output, refs),
    r2: pltrdyRougeMulti('rouge-2', output, refs).f,
    rl: pltrdyRougeMulti('rouge-l', output, refs).f,
    cr1: cr.cr1,
    cr2: cr.cr2,
    crl: cr.crl,
    coverage: subAnswers.map((a) => phi(output, a, phiPreset)),
  };
}
