/**
 * The one experiment flow every kind's wizard follows (issue 26 item 1): the same five steps, in the
 * same order, with the same names; each kind says what its design and metrics steps hold, and which
 * spec fields belong to which step (a problem at a field is counted on its step and blocks its Next;
 * a problem at a field of no step is listed on the review).
 */
export type FlowStepId = 'data' | 'generator' | 'design' | 'metrics' | 'review';

export interface FlowStep {
  id: FlowStepId;
  label: string;
  /** What this kind's step holds, shown in the step's title. */
  detail?: string;
}

export const FLOW_STEP_LABELS: Record<FlowStepId, string> = {
  data: 'Collection & queries',
  generator: 'Generator',
  design: 'Design',
  metrics: 'Metrics & tests',
  review: 'Review',
};

/** The five steps with this kind's details. */
export function flowSteps(details: Partial<Record<FlowStepId, string>>): FlowStep[] {
  return (Object.keys(FLOW_STEP_LABELS) as FlowStepId[]).map((id) => ({ id, label: FLOW_STEP_LABELS[id], ...(details[id] ? { detail: details[id] } : {}) }));
}

/** Field names a user knows, for "Next needs …" (a path not listed is shown as it is). */
const FIELD_NAMES: Record<string, string> = {
  name: 'the experiment name',
  description: 'the description',
  collection: 'the collection',
  queries: 'the queries',
  tasks: 'the tasks',
  minUseful: 'the useful-documents filter',
  generator: 'the generator',
  agent: 'the agent model',
  decoding: 'the decoding',
  prompt: 'the passage layout',
  promptTemplate: 'the prompt template',
  promptBudget: 'the length budget',
  retrievers: 'the retrievers',
  retriever: 'the retriever',
  k: 'k',
  samples: 'N (samples)',
  alphas: 'the α values',
  seeds: 'the seeds',
  n: 'N (passages)',
  permutations: 'the permutations',
  scoring: 'the scoring',
  solver: 'the orientation rule',
  baselines: 'the baselines',
  selfConsistency: 'the self-consistency samples',
  settings: 'the sub-aspects',
  explorer: 'the predicted sub-aspects',
  retrieval: 'the retrieval pool',
  frameworks: 'the rankers compared',
  ragFusion: 'RRF k',
  ranker: 'the ranker window',
  generation: 'the max new tokens',
  analysis: 'the metrics',
  preferences: 'the preference data',
  utilityMetric: 'the utility metric',
  attribution: 'the attribution judge',
  providerAttribute: 'the provider attribute',
};

/** The name of the field a problem is at: its first path segment's name. */
export function fieldName(path: string): string {
  const head = path.split(/[.[]/)[0] ?? path;
  return FIELD_NAMES[head] ?? (path || 'the spec');
}
