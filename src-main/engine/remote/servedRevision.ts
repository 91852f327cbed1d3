/**
 * What an OpenAI-compatible server says about the weights behind a model name, from its
 * `GET /v1/models` entry, as one stable string (the "served revision"):
 *
 * - vLLM reports `root`: the model path or hub id it loaded (the name may be an alias given with
 *   `--served-model-name`). → `root=<root>`
 * - llama.cpp's server reports `meta`: vocabulary type and size, training context, width,
 *   parameter count and file size of the GGUF. → `gguf:n_params=…,size=…,…` (those present)
 * - A server reporting neither (the OpenAI API, most gateways) has no served revision.
 *
 * It is part of a remote model's cache identity (recorded when the model is added, so a run can
 * be keyed without reaching the server), and replicas are checked against it.
 */
import { modelsResponse } from './openAiResponses';

/** The llama.cpp `meta` fields that tell GGUF files apart, in a fixed order. */
const ggufMetaFields = ['n_params', 'size', 'n_vocab', 'vocab_type', 'n_embd', 'n_ctx_train'] as const;

export function servedRevision(entry: Record<string, unknown>): string | undefined {
  if (typeof entry.root === 'string' && entry.root !== '') return `root=${entry.root}`;
  const meta = entry.meta;
  if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) {
    const parts = ggufMetaFields
      .filter((k) => typeof (meta as Record<string, unknown>)[k] === 'number')
      .map((k) => `${k}=${String((meta as Record<string, unknown>)[k])}`);
    if (parts.length > 0) return `gguf:${parts.join(',')}`;
  }
  return undefined;
}

/**
 * Whether a served revision tells weights apart. vLLM's `root` names the weights it loaded; the
 * GGUF `meta` of llama.cpp's server is the file's shape (two GGUFs of one shape report the same),
 * so a model served that way is identified by a fingerprint too (weightsFingerprint.ts).
 */
export function revisionIdentifiesWeights(revision: string | undefined): boolean {
  return revision !== undefined && revision.startsWith('root=');
}

const fingerprintMark = ';fingerprint=';

/**
 * The recorded revision of a model identified by a fingerprint: what the server reports (if
 * anything) and the fingerprint's digest, e.g. `gguf:n_params=…;fingerprint=3f2a…`.
 */
export function revisionWithFingerprint(reported: string | undefined, digest: string): string {
  return `${reported ?? ''}${fingerprintMark}${digest}`;
}

/** The part of a recorded revision that `GET /models` must report (undefined: nothing to compare). */
export function reportedPartOf(revision: string | undefined): string | undefined {
  if (revision === undefined) return undefined;
  const at = revision.indexOf(fingerprintMark);
  if (at < 0) return revision;
  return at === 0 ? undefined : revision.slice(0, at);
}

/** What one endpoint said when asked which weights it serves. */
export interface EndpointProbe {
  baseUrl: string;
  /** Whether GET /models listed the model (undefined when the request failed). */
  listed?: boolean;
  /** Its served revision, when it reports one. */
  revision?: string;
  /** Why the endpoint could not be asked (network error, HTTP status, not JSON). */
  error?: string;
}

/**
 * Asks every endpoint, in parallel, what it serves under `model` (GET /models, one attempt each,
 * a short timeout). Never throws; errors never contain the API key.
 */
export async function probeServedRevisions(baseUrls: string[], model: string, apiKey: string | undefined, timeoutMs = 5_000): Promise<EndpointProbe[]> {
  const redact = (text: string): string => (apiKey ? text.split(apiKey).join('[redacted]') : text);
  return Promise.all(
    baseUrls.map(async (baseUrl): Promise<EndpointProbe> => {
      try {
        const response = await fetch(`${baseUrl}/models`, {
          headers: { accept: 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!response.ok) return { baseUrl, error: `GET /models: HTTP ${response.status}` };
        const parsed = modelsResponse.safeParse(await response.json());
        if (!parsed.success) return { baseUrl, error: 'GET /models: not an OpenAI model list' };
        const entry = parsed.data.data.find((m) => m.id === model);
        if (!entry) return { baseUrl, listed: false };
        const revision = servedRevision(entry);
        return { baseUrl, listed: true, ...(revision !== undefined ? { revision } : {}) };
      } catch (error) {
        return { baseUrl, error: redact(`GET /models: ${(error as Error).message}`) };
      }
    }),
  );
}

/**
 * The revision to record for a model from its endpoints' answers: the one they all report, none
 * when no endpoint reports one, and an error naming the endpoints when they disagree (replicas
 * must serve the same weights to share cache entries).
 */
export function agreedRevision(probes: EndpointProbe[]): { revision?: string; conflict?: string } {
  const answered = probes.filter((p) => p.listed);
  const revisions = new Set(answered.map((p) => p.revision ?? '(none reported)'));
  if (revisions.size > 1) {
    return { conflict: `the endpoints serve different weights: ${answered.map((p) => `${p.baseUrl} ${p.revision ?? '(none reported)'}`).join('; ')}` };
  }
  const only = answered[0]?.revision;
  return only !== undefined ? { revision: only } : {};
}
