/**
 * The sub-aspect explorer E(q, p_se) (RichRAG Sec. 3.2, Eq. 1): an editable prompt asks an LLM for the
 * query's sub-aspects, and the output is constrained so that it always parses:
 *
 *   grammar      a GBNF list `["…", "…"]` of at most C items, each 1..maxChars printable ASCII
 *                characters other than `"` and `\`. A token is then at least one character, so the
 *                default maxTokens (2 + C·(maxChars + 4)) always lets the list close;
 *   json-schema  `{"aspects": [string, …]}` with maxItems C and maxLength maxChars (servers).
 *
 * Should an output still be cut (a smaller maxTokens, a server that ignores the schema), the lenient
 * parser keeps every complete string item of the first list and marks the result `repaired`; it never
 * throws. Then (richrag.md §1.1): a leading copy of the question and a following ':' are stripped, items
 * are trimmed and whitespace-collapsed, empty items dropped, duplicates removed by normalised text
 * (NFKC, lower case, punctuation and extra spaces removed; the first spelling is kept), and the list is
 * cut to C.
 */
import type { RichRagSpec } from '../../api/contract/richrag';
import type { GenerateRequest } from '../../engine/types';
import type { ConstraintMode } from './constraints';
import { renderTemplate } from './templates';

type ExplorerSpec = RichRagSpec['explorer'];

export function explorerPrompt(explorer: Pick<ExplorerSpec, 'template' | 'maxAspects'>, query: string): string {
  return renderTemplate(explorer.template, { query, max: String(explorer.maxAspects) }, 'explorer.template');
}

export function explorerGrammar(maxAspects: number, maxChars: number): string {
  const more = maxAspects > 1 ? ` ( ", " item ){0,${maxAspects - 1}}` : '';
  return [`root ::= "[" ( item${more} )? "]"`, `item ::= "\\"" char{1,${maxChars}} "\\""`, 'char ::= [ !#-\\[\\]-~]'].join('\n');
}

export function explorerJsonSchema(maxAspects: number, maxChars: number): Record<string, unknown> {
  return {
    type: 'object',
    properties: { aspects: { type: 'array', items: { type: 'string', minLength: 1, maxLength: maxChars }, maxItems: maxAspects } },
    required: ['aspects'],
    additionalProperties: false,
  };
}

export function defaultExplorerMaxTokens(maxAspects: number, maxChars: number): number {
  return Math.min(1024, 2 + maxAspects * (maxChars + 4));
}

export function explorerRequest(explorer: ExplorerSpec, mode: ConstraintMode, prompt: string): GenerateRequest {
  const maxTokens = explorer.maxTokens ?? defaultExplorerMaxTokens(explorer.maxAspects, explorer.maxChars);
  return {
    ...(explorer.chat ? { messages: [{ role: 'user' as const, content: prompt }] } : { prompt }),
    maxTokens,
    sampling: { temperature: 0 },
    ...(mode === 'grammar' ? { grammar: explorerGrammar(explorer.maxAspects, explorer.maxChars) } : { jsonSchema: explorerJsonSchema(explorer.maxAspects, explorer.maxChars) }),
  };
}

export interface ParsedList {
  items: string[];
  /** False when the text was not a complete JSON list (or {"aspects": list}) of strings. */
  complete: boolean;
}

/** The string items of the first JSON list in `text`; never throws. */
export function parseAspectList(text: string): ParsedList {
  try {
    const value = JSON.parse(text.trim()) as unknown;
    const list = Array.isArray(value) ? value : (value as { aspects?: unknown } | null)?.aspects;
    if (Array.isArray(list) && list.every((x) => typeof x === 'string')) return { items: list, complete: true };
  } catch {
    // fall through to the lenient scan
  }
  return { items: scanStrings(text), complete: false };
}

/** Complete JSON string literals after the first '[' up to the matching ']' or the end of the text. */
function scanStrings(text: string): string[] {
  const start = text.indexOf('[');
  if (start < 0) return [];
  const items: string[] = [];
  let i = start + 1;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ']') break;
    if (c !== '"') {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    if (j >= text.length) break; // an unterminated last item is dropped
    try {
      items.push(JSON.parse(text.slice(i, j + 1)) as string);
    } catch {
      // a malformed escape: skip the item
    }
    i = j + 1;
  }
  return items;
}

/** The comparison key of a sub-aspect: NFKC, lower case, letters/digits/spaces only, single spaces. */
export function aspectKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Clean, de-duplicate and cap a list of sub-aspects (see the module comment). */
export function normalizeAspects(items: readonly string[], query: string, cap: number): string[] {
  const queryText = query.trim();
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of items) {
    let text = raw.replace(/\s+/g, ' ').trim();
    if (queryText && text.toLowerCase().startsWith(queryText.toLowerCase())) text = text.slice(queryText.length).replace(/^\s*:/, '').trim();
    const key = aspectKey(text);
    if (key === '' || seen.has(key)) continue;
    seen.add(key);
    out.push(text);
    if (out.length === cap) break;
  }
  return out;
}
