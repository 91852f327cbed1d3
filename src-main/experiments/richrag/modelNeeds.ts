/**
 * What a RichRAG spec needs of its models (ExperimentKind.modelNeeds): the answer generation, and —
 * where the spec uses them — the sub-aspect explorer, the list-wise ranker and the pairwise judge, each
 * with its constraint as it is resolved for a server (what 'auto' means there).
 */
import type { RichRagSpec } from '../../api/contract/richrag';
import type { ModelNeeds } from '../registry';
import { choiceConstraint, resolveConstraint } from './constraints';
import { explorerRequest } from './explorer';
import { generationRequest } from './generation';
import { judgeRequest } from './judge';

/** A constraint setting as resolved for a server. */
const onServer = (setting: 'auto' | 'grammar' | 'json-schema') => resolveConstraint(setting, { kind: 'remote', endpointId: 0 });

export function richRagModelNeeds(spec: RichRagSpec): ModelNeeds {
  const text = 'x';
  const model = (own: unknown, field: string) => (own !== undefined ? { path: field, selector: own } : { path: 'generator', selector: spec.generator });
  const generate: ModelNeeds['generate'] = [{ path: 'generator', selector: spec.generator, why: 'answer generation', request: generationRequest(spec, text) }];
  if (spec.settings.includes('predicted')) {
    generate.push({ ...model(spec.explorer.generator, 'explorer.generator'), why: `the sub-aspect explorer (constraint '${spec.explorer.constraint}')`, request: explorerRequest(spec.explorer, onServer(spec.explorer.constraint), text) });
  }
  if (spec.frameworks.includes('listwise') || spec.preferences.enabled) {
    const r = spec.ranker;
    generate.push({
      ...model(r.generator, 'ranker.generator'),
      why: `the list-wise ranker (constraint '${r.constraint}')`,
      request: { ...(r.chat ? { messages: [{ role: 'user' as const, content: text }] } : { prompt: text }), ...choiceConstraint(['D1', 'D2'], onServer(r.constraint)), sampling: { temperature: 0 } },
    });
  }
  if (spec.judge.enabled) {
    generate.push({ ...model(spec.judge.generator, 'judge.generator'), why: `the pairwise judge (constraint '${spec.judge.constraint}')`, request: judgeRequest(text, onServer(spec.judge.constraint), spec.judge.chat) });
  }
  return { generate, scoring: [] };
}
