/**
 * How long to wait before the next attempt. Pure, so the rules are testable without a server.
 */

/**
 * The server's requested wait in ms, or undefined. OpenAI sends `retry-after-ms` (its SDK honours it
 * first); RFC 9110 `Retry-After` is either delay-seconds or an HTTP-date.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.ceil(Number(ms));
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/**
 * Exponential backoff `base·2^attempt` capped at `max`. With jitter, "equal jitter": half the delay
 * fixed, half uniform random — spreads clients apart while never retrying immediately.
 * Jitter need not be reproducible (it changes timing, never outputs), so it uses Math.random.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, jitter: boolean): number {
  const capped = Math.min(maxMs, baseMs * 2 ** attempt);
  return jitter ? capped / 2 + Math.random() * (capped / 2) : capped;
}
