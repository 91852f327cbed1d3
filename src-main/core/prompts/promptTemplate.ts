/**
 * Prompt templates: a small Mustache-like language for LLM prompts (no HTML escaping — the output
 * goes to a model, not a browser). Templates are parsed once and checked statically, so a typo is
 * an error naming the placeholder before any model runs.
 *
 *   {{query}}                      the query (input) text
 *   {{answer}}                     the first reference answer (an error when none is given)
 *   {{documents}}                  the documents as a numbered list, one per line:
 *                                  "[1] Title: text" ("[1] text" when the title is empty)
 *   {{#documents}}…{{/documents}}  the block once per document, with
 *                                    {{index}} (1-based), {{id}}, {{title}}, {{text}},
 *                                    {{attrs.KEY}} (a document attribute, e.g. attrs.tag)
 *                                  and {{query}}, {{answer}} as outside
 *   {{#documents separator=", and "}}…{{/documents}}
 *                                  the same, with the separator (a JSON string) between items
 *   {{^documents}}…{{/documents}}  the block only when there are no documents
 *   {{NAME|before:"marker"}}       the text before the first occurrence of marker (all of it when
 *   {{NAME|after:"marker"}}        absent) / after it (nothing when absent); filters chain
 *
 * Whitespace inside a tag is ignored (`{{ query }}`). There is no escape for a literal `{{` in the
 * template text; inserted values (queries, documents) are never parsed, so they may contain anything.
 *
 * Length budgets (tokenBudget.ts) apply while rendering: the query is cut first, each document's
 * item (the block body for one document, or one line of {{documents}}; separators excluded) gets
 * ⌊(total − |query|)/#documents⌋ units, and finally the whole prompt is cut to `total`. This is
 * Fair-RAG's order (fair-rag.md §6); its tokenizer is replaced by the budget's counter.
 */
import { DataError } from '../errors';
import type { PromptBudget, PromptCuts } from './tokenBudget';

/** A document as a prompt sees it. */
export interface PromptDocument {
  id: string;
  title: string;
  text: string;
  attrs?: Readonly<Record<string, unknown>>;
}

export interface PromptContext {
  query: string;
  documents: readonly PromptDocument[];
  /** The reference answer, for templates that use {{answer}} (e.g. few-shot examples). */
  answer?: string;
}

/** A template error: names the placeholder and where it is (line and column in the template). */
export class PromptTemplateError extends DataError {
  constructor(
    message: string,
    readonly placeholder: string | undefined,
    readonly position: { line: number; column: number } | undefined,
  ) {
    super(position ? `${message} (line ${position.line}, column ${position.column})` : message, { field: 'template' });
    this.name = 'PromptTemplateError';
  }
}

type Filter = { name: 'before' | 'after'; arg: string };
type Node =
  | { kind: 'text'; text: string }
  | { kind: 'var'; name: string; filters: Filter[]; tag: string; pos: Pos }
  | { kind: 'each'; separator: string; body: Node[] }
  | { kind: 'empty'; body: Node[] };
type Pos = { line: number; column: number };

/** A parsed, checked template. */
export interface PromptTemplate {
  readonly source: string;
  /** True when the template shows the documents at all ({{documents}} or a {{#documents}} block). */
  readonly usesDocuments: boolean;
  /** Document attributes the template reads ({{attrs.KEY}}). */
  readonly attrs: readonly string[];
  readonly nodes: readonly Node[];
}

const TOP_NAMES = ['query', 'answer', 'documents'];
const ITEM_NAMES = ['index', 'id', 'title', 'text', 'query', 'answer'];
const NAME_RE = /^(attrs\.[A-Za-z0-9_-]+|[A-Za-z_][A-Za-z0-9_]*)$/;

/** Parse and check a template; throws PromptTemplateError naming the offending placeholder. */
export function parsePromptTemplate(source: string): PromptTemplate {
  const state = { usesDocuments: false, attrs: new Set<string>() };
  const root: Node[] = [];
  // Stack of open blocks: the node list being filled and how the block was opened.
  const stack: { nodes: Node[]; open?: { kind: 'each' | 'empty'; pos: Pos } }[] = [{ nodes: root }];
  let i = 0;
  while (i < source.length) {
    const start = source.indexOf('{{', i);
    if (start < 0) {
      stack[stack.length - 1]!.nodes.push({ kind: 'text', text: source.slice(i) });
      break;
    }
    if (start > i) stack[stack.length - 1]!.nodes.push({ kind: 'text', text: source.slice(i, start) });
    const pos = positionOf(source, start);
    const end = findTagEnd(source, start + 2);
    if (end < 0) throw new PromptTemplateError(`unclosed tag '${source.slice(start, start + 20)}…': expected '}}'`, undefined, pos);
    const raw = source.slice(start + 2, end).trim();
    const tag = `{{${raw}}}`;
    i = end + 2;
    const top = stack[stack.length - 1]!;
    const inEach = stack.some((s) => s.open?.kind === 'each');
    if (raw.startsWith('#') || raw.startsWith('^')) {
      const kind = raw[0] === '#' ? 'each' : 'empty';
      const m = /^[#^]\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*(.*)$/s.exec(raw);
      const name = m?.[1] ?? '';
      if (name !== 'documents') throw new PromptTemplateError(`unknown block ${tag}: the only block is {{#documents}} (or {{^documents}})`, name || raw, pos);
      if (stack.length > 1) throw new PromptTemplateError(`${tag} cannot be nested inside another documents block`, name, pos);
      const node: Node = kind === 'each' ? { kind, separator: parseBlockOptions(m![2]!, tag, pos), body: [] } : { kind, body: [] };
      if (kind === 'empty' && m![2]!.trim() !== '') throw new PromptTemplateError(`${tag} takes no options`, name, pos);
      if (kind === 'each') state.usesDocuments = true;
      top.nodes.push(node);
      stack.push({ nodes: node.body, open: { kind, pos } });
      continue;
    }
    if (raw.startsWith('/')) {
      const name = raw.slice(1).trim();
      if (!top.open) throw new PromptTemplateError(`${tag} closes a block that was never opened`, name, pos);
      if (name !== 'documents') throw new PromptTemplateError(`${tag} does not match the open {{${top.open.kind === 'each' ? '#' : '^'}documents}}`, name, pos);
      stack.pop();
      continue;
    }
    const [nameText, ...filterTexts] = splitFilters(raw, tag, pos);
    const name = nameText!.trim();
    if (!NAME_RE.test(name)) throw new PromptTemplateError(`not a placeholder: ${tag}`, raw, pos);
    const known = inEach ? ITEM_NAMES : TOP_NAMES;
    if (name.startsWith('attrs.')) {
      if (!inEach) throw new PromptTemplateError(`${tag} can only be used inside {{#documents}}…{{/documents}}`, name, pos);
      state.attrs.add(name.slice('attrs.'.length));
    } else if (!known.includes(name)) {
      const hint = inEach && name === 'documents' ? ' ({{documents}} cannot be used inside its own block)' : ITEM_NAMES.includes(name) ? ' (it exists only inside {{#documents}}…{{/documents}})' : '';
      throw new PromptTemplateError(`unknown placeholder {{${name}}}${hint}; known here: ${[...known, ...(inEach ? ['attrs.KEY'] : [])].join(', ')}`, name, pos);
    }
    if (name === 'documents') state.usesDocuments = true;
    top.nodes.push({ kind: 'var', name, filters: filterTexts.map((f) => parseFilter(f, tag, pos)), tag, pos });
  }
  const open = stack[stack.length - 1]!.open;
  if (open) throw new PromptTemplateError(`{{${open.kind === 'each' ? '#' : '^'}documents}} is never closed with {{/documents}}`, 'documents', open.pos);
  return { source, usesDocuments: state.usesDocuments, attrs: [...state.attrs], nodes: root };
}

/** Render a template (text or parsed) for one query and its documents, within an optional budget. */
export function renderPrompt(template: string | PromptTemplate, ctx: PromptContext, budget?: PromptBudget): string {
  return renderPromptWithin(template, ctx, budget).prompt;
}

/** A prompt whose query and template text alone exceed its budget under truncate: 'documents'. */
export class PromptBudgetError extends DataError {
  constructor(
    message: string,
    readonly size: number,
    readonly total: number,
  ) {
    super(message, { field: 'promptBudget' });
    this.name = 'PromptBudgetError';
  }
}

/** `renderPrompt` with what the budget cut (`suffix` included in the prompt). */
export function renderPromptWithin(template: string | PromptTemplate, ctx: PromptContext, budget?: PromptBudget): { prompt: string; cuts: PromptCuts } {
  const t = typeof template === 'string' ? parsePromptTemplate(template) : template;
  const counter = budget?.counter;
  const suffix = budget?.suffix ?? '';
  const measure = budget?.measure ?? ((p: string) => counter!.count(p));
  // A counter that answers provisionally until it fetched (ModelTokenCounter): decide nothing on a
  // provisional answer; the caller renders again once the answers are in (settle).
  const provisional = () => counter?.pending === true;
  const query = budget?.queryMax !== undefined ? counter!.truncate(ctx.query, budget.queryMax) : ctx.query;
  const total = budget?.total;
  const n = ctx.documents.length;
  let itemMax: number | undefined;
  if (total !== undefined && n > 0 && budget?.share !== false) {
    itemMax = Math.max(0, Math.floor((total - counter!.count(query)) / n));
  }
  const limits: (number | undefined)[] = ctx.documents.map(() => itemMax);
  let items: { full: string; cut: string }[] = [];
  const cut = (item: string, index: number) => {
    const max = limits[index];
    const out = max === undefined ? item : counter!.truncate(item, max);
    items[index] = { full: item, cut: out };
    return out;
  };
  const cuts = (keep: number, extra: Partial<PromptCuts>): PromptCuts => ({
    queryCut: query !== ctx.query,
    documentsCut: items.slice(0, keep).filter((x) => x !== undefined && x.cut !== x.full).length,
    documentsDropped: n - keep,
    endCut: false,
    size: undefined,
    ...extra,
  });
  if (total === undefined) {
    const prompt = renderNodes(t.nodes, { query, answer: ctx.answer, documents: ctx.documents, cut }, undefined) + suffix;
    return { prompt, cuts: cuts(n, {}) };
  }
  if (budget?.truncate !== 'documents') {
    // Fair-RAG's released code: cut the end of the whole prompt (whatever is last, the question too).
    const out = renderNodes(t.nodes, { query, answer: ctx.answer, documents: ctx.documents, cut }, undefined);
    let limit = total;
    for (let pass = 0; ; pass++) {
      const kept = counter!.truncate(out, limit);
      const prompt = kept + suffix;
      const size = measure(prompt);
      if (size <= total || limit <= 0 || pass > 64 || provisional()) {
        const endCut = kept !== out;
        return { prompt, cuts: cuts(n, { endCut, size, queryCut: query !== ctx.query || (endCut && !kept.includes(query)) }) };
      }
      limit = Math.min(limit - 1, limit - (size - total));
    }
  }
  // Documents first: shorten the last kept document by the excess, drop it when nothing would be left.
  let keep = n;
  for (let pass = 0; ; pass++) {
    items = [];
    const prompt = renderNodes(t.nodes, { query, answer: ctx.answer, documents: ctx.documents.slice(0, keep), cut }, undefined) + suffix;
    const size = measure(prompt);
    if (size <= total || provisional()) return { prompt, cuts: cuts(keep, { size }) };
    if (keep > 0 && pass > 64 * (n + 1)) {
      // Not the question's fault: cutting a document and measuring the whole prompt disagree (an estimate whose
      // counts are not additive), so the loop gave up with documents left. Say that, not "without its documents".
      const unit = counter!.unit;
      throw new PromptBudgetError(
        `the prompt could not be fitted to its budget of ${total} ${unit}${budget.origin ? ` (${budget.origin})` : ''}: after ${pass} passes it still takes ${size} ${unit} with ${keep} of its ${n} documents, ` +
          'because cutting a document and counting the whole prompt disagree (the counts are an estimate where the server cannot tokenize); give the model a larger context or fewer maxTokens, or use a server that can tokenize',
        size,
        total,
      );
    }
    if (keep === 0) {
      const unit = counter!.unit;
      throw new PromptBudgetError(
        `the prompt without its documents takes ${size} ${unit}${suffix ? ' (instructions included)' : ''}, more than the budget of ${total} ${unit}${budget.origin ? ` (${budget.origin})` : ''}: ` +
          'the question is never cut silently; shorten the question or the template, give the model a larger context or fewer maxTokens, or set queryMax',
        size,
        total,
      );
    }
    const j = keep - 1;
    const current = items[j] === undefined ? 0 : counter!.count(items[j]!.cut);
    const next = Math.min(current - 1, current - (size - total));
    if (next <= 0) {
      keep--;
    } else limits[j] = next;
  }
}

interface RenderEnv {
  query: string;
  answer: string | undefined;
  documents: readonly PromptDocument[];
  cut(item: string, index: number): string;
}

function renderNodes(nodes: readonly Node[], env: RenderEnv, item: { doc: PromptDocument; index: number } | undefined): string {
  let out = '';
  for (const n of nodes) {
    switch (n.kind) {
      case 'text':
        out += n.text;
        break;
      case 'var':
        out += applyFilters(value(n, env, item), n.filters);
        break;
      case 'each':
        out += env.documents.map((doc, i) => env.cut(renderNodes(n.body, env, { doc, index: i + 1 }), i)).join(n.separator);
        break;
      case 'empty':
        if (env.documents.length === 0) out += renderNodes(n.body, env, undefined);
        break;
    }
  }
  return out;
}

function value(n: Extract<Node, { kind: 'var' }>, env: RenderEnv, item: { doc: PromptDocument; index: number } | undefined): string {
  switch (n.name) {
    case 'query':
      return env.query;
    case 'answer':
      if (env.answer === undefined) throw new PromptTemplateError(`${n.tag} needs a reference answer and none was given`, 'answer', n.pos);
      return env.answer;
    case 'documents':
      return env.documents.map((d, i) => env.cut(`[${i + 1}] ${d.title ? `${d.title}: ` : ''}${d.text}`, i)).join('\n');
  }
  const { doc, index } = item!;
  switch (n.name) {
    case 'index':
      return String(index);
    case 'id':
      return doc.id;
    case 'title':
      return doc.title;
    case 'text':
      return doc.text;
  }
  const key = n.name.slice('attrs.'.length);
  const v = doc.attrs?.[key];
  if (v === undefined || v === null) throw new PromptTemplateError(`document '${doc.id}' has no attribute '${key}' for ${n.tag}`, n.name, n.pos);
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
}

function applyFilters(text: string, filters: readonly Filter[]): string {
  let out = text;
  for (const f of filters) {
    const at = out.indexOf(f.arg);
    if (f.name === 'before') out = at < 0 ? out : out.slice(0, at);
    else out = at < 0 ? '' : out.slice(at + f.arg.length);
  }
  return out;
}

/** Index of the `}}` that ends a tag opened before `from`, skipping `}}` inside JSON string arguments. */
function findTagEnd(source: string, from: number): number {
  let inString = false;
  for (let j = from; j < source.length; j++) {
    const c = source[j];
    if (inString) {
      if (c === '\\') j++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '}' && source[j + 1] === '}') return j;
    else if (c === '{' && source[j + 1] === '{') return -1;
  }
  return -1;
}

/** `name|f:"a"|g:"b"` → ['name', 'f:"a"', 'g:"b"'], splitting on `|` outside strings. */
function splitFilters(raw: string, tag: string, pos: Pos): string[] {
  const parts: string[] = [];
  let cur = '';
  let inString = false;
  for (let j = 0; j < raw.length; j++) {
    const c = raw[j]!;
    if (inString) {
      cur += c;
      if (c === '\\') cur += raw[++j] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      cur += c;
    } else if (c === '|') {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  if (inString) throw new PromptTemplateError(`unterminated string in ${tag}`, raw, pos);
  parts.push(cur);
  return parts;
}

function parseFilter(text: string, tag: string, pos: Pos): Filter {
  const m = /^\s*([A-Za-z]+)\s*:\s*("(?:[^"\\]|\\.)*")\s*$/s.exec(text);
  const name = m?.[1] ?? text.trim().split(/[\s:]/)[0] ?? '';
  if (name !== 'before' && name !== 'after') throw new PromptTemplateError(`unknown filter '${name}' in ${tag}; filters: before:"…", after:"…"`, name, pos);
  if (!m) throw new PromptTemplateError(`${tag}: write the filter as ${name}:"marker"`, name, pos);
  const arg = parseJsonString(m[2]!, tag, pos);
  if (arg === '') throw new PromptTemplateError(`${tag}: the marker of '${name}' is empty`, name, pos);
  return { name, arg };
}

function parseBlockOptions(text: string, tag: string, pos: Pos): string {
  const t = text.trim();
  if (t === '') return '';
  const m = /^separator\s*=\s*("(?:[^"\\]|\\.)*")$/s.exec(t);
  if (!m) throw new PromptTemplateError(`unknown option in ${tag}; the only option is separator="…"`, t.split(/[\s=]/)[0], pos);
  return parseJsonString(m[1]!, tag, pos);
}

function parseJsonString(literal: string, tag: string, pos: Pos): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    throw new PromptTemplateError(`not a valid string literal ${literal} in ${tag}`, undefined, pos);
  }
}

function positionOf(source: string, index: number): Pos {
  const before = source.slice(0, index);
  const line = before.split('\n').length;
  return { line, column: index - before.lastIndexOf('\n') };
}
