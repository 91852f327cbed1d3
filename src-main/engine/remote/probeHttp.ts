/**
 * One HTTP request of a probe (`remote add`, the weights check): a single attempt with a short
 * timeout, no retries, no pool. Probes must fail in seconds on an unreachable server, never
 * wait out the engine's retry schedule. Never throws; messages never contain the API key.
 */
import { outboundFetch } from '../outbound';

export type ProbeOutcome =
  | { kind: 'ok'; status: number; json: unknown }
  | { kind: 'http'; status: number; detail: string }
  | { kind: 'not-json'; status: number; text: string }
  | { kind: 'network'; detail: string };

export interface ProbeTarget {
  baseUrl: string;
  apiKey: string | undefined;
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export async function probeRequest(target: ProbeTarget, method: 'GET' | 'POST', path: string, body?: unknown, retried = false): Promise<ProbeOutcome> {
  const redact = (text: string): string => (target.apiKey ? text.split(target.apiKey).join('[redacted]') : text);
  const signals = [AbortSignal.timeout(target.timeoutMs), ...(target.signal ? [target.signal] : [])];
  try {
    const response = await outboundFetch(`${target.baseUrl}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.any(signals),
    });
    const text = await response.text();
    if (!response.ok) return { kind: 'http', status: response.status, detail: redact(errorText(text)) };
    try {
      return { kind: 'ok', status: response.status, json: JSON.parse(text) as unknown };
    } catch {
      return { kind: 'not-json', status: response.status, text: redact(text.slice(0, 200)) };
    }
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return { kind: 'network', detail: `no answer within ${Math.round(target.timeoutMs / 1000)} s` };
    const cause = e.cause?.code ?? e.cause?.message;
    // A kept-alive connection the server closed (it restarted since): a GET is asked once more on a new one.
    if (method === 'GET' && !retried && (e.cause?.code === 'UND_ERR_SOCKET' || e.cause?.code === 'ECONNRESET')) return probeRequest(target, method, path, body, true);
    return { kind: 'network', detail: redact(cause ? `${e.message} (${cause})` : e.message) };
  }
}

/** A short human reason for a failed outcome. */
export function describeOutcome(outcome: ProbeOutcome): string {
  switch (outcome.kind) {
    case 'ok':
      return `HTTP ${outcome.status}`;
    case 'http':
      return `HTTP ${outcome.status}${outcome.detail ? `: ${outcome.detail}` : ''}`;
    case 'not-json':
      return `HTTP ${outcome.status}, not JSON`;
    case 'network':
      return outcome.detail;
  }
}

/** The message of an OpenAI/vLLM/FastAPI error body, else the text, shortened. */
function errorText(text: string): string {
  let message = text;
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const error = body.error as Record<string, unknown> | string | undefined;
    if (error && typeof error === 'object' && typeof error.message === 'string') message = error.message;
    else if (typeof error === 'string') message = error;
    else if (typeof body.message === 'string') message = body.message;
    else if (body.detail !== undefined) message = typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail);
  } catch {
    // not JSON
  }
  const flat = message.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
