/**
 * Constrained choices for the LLM steps of a RichRAG run (ranker steps, judge verdicts): the output
 * must be one of a known set of strings. Two mechanisms, chosen per spec field ('auto' = by engine):
 *
 *   grammar      a GBNF alternation `root ::= "D1" | "D2" | …` (local llama.cpp, llama.cpp servers)
 *   json-schema  `{"choice": one of the options}` as an object (OpenAI's strict mode wants an object at
 *                the root; llama.cpp and vLLM accept it too)
 *
 * Under a grammar the output IS an option. The parser is still lenient (JSON, then the longest option
 * named in the text), so a server that ignores constraints cannot make a step invalid: `parseChoice`
 * returns null and the caller records a fallback.
 */
import type { GeneratorRef } from '../../api/contract/models';
import type { GenerateRequest } from '../../engine/types';

export type ConstraintMode = 'grammar' | 'json-schema';

/** 'auto' is a grammar on the local engine and a JSON schema on a server. */
export function resolveConstraint(setting: 'auto' | ConstraintMode, ref: GeneratorRef): ConstraintMode {
  if (setting !== 'auto') return setting;
  return ref.kind === 'local' ? 'grammar' : 'json-schema';
}

/** How each constrained step's output was held to its options, in words (for the manifest and the run page). */
export const CONSTRAINT_MEANS: Record<ConstraintMode, string> = {
  grammar: 'GBNF grammar (the output is an option)',
  'json-schema': 'JSON schema ({"choice": option})',
};

/**
 * The constraint each LLM step of a run uses, as the spec set it and as it resolved on the step's
 * engine (issue 35 item 6): 'auto' is a grammar on the local engine and a JSON schema on a server,
 * which are two different experiments (other prompts' outputs, other token budgets), so the run
 * names the transport it used. Steps the run does not have are left out.
 */
export function constraintTransports(
  steps: Partial<Record<'explorer' | 'ranker' | 'judge', { setting: 'auto' | ConstraintMode; ref: GeneratorRef }>>,
): Record<string, { setting: 'auto' | ConstraintMode; mode: ConstraintMode; engine: GeneratorRef['kind']; means: string }> {
  const out: Record<string, { setting: 'auto' | ConstraintMode; mode: ConstraintMode; engine: GeneratorRef['kind']; means: string }> = {};
  for (const [step, s] of Object.entries(steps)) {
    if (!s) continue;
    const mode = resolveConstraint(s.setting, s.ref);
    out[step] = { setting: s.setting, mode, engine: s.ref.kind, means: CONSTRAINT_MEANS[mode] };
  }
  return out;
}

/** A GBNF string literal (JSON's escapes are GBNF's for these characters). */
export function gbnfLiteral(text: string): string {
  return JSON.stringify(text);
}

/** The constraint fields of a request whose output must be one of `options`, and enough tokens for it. */
export function choiceConstraint(options: readonly string[], mode: ConstraintMode): Pick<GenerateRequest, 'grammar' | 'jsonSchema' | 'maxTokens'> {
  if (options.length === 0) throw new RangeError('a choice needs at least one option');
  const longest = Math.max(...options.map((o) => o.length));
  if (mode === 'grammar') {
    // Options are printable ASCII here (ids, A/B/tie), so a token is at least one character and the
    // longest option always fits: the grammar ends the output right after a complete option.
    return { grammar: `root ::= ${options.map(gbnfLiteral).join(' | ')}`, maxTokens: longest + 1 };
  }
  return {
    jsonSchema: { type: 'object', properties: { choice: { type: 'string', enum: [...options] } }, required: ['choice'], additionalProperties: false },
    maxTokens: longest + 32,
  };
}

/** The option the output names, or null. */
export function parseChoice(text: string, options: readonly string[]): string | null {
  const trimmed = text.trim();
  if (options.includes(trimmed)) return trimmed;
  try {
    const value = (JSON.parse(trimmed) as { choice?: unknown }).choice;
    if (typeof value === 'string' && options.includes(value)) return value;
  } catch {
    // not JSON: look for an option in the text
  }
  // The longest option that occurs as a whole word (so "D12" is not read as "D1").
  const byLength = [...options].sort((a, b) => b.length - a.length);
  for (const o of byLength) {
    const escaped = o.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    if (new RegExp(`(^|[^A-Za-z0-9])${escaped}($|[^A-Za-z0-9])`).test(trimmed)) return o;
  }
  return null;
}
