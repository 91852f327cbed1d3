/**
 * Capability checks of a spec against the models it names (issue 24 item 3): a spec that needs
 * what a remote model's server lacks is refused at validation — in the wizard and in `fairground
 * run` — naming the capability and the engines that have it, instead of failing when the first
 * such call returns (MoI on llama.cpp's server failed only when its first score came back).
 *
 * Scoring (log-probabilities of given continuations) needs the prompt's token log-probabilities:
 * MoI's agent scores every ordering; the Fair RAG NLI judge with a `threshold` scores "yes"/"no".
 */
import type { GeneratorSelector } from '../api/contract/experiments';
import type { SpecIssue } from './specFile';

/** What a model can do, where known; undefined: nothing known (a local model, a server never asked). */
export interface ModelCapabilities {
  /** A display name, e.g. `server 'llama' (llama.cpp)`. */
  label: string;
  /** Prompt log-probabilities (the remote engine scores through echo + logprobs). */
  scoring: 'yes' | 'no' | 'unknown';
  /** Why not, as the probe or the server kind says. */
  scoringDetail?: string;
}

export interface CapabilityDeps {
  /** What the model a selector names can do; undefined when nothing is known or it names nothing (specReferences reports that). */
  capabilitiesOf(selector: GeneratorSelector): ModelCapabilities | undefined;
}

export const SCORING_ENGINES = 'a local llama.cpp model (fairground model add) or a vLLM server (vllm serve: /v1/completions with echo and logprobs)';

interface Need {
  path: string;
  selector: unknown;
  why: string;
}

/** The models a spec asks to score with, by field. */
function scoringNeeds(kind: string, spec: Record<string, unknown>): Need[] {
  if (kind === 'moi') {
    const agent = spec.agent ?? spec.generator;
    return [{ path: spec.agent !== undefined ? 'agent' : 'generator', selector: agent, why: 'MoI scores every passage ordering with the agent' }];
  }
  if (kind === 'fair-rag') {
    const attribution = spec.attribution as Record<string, unknown> | undefined;
    if (attribution?.judge === 'nli-llm' && attribution.threshold !== undefined) {
      const own = attribution.generator !== undefined;
      return [{ path: own ? 'attribution.generator' : 'generator', selector: own ? attribution.generator : spec.generator, why: 'the NLI judge with a threshold scores "yes" and "no"' }];
    }
  }
  return [];
}

export function checkSpecCapabilities(kind: string, spec: Record<string, unknown>, deps: CapabilityDeps): SpecIssue[] {
  const issues: SpecIssue[] = [];
  for (const need of scoringNeeds(kind, spec)) {
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
