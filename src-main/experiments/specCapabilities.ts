/**
 * Capability checks of a spec against the models it names (issue 24 item 3): a spec that needs
 * what a remote model's server lacks is refused at validation — in the wizard and in `fairground
 * run` — naming the capability and the engines that have it, instead of failing when the first
 * such call returns (MoI on llama.cpp's server failed only when its first score came back).
 *
 * Scoring (log-probabilities of given continuations) needs the prompt's token log-probabilities
 * (MoI's agent scores every ordering; the Fair RAG NLI judge with a `threshold` scores "yes"/"no").
 *
 * Generation: every kind of generate request a spec will send (its route, chat or plain prompt, and
 * its constraint: a JSON schema or a GBNF grammar) is built by the kind's `modelNeeds` (in its own
 * folder) as the run builds it, and the
 * model's engine is asked whether it would refuse it (generateRequestBody.ts `generateRefusal`,
 * from what the probe at `remote add` saw the server honour): a constraint transport the server
 * ignored, a route it does not answer, a grammar on a server kind without grammars.
 */
import type { GeneratorSelector } from '../api/contract/experiments';
import type { GenerateRefusal } from '../engine/remote/generateRequestBody';
import type { GenerateRequest } from '../engine/types';
import type { ExperimentKind } from './registry';
import type { SpecIssue } from './specFile';

/** What a model can do, where known; undefined: nothing known (a local model, a server never asked). */
export interface ModelCapabilities {
  /** A display name, e.g. `server 'llama' (llama.cpp)`. */
  label: string;
  /** Prompt log-probabilities (the remote engine scores through echo + logprobs). */
  scoring: 'yes' | 'no' | 'unknown';
  /** Why not, as the probe or the server kind says. */
  scoringDetail?: string;
  /** Why its engine would refuse to send this generate request (undefined: it would send it). */
  refuseGenerate?(request: GenerateRequest): GenerateRefusal | undefined;
}

export interface CapabilityDeps {
  /** What the model a selector names can do; undefined when nothing is known or it names nothing (specReferences reports that). */
  capabilitiesOf(selector: GeneratorSelector): ModelCapabilities | undefined;
}

export const SCORING_ENGINES = 'a local llama.cpp model (fairground model add) or a vLLM server (vllm serve: /v1/completions with echo and logprobs)';

/** The spec's model needs (its kind's `modelNeeds`) against what the named models can do. */
export function checkSpecCapabilities(kind: Pick<ExperimentKind, 'modelNeeds'>, spec: Record<string, unknown>, deps: CapabilityDeps): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const seen = new Set<string>();
  const needs = kind.modelNeeds?.(spec) ?? { generate: [], scoring: [] };
  for (const need of needs.generate) {
    if (need.selector === null || typeof need.selector !== 'object') continue;
    const caps = deps.capabilitiesOf(need.selector as GeneratorSelector);
    const refused = caps?.refuseGenerate?.(need.request);
    if (!caps || !refused) continue;
    const message = `${need.why} needs ${refused.capability}, which ${caps.label} cannot serve: ${refused.message}. Engines that have it: ${refused.engines}`;
    if (seen.has(`${need.path}\u0000${message}`)) continue;
    seen.add(`${need.path}\u0000${message}`);
    issues.push({ path: need.path, message });
  }
  for (const need of needs.scoring) {
    if (need.selector === null || typeof need.selector !== 'object') continue;
    const caps = deps.capabilitiesOf(need.selector as GeneratorSelector);
    if (caps?.scoring !== 'no') continue;
    issues.push({
      path: need.path,
      message: `${need.why}, which needs prompt log-probabilities; ${caps.label} has none${caps.scoringDetail ? ` (${caps.scoringDetail})` : ''}. Engines that have them: ${SCORING_ENGINES}`,
    });
  }
  return issues;
}
