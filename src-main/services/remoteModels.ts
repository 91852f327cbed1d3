/**
 * Remote models as the workspace stores them (table `remote_endpoints`, migration 0005): one row per
 * served model, its first endpoint in `base_url` and the rest of its configuration in the
 * `settings` JSON. A pool of replicas (issue 13 item 3) adds `endpoints` (each with its own limit)
 * and `revision` to that JSON, so rows written before pools — `base_url` plus
 * `{serverKind, maxConcurrency}` — read unchanged as a pool of one and no migration is needed.
 */
import { DataError } from '../core/errors';
import { remoteDefaults, remoteModelKey, resolveRemoteConfig, type RemoteEngineConfig, type RemoteServerKind } from '../engine/remote/remoteEngineConfig';
import { agreedRevision, probeServedRevisions } from '../engine/remote/servedRevision';
import { ApiFailure } from '../api/router';

export interface RemoteRow {
  id: number;
  name: string;
  base_url: string;
  model: string;
  api_key: string | null;
  settings: string;
  added_at: string;
}

/** The `settings` JSON of a row. */
export interface StoredRemoteSettings {
  serverKind?: RemoteServerKind;
  /** Default limit of an endpoint that names none (and the only limit of a pre-pool row). */
  maxConcurrency?: number;
  /** All endpoints, the first being `base_url`; absent in pre-pool rows. */
  endpoints?: Array<{ baseUrl: string; maxConcurrency: number }>;
  /** Which weights the model name stands for (part of the cache key). */
  revision?: string;
  /** Whether `revision` came from the servers (so each endpoint is checked against it). */
  checkRevision?: boolean;
}

export interface RemoteInput {
  baseUrl?: string | undefined;
  endpoints?: Array<{ baseUrl: string; maxConcurrency?: number | undefined }> | undefined;
  model: string;
  apiKey?: string | undefined;
  serverKind: RemoteServerKind;
  maxConcurrency: number;
  /** Stated by the user; when absent, what the endpoints report (if `probe`). */
  revision?: string | undefined;
  probe?: boolean | undefined;
}

export function storedSettings(row: RemoteRow): StoredRemoteSettings {
  return JSON.parse(row.settings) as StoredRemoteSettings;
}

/** The row's endpoints: the stored list, or `base_url` alone for rows written before pools. */
export function endpointsOf(row: RemoteRow): Array<{ baseUrl: string; maxConcurrency: number }> {
  const s = storedSettings(row);
  return s.endpoints && s.endpoints.length > 0 ? s.endpoints : [{ baseUrl: row.base_url, maxConcurrency: s.maxConcurrency ?? remoteDefaults.maxConcurrency }];
}

export function engineConfigOf(row: RemoteRow): RemoteEngineConfig {
  const s = storedSettings(row);
  return {
    model: row.model,
    endpoints: endpointsOf(row),
    ...(row.api_key ? { apiKey: row.api_key } : {}),
    ...(s.serverKind ? { serverKind: s.serverKind } : {}),
    ...(s.maxConcurrency ? { maxConcurrency: s.maxConcurrency } : {}),
    ...(s.revision ? { revision: s.revision, checkRevision: s.checkRevision === true } : {}),
  };
}

/** The cache key of a row's model (see remoteModelKey). */
export function modelKeyOf(row: RemoteRow): string {
  return remoteModelKey(row.model, storedSettings(row).revision);
}

/**
 * Checks a model's configuration and settles its revision: the one given, else (unless `probe`
 * is false) the one every reachable endpoint reports; endpoints reporting different weights are
 * refused, naming them. Returns what to store.
 */
export async function settleRemote(input: RemoteInput): Promise<{ baseUrl: string; settings: StoredRemoteSettings }> {
  let resolved;
  try {
    resolved = resolveRemoteConfig({
      model: input.model,
      ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
      ...(input.endpoints ? { endpoints: input.endpoints.map((e) => ({ baseUrl: e.baseUrl, ...(e.maxConcurrency !== undefined ? { maxConcurrency: e.maxConcurrency } : {}) })) } : {}),
      maxConcurrency: input.maxConcurrency,
      serverKind: input.serverKind,
      ...(input.revision ? { revision: input.revision } : {}),
    });
  } catch (error) {
    if (error instanceof DataError) throw new ApiFailure('validation', error.message, error.field ?? 'endpoints');
    throw error;
  }
  const endpoints = resolved.endpoints.map((e) => ({ baseUrl: e.baseUrl, maxConcurrency: e.maxConcurrency }));
  let revision = resolved.revision;
  let checkRevision = false;
  if (revision === undefined && input.probe !== false) {
    const probes = await probeServedRevisions(
      endpoints.map((e) => e.baseUrl),
      input.model,
      input.apiKey || undefined,
    );
    const agreed = agreedRevision(probes);
    if (agreed.conflict) throw new ApiFailure('validation', agreed.conflict, 'endpoints');
    if (agreed.revision !== undefined) {
      revision = agreed.revision;
      checkRevision = true;
    }
  }
  const settings: StoredRemoteSettings = {
    serverKind: resolved.serverKind,
    maxConcurrency: resolved.maxConcurrency,
    ...(endpoints.length > 1 || input.endpoints ? { endpoints } : {}),
    ...(revision !== undefined ? { revision, checkRevision } : {}),
  };
  return { baseUrl: endpoints[0]!.baseUrl, settings };
}
