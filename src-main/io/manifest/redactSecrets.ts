/**
 * Removes secrets from anything about to be written into a manifest or export. A value is
 * replaced by "[REDACTED]" when its key names a secret: the key is split into words
 * (camelCase, snake_case, kebab-case, dots) and matches when a word is one of SECRET_WORDS or two
 * consecutive words form `api key`, `access key` or `private key`. Matching whole words keeps
 * ordinary parameters such as `maxTokens`, `promptTokens` or `tokenizer`, while `apiKey`,
 * `OPENAI_API_KEY`, `x-api-key`, `hfToken`, `clientSecret`, `Authorization` and `password` go.
 * Inside any string, URL credentials (`https://user:pass@host`), `Bearer …` values and
 * credential query parameters (`?api_key=…`, `&token=…`) are masked too, so that a base URL or a
 * command line cannot smuggle a key through.
 */
export const REDACTED = '[REDACTED]';

const SECRET_WORDS = new Set([
  'apikey',
  'auth',
  'authorization',
  'bearer',
  'cookie',
  'credential',
  'credentials',
  'passphrase',
  'passwd',
  'password',
  'secret',
  'secrets',
  'token',
]);
const SECRET_PAIRS = new Set(['api key', 'access key', 'private key', 'secret key', 'session key']);

/** Lower-case words of a key: `OPENAI_API_KEY` → [openai, api, key], `hfToken` → [hf, token]. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

export function isSecretKey(key: string): boolean {
  const words = keyWords(key);
  for (let i = 0; i < words.length; i++) {
    if (SECRET_WORDS.has(words[i] as string)) return true;
    if (i > 0 && SECRET_PAIRS.has(`${words[i - 1]} ${words[i]}`)) return true;
  }
  return false;
}

const QUERY_SECRET = /([?&](?:api[_-]?key|apikey|access[_-]?token|token|key|secret|password|auth)=)[^&#\s]*/gi;

/** Masks credentials embedded in a string value. */
export function redactString(text: string): string {
  return text
    .replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, `$1${REDACTED}@`)
    .replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, `$1 ${REDACTED}`)
    .replace(QUERY_SECRET, `$1${REDACTED}`);
}

/** A deep copy of a JSON-like value with secrets redacted. Throws on cycles. */
export function redactSecrets<T>(value: T): T {
  return walk(value, new WeakSet()) as T;
}

function walk(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactString(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) throw new RangeError('cannot redact a cyclic structure');
  seen.add(value);
  let out: unknown;
  if (Array.isArray(value)) out = value.map((v) => walk(v, seen));
  else if (value instanceof Date) out = value.toISOString();
  else {
    const obj: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) obj[k] = isSecretKey(k) ? REDACTED : walk(v, seen);
    out = obj;
  }
  seen.delete(value);
  return out;
}
