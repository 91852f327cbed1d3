/**
 * What a Fair RAG spec needs of the models it names (ExperimentKind.modelNeeds, checked by
 * specCapabilities.ts before anything is written): the generation, and the NLI judge — generated
 * without a threshold, scored ("yes" / "no") with one.
 */
import type { FairRagSpec } from '../../api/contract/fairRag';
import type { ModelNeeds } from '../registry';
import { nliGenerateRequest } from './attribution';
import { generationRequest } from './execute';

export function fairRagModelNeeds(spec: FairRagSpec): ModelNeeds {
  const text = 'x';
  const needs: ModelNeeds = { generate: [{ path: 'generator', selector: spec.generator, why: 'generation', request: generationRequest(spec, text) }], scoring: [] };
  if (spec.attribution.judge !== 'nli-llm') return needs;
  const own = spec.attribution.generator !== undefined;
  const judge = { path: own ? 'attribution.generator' : 'generator', selector: own ? spec.attribution.generator : spec.generator };
  if (spec.attribution.threshold === undefined) {
    needs.generate.push({ ...judge, why: `the NLI judge (format '${spec.attribution.format}')`, request: nliGenerateRequest(spec.attribution, text) });
  } else {
    needs.scoring.push({ ...judge, why: 'the NLI judge with a threshold scores "yes" and "no"' });
  }
  return needs;
}
