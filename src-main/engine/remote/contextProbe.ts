/**
 * The context size one request may use on a server, asked at `remote add` (issue 24 item 2), so a
 * prompt budget can default to what the context leaves (context − maxTokens) as on the local engine:
 *
 * - llama.cpp's server: `GET /props` → `default_generation_settings.n_ctx` (the context of one slot:
 *   `-c` divided over `-np` slots, and what the server enforces per request: "request (852 tokens)
 *   exceeds the available context size (256 tokens)" with -c 384 -np 2, measured on build de3ff81);
 *   else `GET /slots` → the smallest slot's `n_ctx`; else the model list's `meta.n_ctx`.
 * - vLLM: the model list's `max_model_len` (GET /v1/models).
 * - Any other server: not reported (the budget then needs a total, or falls back as before).
 *
 * A pool takes the smallest context of its endpoints (a request may go to any of them). Never
 * throws: an answer without a size says why.
 */
import { probeRequest, type ProbeTarget } from './probeHttp';

export type ContextProbe = { size: number; source: string } | { size: undefined; reason: string };

const positiveInt = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

/** The context size one endpoint reports for `model`, and where it came from. */
export async function probeContextSize(target: ProbeTarget, model: string): Promise<ContextProbe> {
  const tried: string[] = [];
  const props = await probeRequest(target, 'GET', '/../props');
  if (props.kind === 'ok') {
    const n = positiveInt((props.json as { default_generation_settings?: { n_ctx?: unknown } } | null)?.default_generation_settings?.n_ctx);
    if (n !== undefined) return { size: n, source: 'GET /props default_generation_settings.n_ctx (one slot)' };
    tried.push('GET /props has no default_generation_settings.n_ctx');
  } else tried.push(`GET /props: ${props.kind === 'http' ? `HTTP ${props.status}` : props.kind}`);
  const slots = await probeRequest(target, 'GET', '/../slots');
  if (slots.kind === 'ok' && Array.isArray(slots.json)) {
    const sizes = (slots.json as Array<{ n_ctx?: unknown } | null>).map((s) => positiveInt(s?.n_ctx)).filter((n): n is number => n !== undefined);
    if (sizes.length > 0) return { size: Math.min(...sizes), source: 'GET /slots n_ctx (the smallest slot)' };
    tried.push('GET /slots names no n_ctx');
  } else tried.push(`GET /slots: ${slots.kind === 'http' ? `HTTP ${slots.status}` : slots.kind}`);
  const models = await probeRequest(target, 'GET', '/models');
  if (models.kind === 'ok') {
    const data = (models.json as { data?: unknown } | null)?.data;
    const entry = Array.isArray(data) ? (data as Array<Record<string, unknown> | null>).find((m) => m?.id === model) : undefined;
    const vllm = positiveInt(entry?.max_model_len);
    if (vllm !== undefined) return { size: vllm, source: 'GET /models max_model_len' };
    const meta = positiveInt((entry?.meta as { n_ctx?: unknown } | undefined)?.n_ctx);
    if (meta !== undefined) return { size: meta, source: 'GET /models meta.n_ctx' };
    tried.push(entry ? 'GET /models: no max_model_len or meta.n_ctx for the model' : 'GET /models does not list the model');
  } else tried.push(`GET /models: ${models.kind === 'http' ? `HTTP ${models.status}` : models.kind}`);
  return { size: undefined, reason: `the server reports no context size (${tried.join('; ')})` };
}

/** The pool's context: the smallest any endpoint reports (a request may go to any of them); unknown when one does not report. */
export async function probePoolContextSize(targets: readonly ProbeTarget[], model: string): Promise<ContextProbe & { perEndpoint: Array<{ baseUrl: string; size: number | null }> }> {
  const probes = await Promise.all(targets.map(async (t) => ({ baseUrl: t.baseUrl, probe: await probeContextSize(t, model) })));
  const perEndpoint = probes.map((p) => ({ baseUrl: p.baseUrl, size: p.probe.size ?? null }));
  const missing = probes.find((p) => p.probe.size === undefined);
  if (missing) return { size: undefined, reason: `${missing.baseUrl}: ${(missing.probe as { reason: string }).reason}`, perEndpoint };
  const sizes = probes.map((p) => p.probe.size as number);
  const size = Math.min(...sizes);
  const first = probes[0]!.probe as { source: string };
  const differ = new Set(sizes).size > 1 ? ` (the endpoints differ: ${perEndpoint.map((e) => `${e.baseUrl} ${e.size}`).join(', ')}; the smallest is used)` : '';
  return { size, source: `${first.source}${differ}`, perEndpoint };
}
