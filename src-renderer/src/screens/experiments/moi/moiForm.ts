/** The MoI wizard's form: prefilled from the MoiSpec defaults and the demo spec (resources/demo/experiments/moi.json). */
import { basicsToSpec, num, selector, type Num } from '../kindWizard';
import { emptyBasics, type BasicsForm } from '../wizardState.svelte';
import type { FlowStepId } from '../wizardSteps';

export const MOI_BASELINE_CHOICES = [
  { id: 'random', label: 'Random order' },
  { id: 'self-consistency', label: 'Self-consistency' },
  { id: 'bayes-saliency', label: 'Bayes saliency' },
  { id: 'bayes-saliency-plus', label: 'Bayes saliency+' },
  { id: 'qg', label: 'Query generation (QG)' },
  { id: 'longllmlingua', label: 'LongLLMLingua' },
  { id: 'longllmlingua-code', label: 'LongLLMLingua (code)' },
  { id: 'retriever-reversed', label: 'Retriever reversed' },
  { id: 'moi-reversed', label: 'MoI reversed' },
  { id: 'gold-position', label: 'Gold at each position' },
] as const;

export interface MoiForm extends BasicsForm {
  retriever: 'bm25' | 'candidate-order' | 'run';
  k1: Num;
  b: Num;
  idf: 'robertson' | 'lucene' | 'rank_bm25';
  tokenizer: 'whitespace' | 'words';
  runId: Num;
  n: Num;
  set: 'random3n' | 'cyclic' | 'pruned' | 'random-pruned' | 'all';
  count: Num;
  length: Num;
  segment: 'mean' | 'sum';
  passageWeight: Num;
  orientation: 'bias-non-increasing' | 'retriever-agreement' | 'none';
  baselines: string[];
  scSamples: Num;
  qgPrompt: 'upr' | 'shared';
  agent: string;
  maxTokens: Num;
  passage: string;
  seedPermutations: Num;
  seedGeneration: Num;
  test: 't' | 'randomization';
  correction: 'holm' | 'bonferroni' | 'none';
}

export function defaultMoiForm(): MoiForm {
  return {
    ...emptyBasics(),
    retriever: 'bm25',
    k1: 1.5,
    b: 0.75,
    idf: 'rank_bm25',
    tokenizer: 'words',
    runId: undefined,
    n: 4,
    set: 'random3n',
    count: undefined,
    length: undefined,
    segment: 'mean',
    passageWeight: 1,
    orientation: 'bias-non-increasing',
    baselines: ['random', 'self-consistency', 'bayes-saliency', 'qg', 'retriever-reversed', 'moi-reversed', 'gold-position'],
    scSamples: 5,
    qgPrompt: 'shared',
    agent: '',
    maxTokens: 16,
    // The demo's passage layout (no title) so that four passages fit a small model's context.
    passage: '[{{index}}] {{text}}',
    seedPermutations: 42,
    seedGeneration: 0,
    test: 't',
    correction: 'holm',
  };
}

/** The spec paths of each step of the experiment flow (problems elsewhere are listed on the review). */
export const MOI_STEP_FIELDS: Partial<Record<FlowStepId, string[]>> = {
  data: ['kind', 'name', 'description', 'collection', 'queries', 'tasks'],
  generator: ['generator', 'agent', 'decoding', 'prompt', 'promptBudget'],
  design: ['retriever', 'n', 'permutations', 'scoring', 'solver', 'seeds'],
  metrics: ['baselines', 'selfConsistency', 'qg', 'significance', 'metric', 'extraMetrics', 'gold'],
};

export function moiFormToSpec(f: MoiForm): Record<string, unknown> {
  const retriever =
    f.retriever === 'bm25'
      ? { method: 'bm25', params: { ...num('k1', f.k1), ...num('b', f.b), idf: f.idf, tokenizer: f.tokenizer } }
      : f.retriever === 'run'
        ? { method: 'run', params: { ...num('runId', f.runId) } }
        : { method: 'candidate-order' };
  const agent = selector(f.agent);
  return {
    kind: 'moi',
    ...basicsToSpec(f),
    retriever,
    ...num('n', f.n),
    permutations: { set: f.set, ...(f.set === 'random3n' || f.set === 'random-pruned' ? num('count', f.count) : {}), ...(f.set === 'pruned' || f.set === 'random-pruned' ? num('length', f.length) : {}) },
    scoring: { segment: f.segment, ...num('passageWeight', f.passageWeight) },
    solver: { orientation: f.orientation },
    ...(agent ? { agent } : {}),
    generator: selector(f.generator) ?? null,
    decoding: { ...num('maxTokens', f.maxTokens), temperature: 0 },
    prompt: { passage: f.passage },
    baselines: f.baselines,
    ...(f.baselines.includes('self-consistency') ? { selfConsistency: { ...num('samples', f.scSamples) } } : {}),
    ...(f.baselines.includes('qg') || f.baselines.includes('bayes-saliency-plus') ? { qg: { prompt: f.qgPrompt } } : {}),
    significance: { test: f.test, correction: f.correction },
    seeds: { ...num('permutations', f.seedPermutations), ...num('generation', f.seedGeneration) },
  };
}
