/**
 * Capability checks of a spec against the models it names (issue 24 item 3): a spec that needs
 * what a remote model's server lacks is refused at validation — in the wizard and in `fairground
 * run` — naming the capability and the engines that have it, instead of failing when the first
 * such call returns (MoI on llama.cpp's server failed only when its first score came back).
 *
 * Scoring (log-probabilities of given continuations) needs the prompt's token log-probabilities:
 * MoI's agent scores every ordering; the Fair RAG NLI judge with a `threshold` scores "yes"/"no".
 *
 * Generation: every kind of generate request a spec will send (its route, chat or plain prompt, and
 * its constraint: a JSON schema or a GBNF grammar) is built here as the run builds it, and the
 * model's engine is asked whether it would refuse it (generateRequestBody.ts `generateRefusal`,
 * from what the probe at `remote add` saw the server honour): a constraint transport the server
 * ignored, a route it does not answer, a grammar on a server kind without grammars.
 */
import type { GeneratorSelector } from '../api/contract/experiments';
import type { FairRagSpec } from '../api/contract/experiments';
import type { MoiSpec } from '../api/contract/moi';
import type { RichRagSpec } from '../api/contract/richrag';
import type { GenerateRefusal } from '../engine/remote/generateRequestBody';
import type { GenerateRequest } from '../engine/types';
import { nliGenerateRequest } from './fair-rag/attribution';
import { generationRequest as fairRagGeneration } from './fair-rag/execute';
import { generationRequest as moiGeneration } from './moi/execute';
import { choiceConstraint, resolveConstraint } from './richrag/constraints';
import { explorerRequest } from './richrag/explorer';
import { generationRequest as richRagGeneration } from './richrag/generation';
import { judgeRequest } from './richrag/judge';
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

interface GenerateNeed {
  path: string;
  selector: unknown;
  why: string;
  /** The request as the run builds it for a server (constraint 'auto' resolved for a remote model). */
  request: GenerateRequest;
}

/** A constraint setting as resolved for a server (what 'auto' means there). */
const onServer = (setting: 'auto' | 'grammar' | 'json-schema') => resolveConstraint(setting, { kind: 'remote', endpointId: 0 });

/** The generate requests a spec sends, by the field naming their model (the text is a stand-in: only the request's shape matters). */
function generateNeeds(kind: string, raw: Record<string, unknown>): GenerateNeed[] {
  const text = 'x';
  if (kind === 'fair-rag') {
    const spec = raw as unknown as FairRagSpec;
    const needs: GenerateNeed[] = [{ path: 'generator', selector: spec.generator, why: 'generation', request: fairRagGeneration(spec, text) }];
    if (spec.attribution.judge === 'nli-llm' && spec.attribution.threshold === undefined) {
      const own = spec.attribution.generator !== undefined;
      needs.push({
        path: own ? 'attribution.generator' : 'generator',
        selector: own ? spec.attribution.generator : spec.generator,
        why: `the NLI judge (format '${spec.attribution.format}')`,
        request: nliGenerateRequest(spec.attribution, text),
      });
    }
    return needs;
  }
  if (kind === 'moi') {
    const spec = raw as unknown as MoiSpec;
    return [{ path: 'generator', selector: spec.generator, why: 'answer generation', request: moiGeneration(spec, text) }];
  }
  if (kind === 'richrag') {
    const spec = raw as unknown as RichRagSpec;
    const model = (own: unknown, field: string) => (own !== undefined ? { path: field, selector: own } : { path: 'generator', selector: spec.generator });
    const needs: GenerateNeed[] = [{ path: 'generator', selector: spec.generator, why: 'answer generation', request: richRagGeneration(spec, text) }];
    if (spec.settings.includes('predicted')) {
      needs.push({ ...model(spec.explorer.generator, 'explorer.generator'), why: `the sub-aspect explorer (constraint '${spec.explorer.constraint}')`, request: explorerRequest(spec.explorer, onServer(spec.explorer.constraint), text) });
    }
    if (spec.frameworks.includes('listwise') || spec.preferences.enabled) {
      const r = spec.ranker;
      needs.push({
        ...model(r.generator, 'ranker.generator'),
        why: `the list-wise ranker (constraint '${r.constraint}')`,
        request: { ...(r.chat ? { messages: [{ role: 'user' as const, content: text }] } : { prompt: text }), ...choiceConstraint(['D1', 'D2'], onServer(r.constraint)), sampling: { temperature: 0 } },
      });
    }
    if (spec.judge.enabled) {
      needs.push({ ...model(spec.judge.generator, 'judge.generator'), why: `the pairwise judge (constraint '${spec.judge.constraint}')`, request: judgeRequest(text, onServer(spec.judge.constraint), spec.judge.chat) });
    }
    return needs;
  }
  return [];
}

export function checkSpecCapabilities(kind: string, spec: Record<string, unknown>, deps: CapabilityDeps): SpecIssue[] {
  const issues: SpecIssue[] = [];
  const seen = new Set<string>();
  for (const need of generateNeeds(kind, spec)) {
    if (need.selector === null || typeof need.selector !== 'object') continue;
    const caps = deps.capabilitiesOf(need.selector as GeneratorSelector);
    const refused = caps?.refuseGenerate?.(need.request);
    if (!caps || !refused) continue;
    const message = `${need.why} needs ${refused.capability}, which ${caps.label} cannot serve: ${refused.message}. Engines that have it: ${refused.engines}`;
    if (seen.has(`${need.path}\u0000${message}`)) continue;
    seen.add(`${need.path}\u0000${message}`);
    issues.push({ path: need.path, message });
  }
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
