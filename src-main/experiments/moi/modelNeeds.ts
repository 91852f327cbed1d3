/** What a MoI spec needs of its models (ExperimentKind.modelNeeds): the agent scores every passage ordering; the generator answers. */
import type { MoiSpec } from '../../api/contract/moi';
import type { ModelNeeds } from '../registry';
import { generationRequest } from './execute';

export function moiModelNeeds(spec: MoiSpec): ModelNeeds {
  const scorer = spec.agent !== undefined ? { path: 'agent', selector: spec.agent } : { path: 'generator', selector: spec.generator };
  return {
    generate: [{ path: 'generator', selector: spec.generator, why: 'answer generation', request: generationRequest(spec, 'x') }],
    scoring: [{ ...scorer, why: 'MoI scores every passage ordering with the agent' }],
  };
}
