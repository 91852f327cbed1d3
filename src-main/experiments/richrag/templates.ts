/**
 * Rendering of RichRAG's prompt templates: every `{{name}}` is replaced by its value in one pass, so an
 * inserted value (a document, a sub-aspect an LLM wrote) is never read as a placeholder. The spec
 * schema has already checked that a template names only its own placeholders
 * (RICHRAG_PLACEHOLDERS); rendering refuses an unknown one too, naming it.
 *
 * core/prompts is not used here because these prompts need placeholders it does not have (sub-aspects,
 * ranker candidates with aspect tags, the ids chosen so far, the judge's two responses).
 */
import { DataError } from '../../core/errors';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

export function renderTemplate(template: string, values: Readonly<Record<string, string>>, field = 'template'): string {
  return template.replace(PLACEHOLDER, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new DataError(`unknown placeholder {{${name}}}`, { field });
    return value;
  });
}

/** The first `n` whitespace-separated words of a text ("…" appended when cut). */
export function firstWords(text: string, n: number): string {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length <= n ? words.join(' ') : `${words.slice(0, n).join(' ')} …`;
}

/** Sub-aspects one per line ("- aspect"); empty when there are none. */
export function aspectLines(aspects: readonly string[]): string {
  return aspects.map((a) => `- ${a}`).join('\n');
}
