/** The RichRAG wizard's form: prefilled from the RichRagSpec defaults and the demo spec (resources/demo/experiments/richrag.json). */
import { basicsToSpec, num, selector, type Num } from '../kindWizard';
import { emptyBasics, type BasicsForm } from '../wizardState.svelte';
import type { FlowStepId } from '../wizardSteps';

export const RICHRAG_FRAMEWORK_CHOICES = [
  { id: 'closed-book', label: 'Closed book (no documents)' },
  { id: 'retriever', label: 'Retriever only (the query)' },
  { id: 'no-ranker', label: 'No ranker (pool order)' },
  { id: 'rag-fusion', label: 'RAG-Fusion (RRF)' },
  { id: 'coverage', label: 'Greedy coverage' },
  { id: 'listwise', label: 'LLM list-wise ranker' },
] as const;

export interface RichRagForm extends BasicsForm {
  settings: 'predicted' | 'golden' | 'both';
  maxAspects: Num;
  topN: Num;
  capacity: Num;
  frameworks: string[];
  k: Num;
  rrfK: Num;
  window: Num;
  relevance: 'sub-answers' | 'qrels';
  relevanceThreshold: Num;
  test: 't' | 'randomization';
  correction: 'holm' | 'bonferroni' | 'none';
  judge: boolean;
  preferences: boolean;
  mu: Num;
  samples: Num;
  maxTokens: Num;
  seedSampling: Num;
  seedGeneration: Num;
}

export function defaultRichRagForm(): RichRagForm {
  return {
    ...emptyBasics(),
    settings: 'both',
    maxAspects: 3,
    topN: 5,
    capacity: 12,
    frameworks: ['closed-book', 'retriever', 'no-ranker', 'rag-fusion', 'coverage', 'listwise'],
    k: 3,
    rrfK: 60,
    window: 5,
    relevance: 'sub-answers',
    relevanceThreshold: 0.5,
    test: 't',
    correction: 'holm',
    judge: false,
    preferences: true,
    mu: 0.02,
    samples: 3,
    maxTokens: 40,
    seedSampling: 42,
    seedGeneration: 0,
  };
}

/** The spec paths of each step of the experiment flow (problems elsewhere are listed on the review). */
export const RICHRAG_STEP_FIELDS: Partial<Record<FlowStepId, string[]>> = {
  data: ['kind', 'name', 'description', 'collection', 'queries', 'tasks'],
  generator: ['generator', 'generation'],
  design: ['settings', 'explorer', 'retrieval', 'frameworks', 'ragFusion', 'k', 'ranker', 'seeds'],
  metrics: ['analysis', 'judge', 'preferences'],
};

/** The demo's small-model sizes for what the wizard does not show (editable later in the spec). */
const DEMO_RANKER_TEMPLATE =
  'Pick the documents that together cover every aspect of the question.\nQuestion: {{query}}\nAspects:\n{{aspects}}\nDocuments:\n{{candidates}}\nChosen: {{selected}}\nNext id: ';

export function richRagFormToSpec(f: RichRagForm): Record<string, unknown> {
  return {
    kind: 'richrag',
    ...basicsToSpec(f),
    generator: selector(f.generator) ?? null,
    ...num('k', f.k),
    settings: f.settings === 'both' ? ['predicted', 'golden'] : [f.settings],
    frameworks: f.frameworks,
    explorer: { ...num('maxAspects', f.maxAspects), maxChars: 20 },
    retrieval: { ...num('topN', f.topN), ...num('capacity', f.capacity) },
    ragFusion: { ...num('k', f.rrfK) },
    ranker: { template: DEMO_RANKER_TEMPLATE, ...num('window', f.window), docWords: 8 },
    generation: { ...num('maxTokens', f.maxTokens), docWords: 15 },
    judge: { enabled: f.judge },
    preferences: f.preferences ? { enabled: true, ...num('samples', f.samples), ...num('mu', f.mu) } : { enabled: false },
    analysis: { test: f.test, correction: f.correction, relevance: f.relevance, ...num('relevanceThreshold', f.relevanceThreshold) },
    seeds: { ...num('sampling', f.seedSampling), ...num('generation', f.seedGeneration) },
  };
}
