/**
 * Did the server honour the output constraint it was sent? (issue 24 item 3)
 *
 * A server that does not read the field a constraint travels in (llama.cpp's `/v1/completions`
 * ignores `response_format`; a vLLM build may ignore a field it does not know) answers HTTP 200
 * with free text. Reported as success, that text becomes "the model could not answer in the
 * format" downstream, or silently a fallback. So every constrained answer is checked against its
 * constraint here, and one that cannot have come out of a constrained decoder makes the call fail
 * with an error naming the model, the constraint and its transport.
 *
 * - JSON schema: an answer that ended normally must parse as JSON and satisfy the schema (the
 *   keywords checked are those below; others are not checked). An answer cut by `maxTokens` (or a stop
 *   string) cannot parse; it must at least begin as the schema's type begins (`{`, `[`, `"`, …).
 * - GBNF grammar: only a grammar that is an alternation of literals (`root ::= "a" | "b"`, the
 *   shape of choice constraints) is checked: the answer must be one of them (or, cut by
 *   `maxTokens`, begin one). Other grammars are not checked here.
 */
import { EngineError, type FinishReason, type GenerateRequest } from '../types';

export interface ConstraintContext {
  /** The served model, as configured. */
  model: string;
  /** The request field the constraint travelled in (`json_schema`, `response_format`, …). */
  transport?: string;
}

export function checkConstrainedOutput(text: string, finishReason: FinishReason, request: Pick<GenerateRequest, 'jsonSchema' | 'grammar'>, context: ConstraintContext): void {
  if (finishReason === 'aborted') return;
  // Cut by maxTokens or before a stop string: a prefix of a constrained answer.
  const cut = finishReason !== 'stop';
  const via = context.transport ? ` sent as ${context.transport}` : '';
  const fail = (what: string, why: string): never => {
    throw new EngineError(
      'remote-error',
      `model ${JSON.stringify(context.model)} did not honour the ${what}${via}: ${why}; answer began ${JSON.stringify(text.slice(0, 80))}. ` +
        'The server probably ignores that field: use the transport it reads (llama.cpp: grammar or json_schema, on /v1/completions and on chat; vLLM: response_format or structured_outputs).',
    );
  };
  if (request.jsonSchema !== undefined) {
    const schema = request.jsonSchema;
    const trimmed = text.trim();
    if (cut) {
      if (trimmed === '' || startsAsSchema(trimmed, schema)) return;
      fail('JSON schema', 'the answer (cut at maxTokens) does not begin as the schema\'s JSON does');
    }
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      return fail('JSON schema', 'the answer is not JSON');
    }
    const problem = schemaViolation(value, schema, '$');
    if (problem !== undefined) fail('JSON schema', problem);
    return;
  }
  if (request.grammar !== undefined) {
    const literals = literalAlternatives(request.grammar);
    if (literals === undefined) return;
    if (cut ? literals.some((l) => l.startsWith(text)) : literals.includes(text)) return;
    fail('GBNF grammar', `the answer is not one of ${literals.map((l) => JSON.stringify(l)).join(', ')}`);
  }
}

/** The literals of `root ::= "a" | "b" | …` (GBNF string escapes \" \\ \n \t), or undefined for any other grammar. */
export function literalAlternatives(grammar: string): string[] | undefined {
  const match = /^\s*root\s*::=\s*(.*?)\s*$/s.exec(grammar);
  if (!match) return undefined;
  const body = match[1]!;
  const literal = /"((?:[^"\\\n]|\\["\\nt])*)"/y;
  const out: string[] = [];
  let at = 0;
  for (;;) {
    literal.lastIndex = at;
    const m = literal.exec(body);
    if (!m) return undefined;
    out.push(m[1]!.replace(/\\(["\\nt])/g, (_e, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c)));
    at = literal.lastIndex;
    const rest = /\s*(\|)?\s*/y;
    rest.lastIndex = at;
    const sep = rest.exec(body)!;
    at = rest.lastIndex;
    if (at >= body.length) return out;
    if (!sep[1]) return undefined;
  }
}

function schemaTypes(schema: Record<string, unknown>): string[] | undefined {
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t) && t.every((x) => typeof x === 'string')) return t as string[];
  if (Array.isArray(schema.enum) || 'const' in schema) {
    const values = Array.isArray(schema.enum) ? schema.enum : [schema.const];
    return [...new Set(values.map(jsonType))];
  }
  if (schema.properties !== undefined) return ['object'];
  if (schema.items !== undefined) return ['array'];
  return undefined;
}

function startsAsSchema(text: string, schema: Record<string, unknown>): boolean {
  const types = schemaTypes(schema);
  if (types === undefined) return /^[{["\-0-9tfn]/.test(text);
  const first = text[0]!;
  return types.some((t) => {
    if (t === 'object') return first === '{';
    if (t === 'array') return first === '[';
    if (t === 'string') return first === '"';
    if (t === 'number' || t === 'integer') return /[-0-9]/.test(first);
    if (t === 'boolean') return 'true'.startsWith(text.slice(0, 4)) || 'false'.startsWith(text.slice(0, 5));
    if (t === 'null') return 'null'.startsWith(text.slice(0, 4));
    return true;
  });
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The first way `value` breaks `schema` (a JSON path and what is wrong), or undefined. Checks
 * type, enum, const, properties, required, additionalProperties, items, min/maxItems,
 * min/maxLength, minimum/maximum, anyOf/oneOf/allOf; other keywords are not checked.
 */
export function schemaViolation(value: unknown, schema: unknown, path: string): string | undefined {
  if (schema === true || !isRecord(schema)) return undefined;
  const types = typeof schema.type === 'string' ? [schema.type] : Array.isArray(schema.type) ? (schema.type as string[]) : undefined;
  const actual = jsonType(value);
  if (types && !types.some((t) => t === actual || (t === 'number' && actual === 'integer'))) return `${path} is ${actual}, the schema wants ${types.join(' or ')}`;
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => deepEqual(e, value))) return `${path} is ${JSON.stringify(value)}, not one of the schema's enum`;
  if ('const' in schema && !deepEqual(schema.const, value)) return `${path} is ${JSON.stringify(value)}, the schema wants ${JSON.stringify(schema.const)}`;
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const ok = list.filter((s) => schemaViolation(value, s, path) === undefined).length;
    if (key === 'allOf' ? ok !== list.length : key === 'anyOf' ? ok === 0 : ok !== 1) return `${path} does not satisfy the schema's ${key}`;
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) return `${path} is shorter than ${schema.minLength}`;
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) return `${path} is longer than ${schema.maxLength}`;
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return `${path} is below ${schema.minimum}`;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return `${path} is above ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) return `${path} has fewer than ${schema.minItems} items`;
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) return `${path} has more than ${schema.maxItems} items`;
    if (schema.items !== undefined) {
      for (let i = 0; i < value.length; i++) {
        const problem = schemaViolation(value[i], schema.items, `${path}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  if (isRecord(value)) {
    const properties = isRecord(schema.properties) ? schema.properties : {};
    if (Array.isArray(schema.required)) {
      for (const key of schema.required) if (typeof key === 'string' && !(key in value)) return `${path} lacks the required ${JSON.stringify(key)}`;
    }
    for (const [key, v] of Object.entries(value)) {
      if (key in properties) {
        const problem = schemaViolation(v, properties[key], `${path}.${key}`);
        if (problem) return problem;
      } else if (schema.additionalProperties === false) return `${path} has ${JSON.stringify(key)}, which the schema does not allow`;
      else if (isRecord(schema.additionalProperties)) {
        const problem = schemaViolation(v, schema.additionalProperties, `${path}.${key}`);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}
