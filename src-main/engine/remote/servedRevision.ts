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
