/**
 * Attribution judgments for Fair RAG's EAR and EAE-D (Sec. 3.3.3–3.3.4): NLI(d, ŷ_π) = 1 iff the
 * retrieved item d (premise) entails the output ŷ_π (hypothesis). The paper uses roberta-large-mnli;
 * here the judge is an LLM (or the generator's own citations), with these decisions, all recorded:
 *
 * - nli-llm: the judge prompt (editable; {{premise}} = the document as `title text`, {{hypothesis}} =
 *   the output) is answered under a constraint: JSON `{"entails": <bool>}` (json schema) or `yes`/`no`
 *   (GBNF). The raw answer is stored. An answer that does not parse counts as not entailing and is
 *   flagged (`note`). With `threshold`, no text is generated: the two complete answers are scored as
 *   continuations and P(entails) = softmax of their summed log-probabilities decides (≥ threshold),
 *   the "probability threshold" reading of an NLI decision.
 * - An empty output is not judged (no call) and counts as not entailing: there is nothing to attribute.
 * - citation: the generator is asked to cite [n]; d at position n of the ranking is attributed iff
 *   the output cites [n] (also "[1, 3]" and "[1][3]"). No extra calls. The answer metric scores the
 *   output with the markers removed (`stripCitations`).
 */
import type { FairRagSpec } from '../../api/contract/fairRag';
import { DataError } from '../../core/errors';
import { contextBudget, parsePromptTemplate, renderPromptWithin, type ModelTokenCounter, type PromptBudget, type PromptTemplate } from '../../core/prompts/index';
import type { GenerateRequest, ScoreRequest } from '../../engine/types';

export const ENTAILS_SCHEMA = { type: 'object', properties: { entails: { type: 'boolean' } }, required: ['entails'] } as const;
export const YES_NO_GRAMMAR = 'root ::= "yes" | "no"';

export const DEFAULT_NLI_TEMPLATE =
  'Premise: {{premise}}\nHypothesis: {{hypothesis}}\n\nDoes the premise entail the hypothesis? {{answer_format}}\nAnswer:';

const FORMAT_HINT = { json: 'Answer with JSON: {"entails": true} or {"entails": false}.', 'yes-no': 'Answer yes or no.' } as const;

type AttributionSpec = FairRagSpec['attribution'];

export function nliPrompt(attribution: AttributionSpec, premise: string, hypothesis: string): string {
  const template = attribution.template ?? DEFAULT_NLI_TEMPLATE;
  // One pass, so a document containing "{{hypothesis}}" is not expanded again.
  return template.replace(/\{\{\s*(premise|hypothesis|answer_format)\s*\}\}/g, (_m, name: string) =>
    name === 'premise' ? premise : name === 'hypothesis' ? hypothesis : FORMAT_HINT[attribution.format],
  );
}

/**
 * The judge prompt as a core/prompts template whose one document is the premise and whose query is
 * the hypothesis, so the prompt budget (renderPromptWithin, truncate 'documents') cuts the premise
 * and never the hypothesis. Rendered without a budget it equals `nliPrompt`.
 */
export function nliTemplate(attribution: AttributionSpec): PromptTemplate {
  const source = attribution.template ?? DEFAULT_NLI_TEMPLATE;
  const parts = source.split(/(\{\{\s*(?:premise|hypothesis|answer_format)\s*\}\})/);
  const converted = parts
    .map((part, i) => {
      if (i % 2 === 0) {
        if (part.includes('{{')) {
          throw new DataError(`attribution.template: '${part.slice(part.indexOf('{{'), part.indexOf('{{') + 24)}…' is not a placeholder of the judge prompt ({{premise}}, {{hypothesis}}, {{answer_format}})`, { field: 'attribution.template' });
        }
        return part;
      }
      const name = /premise|hypothesis|answer_format/.exec(part)![0];
      return name === 'premise' ? '{{#documents}}{{text}}{{/documents}}' : name === 'hypothesis' ? '{{query}}' : FORMAT_HINT[attribution.format];
    })
    .join('');
  return parsePromptTemplate(converted);
}

/** The judge prompt within `budget` (none: `nliPrompt`), and whether the premise was shortened or left out. */
export function nliPromptWithin(template: PromptTemplate, premise: string, hypothesis: string, budget: PromptBudget | undefined): { prompt: string; premiseCut: 'shortened' | 'left out' | null } {
  const { prompt, cuts } = renderPromptWithin(template, { query: hypothesis, documents: [{ id: 'premise', title: '', text: premise }] }, budget);
  return { prompt, premiseCut: cuts.documentsDropped > 0 ? 'left out' : cuts.documentsCut > 0 ? 'shortened' : null };
}

/**
 * The judge's prompt budget in its own tokens (`tokens`, context size probed): every token it
 * evaluates for the prompt, within the context size less what the call adds — maxTokens for a
 * generated answer, the longer continuation with a threshold. Undefined when the context size is unknown.
 */
export async function nliBudget(attribution: AttributionSpec, tokens: ModelTokenCounter): Promise<PromptBudget | undefined> {
  const continuations = nliScoreRequest(attribution, '').continuations;
  const reserve = attribution.threshold !== undefined ? await tokens.settle(() => Math.max(...continuations.map((c) => tokens.count(c)))) : attribution.maxTokens;
  const { total, origin } = contextBudget(undefined, tokens.contextSize, reserve, 'none', attribution.threshold !== undefined ? 'the longer scored answer' : 'attribution.maxTokens');
  if (total === undefined) return undefined;
  return { counter: tokens, total, share: false, truncate: 'documents', origin: origin.replace(/^the /, "the judge's "), measure: (p: string) => tokens.countPrompt(p) };
}

/** The constrained generation request of a judgment (no threshold). */
export function nliGenerateRequest(attribution: AttributionSpec, prompt: string): GenerateRequest {
  return {
    prompt,
    maxTokens: attribution.maxTokens,
    sampling: { temperature: 0 },
    ...(attribution.format === 'json' ? { jsonSchema: { ...ENTAILS_SCHEMA } as Record<string, unknown> } : { grammar: YES_NO_GRAMMAR }),
  };
}

/** The two continuations scored with a threshold: [entails, does not entail]. */
export function nliScoreRequest(attribution: AttributionSpec, prompt: string): ScoreRequest {
  const continuations = attribution.format === 'json' ? [' {"entails": true}', ' {"entails": false}'] : [' yes', ' no'];
  return { prompt, continuations };
}

/** P(entails) from the summed log-probabilities of the two continuations. */
export function entailmentProbability(logpTrue: number, logpFalse: number): number {
  const m = Math.max(logpTrue, logpFalse);
  const a = Math.exp(logpTrue - m);
  const b = Math.exp(logpFalse - m);
  return a / (a + b);
}

/** Reads a constrained answer; `entails: null` when it does not parse (e.g. cut off by maxTokens). */
export function parseNliAnswer(text: string, format: AttributionSpec['format']): { entails: boolean | null } {
  const t = text.trim();
  if (format === 'yes-no') {
    if (/^yes\b/i.test(t)) return { entails: true };
    if (/^no\b/i.test(t)) return { entails: false };
    return { entails: null };
  }
  try {
    const v = JSON.parse(t) as { entails?: unknown };
    if (v && typeof v === 'object' && typeof v.entails === 'boolean') return { entails: v.entails };
  } catch {
    // fall through to the lenient read below
  }
  const m = /"entails"\s*:\s*(true|false)\b/.exec(t);
  return { entails: m ? m[1] === 'true' : null };
}

/**
 * The output without its citation markers ([n], [1, 3], [1][3]) and the spaces before them: what the
 * answer metric scores under the citation judge, so "comedy [1]" is the label "comedy". The stored
 * output keeps the markers.
 */
export function stripCitations(output: string): string {
  return output.replace(/\s*\[\s*\d+\s*(?:,\s*\d+\s*)*\]/g, '').trim();
}

/** 1-based positions cited as [n] (also [1, 3], [1][3]), within 1..depth, ascending, distinct. */
export function parseCitations(output: string, depth: number): number[] {
  const cited = new Set<number>();
  for (const m of output.matchAll(/\[(\s*\d+\s*(?:,\s*\d+\s*)*)\]/g)) {
    for (const part of m[1]!.split(',')) {
      const n = Number(part.trim());
      if (Number.isInteger(n) && n >= 1 && n <= depth) cited.add(n);
    }
  }
  return [...cited].sort((a, b) => a - b);
}
