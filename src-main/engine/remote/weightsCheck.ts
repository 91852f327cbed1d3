/**
 * The weights check of one endpoint (issue 24 item 4): before an endpoint joins a pool — at
 * `remote add`, `remote endpoints`, and in the engine before an endpoint's first call and on
 * every re-admission (endpointPool.ts) — it must list the model, report the recorded revision,
 * and, where the model is identified by a fingerprint, give the same greedy continuations
 * (weightsFingerprint.ts).
 */
import type { RemoteServerKind } from './remoteEngineConfig';
import type { ProbeTarget } from './probeHttp';
import { listModel } from './serverProbe';
import { compareFingerprints, takeFingerprint, type WeightsFingerprint } from './weightsFingerprint';

export interface ExpectedWeights {
  model: string;
  serverKind: RemoteServerKind;
  /** What GET /models must report (servedRevision.ts); undefined: nothing to compare. */
  reported: string | undefined;
  fingerprint: WeightsFingerprint | undefined;
}

export type WeightsVerdict =
  | { kind: 'same' }
  /** Serves other weights (or not this model): leave it out. */
  | { kind: 'different'; reason: string }
  /** Could not be asked (down, timeout, error): try again later. */
  | { kind: 'failed'; reason: string };

export async function verifyEndpointWeights(target: ProbeTarget, expected: ExpectedWeights): Promise<WeightsVerdict> {
  const listing = await listModel(target, expected.model);
  if (listing.kind === 'unreachable') return { kind: 'failed', reason: listing.detail };
  if (listing.kind === 'unlisted') return { kind: 'different', reason: `does not list the model ${JSON.stringify(expected.model)} (it lists ${listedNames(listing.listed)})` };
  if (listing.kind === 'no-list') {
    if (expected.reported !== undefined) return { kind: 'failed', reason: listing.detail };
  } else if (expected.reported !== undefined && listing.revision !== expected.reported) {
    return { kind: 'different', reason: `serves ${listing.revision ?? 'no reported revision'}, not the recorded ${expected.reported}` };
  }
  if (expected.fingerprint === undefined) return { kind: 'same' };
  const taken = await takeFingerprint(target, expected.model, expected.serverKind);
  if (!taken.ok) return { kind: 'failed', reason: `weights fingerprint: ${taken.reason}` };
  const compared = compareFingerprints(expected.fingerprint, taken.fingerprint);
  return compared.same ? { kind: 'same' } : { kind: 'different', reason: `serves other weights (fingerprint: ${compared.reason})` };
}

/** At most 10 names, quoted. */
export function listedNames(listed: readonly string[]): string {
  if (listed.length === 0) return 'no models';
  const shown = listed.slice(0, 10).map((m) => JSON.stringify(m));
  return `${shown.join(', ')}${listed.length > 10 ? `, and ${listed.length - 10} more` : ''}`;
}
