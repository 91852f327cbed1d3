/**
 * Remote models as the workspace stores them (table `remote_endpoints`, migration 0005): one row per
 * served model, its first endpoint in `base_url` and the rest of its configuration in the
 * `settings` JSON. A pool of replicas (issue 13 item 3) adds `endpoints` (each with its own limit)
 * and `revision` to that JSON, so rows written before pools — `base_url` plus
 * `{serverKind, maxConcurrency}` — read unchanged as a pool of one and no migration is needed.
 */
import { DataError } from '../core/errors';
import { remoteDefaults, remoteModelKey, resolveRemoteConfig, type RemoteEngineConfig, type RemoteServerKind } from '../engine/remote/remoteEngineConfig';
import type { ProbeTarget } from '../engine/remote/probeHttp';
import { reportedPartOf, revisionIdentifiesWeights, revisionWithFingerprint } from '../engine/remote/servedRevision';
import { chooseTransports, listModel, probeCapabilities, type ServerCapabilities } from '../engine/remote/serverProbe';
import { probePoolContextSize } from '../engine/remote/contextProbe';
import { concurrencyNote, probeSlots, reproducibleLimit } from '../engine/remote/slotsProbe';
import { listedNames, verifyEndpointWeights, type ExpectedWeights } from '../engine/remote/weightsCheck';
import { compareFingerprints, takeFingerprint, type WeightsFingerprint } from '../engine/remote/weightsFingerprint';
import { ApiFailure } from '../api/apiFailure';
import { generateRefusal, type GenerateRefusal } from '../engine/remote/generateRequestBody';
import type { GenerateRequest } from '../engine/types';

/**
 * How to record a server that cannot be reached, in words that fit every client (no command-line flag in
 * a message the UI shows; the CLI's `remote add` names its --no-probe, the Models screen its checkbox).
 */
export const ADD_WITHOUT_ASKING = 'add it without asking the servers to record it anyway, marked unverified';

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
  /** Greedy continuations of fixed prompts, for servers whose report does not tell weights apart (issue 24). */
  fingerprint?: WeightsFingerprint;
  /** How the weights are identified and whether that was verified; absent in rows added before issue 24. */
  identity?: StoredIdentity;
  /** What the server did when asked at `remote add` (serverProbe.ts); absent with --no-probe. */
  capabilities?: ServerCapabilities;
  /** Per-request timeout (one HTTP attempt), milliseconds. */
  timeoutMs?: number;
  /**
   * How long a pool member's weights stay trusted before it is checked again while it serves,
   * milliseconds (default 60 000; `remote set --recheck-after`). Answers since its last passing
   * check are taken out when a check fails (issue 35 item 1), so a shorter interval recomputes less.
   */
  recheckAfterMs?: number;
  /**
   * The context one request may use, as the servers reported it at `remote add` (contextProbe.ts;
   * the smallest of a pool's), or why none was: the default prompt budget (context − maxTokens).
   */
  context?: { size: number; source: string } | { size: null; reason: string };
  /** llama.cpp: each endpoint's `GET /props` total_slots at `remote add` (null: not reported); see slotsProbe.ts. */
  slots?: Record<string, number | null>;
  /** llama.cpp: the user opted in to several requests at once on a server with several slots (outputs may vary). */
  concurrentSlots?: boolean;
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
  /** Per-request timeout, milliseconds. */
  timeoutMs?: number | undefined;
  /** llama.cpp: send up to the limit at once even to a server with several slots (greedy outputs may vary). */
  concurrentSlots?: boolean | undefined;
}

export function storedSettings(row: RemoteRow): StoredRemoteSettings {
  return JSON.parse(row.settings) as StoredRemoteSettings;
}

/** The row's endpoints: the stored list, or `base_url` alone for rows written before pools. */
export function endpointsOf(row: RemoteRow): Array<{ baseUrl: string; maxConcurrency: number }> {
  const s = storedSettings(row);
  return s.endpoints && s.endpoints.length > 0 ? s.endpoints : [{ baseUrl: row.base_url, maxConcurrency: s.maxConcurrency ?? remoteDefaults.maxConcurrency }];
}

/**
 * The endpoints with the limits the engine uses: on a llama.cpp server with several slots, one
 * request at a time unless the user opted in (slotsProbe.ts `reproducibleLimit`).
 */
export function effectiveEndpointsOf(row: RemoteRow): Array<{ baseUrl: string; maxConcurrency: number }> {
  const s = storedSettings(row);
  return endpointsOf(row).map((e) => ({ baseUrl: e.baseUrl, maxConcurrency: reproducibleLimit(s.serverKind ?? 'openai', e.maxConcurrency, s.slots?.[e.baseUrl], s.concurrentSlots === true) }));
}

/** What each endpoint's concurrency costs in reproducibility (llama.cpp), one line each; [] when nothing. */
export function concurrencyNotesOf(row: RemoteRow): string[] {
  const s = storedSettings(row);
  return endpointsOf(row)
    .map((e) => concurrencyNote(s.serverKind ?? 'openai', e.baseUrl, e.maxConcurrency, s.slots?.[e.baseUrl], s.concurrentSlots === true))
    .filter((n): n is string => n !== undefined);
}

/** llama.cpp: each endpoint's slots (GET /props total_slots), null where not reported. */
async function probePoolSlots(targets: readonly ProbeTarget[]): Promise<Record<string, number | null>> {
  const probes = await Promise.all(targets.map(async (t) => [t.baseUrl, (await probeSlots(t)).slots] as const));
  return Object.fromEntries(probes);
}

/**
 * The engine configuration of a row. The JSON-schema transports and the requests refused before
 * they are sent come from what the probe at `remote add` saw the server honour
 * (serverProbe.ts `chooseTransports`); a row without a probe keeps its server kind's defaults.
 */
export function engineConfigOf(row: RemoteRow): RemoteEngineConfig {
  const s = storedSettings(row);
  const chosen = chooseTransports(s.serverKind ?? 'openai', s.capabilities);
  const refused = Object.keys(chosen.refusals).length > 0;
  return {
    ...(chosen.jsonSchemaTransport ? { jsonSchemaTransport: chosen.jsonSchemaTransport } : {}),
    ...(chosen.chatJsonSchemaTransport ? { chatJsonSchemaTransport: chosen.chatJsonSchemaTransport } : {}),
    ...(refused ? { refusals: chosen.refusals } : {}),
    model: row.model,
    endpoints: effectiveEndpointsOf(row),
    ...(row.api_key ? { apiKey: row.api_key } : {}),
    ...(s.serverKind ? { serverKind: s.serverKind } : {}),
    ...(s.maxConcurrency ? { maxConcurrency: s.maxConcurrency } : {}),
    ...(s.revision ? { revision: s.revision, checkRevision: s.checkRevision === true } : {}),
    ...(s.revision && s.fingerprint ? { fingerprint: s.fingerprint } : {}),
    ...(s.timeoutMs !== undefined ? { timeoutMs: s.timeoutMs } : {}),
    ...(s.recheckAfterMs !== undefined ? { recheckAfterMs: s.recheckAfterMs } : {}),
    ...(typeof s.context?.size === 'number' ? { contextSize: s.context.size } : {}),
  };
}

/**
 * What the engine of a stored model would refuse to send (generateRequestBody.ts
 * `generateRefusal`, with the transports and refusals `engineConfigOf` derives from the stored
 * probe), so spec validation refuses a spec before any run is written rather than the engine
 * before its first request.
 */
export function generateRefusalOf(model: string, settings: StoredRemoteSettings, request: GenerateRequest): GenerateRefusal | undefined {
  const serverKind = settings.serverKind ?? 'openai';
  return generateRefusal(request, { model, serverKind, refusals: chooseTransports(serverKind, settings.capabilities).refusals });
}

/** The cache key of a row's model (see remoteModelKey). */
export function modelKeyOf(row: RemoteRow): string {
  return remoteModelKey(row.model, storedSettings(row).revision);
}

/**
 * How a model's weights are identified (issue 24 item 4), for the model card and the CLI:
 * - `reported`: the servers report which weights they load (vLLM's `root`)
 * - `fingerprint`: greedy continuations of fixed prompts (weightsFingerprint.ts), for servers whose
 *   report does not tell weights apart (llama.cpp's GGUF shape) or report nothing
 * - `stated`: the `--revision` the user gave
 * - `none`: nothing; the key is the model name (and what the servers report, if anything)
 * `verified` is false when the identity could not be checked; `note` says why.
 */
export interface StoredIdentity {
  source: 'reported' | 'fingerprint' | 'stated' | 'none';
  verified: boolean;
  note?: string;
}

/** What the model card and `remote list` show about a row's identity; rows added before issue 24 have none stored. */
export function identityOf(row: RemoteRow): StoredIdentity {
  const s = storedSettings(row);
  if (s.identity) return s.identity;
  return {
    source: s.revision === undefined ? 'none' : s.checkRevision ? 'reported' : 'stated',
    verified: false,
    note: 'added before weight checks: the servers were not asked to prove which weights they serve (its cache key stays as it was)',
  };
}

/** What the servers must show before an endpoint joins the pool; undefined: nothing is checked. */
export function expectedWeightsOf(row: RemoteRow): ExpectedWeights | undefined {
  const s = storedSettings(row);
  if (s.checkRevision !== true) return undefined;
  return { model: row.model, serverKind: s.serverKind ?? 'openai', reported: reportedPartOf(s.revision), fingerprint: s.fingerprint };
}

/** Probes: one request each, a few seconds, no retries (an unreachable server fails in seconds). */
const probeTimeoutMs = 20_000;
const listTimeoutMs = 5_000;

/**
 * Checks a model's configuration, asks its servers what they serve and what they can do (unless
 * `probe` is false) and settles its identity: the revision given, else what every endpoint reports
 * (refused when they disagree), with a fingerprint of the weights where that report does not tell
 * weights apart. Fails on an unreachable endpoint or a model name an endpoint does not list,
 * naming what it lists. Returns what to store.
 */
export async function settleRemote(input: RemoteInput): Promise<{ baseUrl: string; settings: StoredRemoteSettings; warnings: string[] }> {
  let resolved;
  try {
    resolved = resolveRemoteConfig({
      model: input.model,
      ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
      ...(input.endpoints ? { endpoints: input.endpoints.map((e) => ({ baseUrl: e.baseUrl, ...(e.maxConcurrency !== undefined ? { maxConcurrency: e.maxConcurrency } : {}) })) } : {}),
      maxConcurrency: input.maxConcurrency,
      serverKind: input.serverKind,
      ...(input.revision ? { revision: input.revision } : {}),
      ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    });
  } catch (error) {
    if (error instanceof DataError) throw new ApiFailure('validation', error.message, error.field ?? 'endpoints');
    throw error;
  }
  const endpoints = resolved.endpoints.map((e) => ({ baseUrl: e.baseUrl, maxConcurrency: e.maxConcurrency }));
  const stated = resolved.revision;
  const common: StoredRemoteSettings = {
    serverKind: resolved.serverKind,
    maxConcurrency: resolved.maxConcurrency,
    ...(endpoints.length > 1 || input.endpoints ? { endpoints } : {}),
    ...(input.timeoutMs !== undefined ? { timeoutMs: input.timeoutMs } : {}),
    ...(input.concurrentSlots === true ? { concurrentSlots: true } : {}),
  };
  const baseUrl = endpoints[0]!.baseUrl;
  if (input.probe === false) {
    return {
      baseUrl,
      settings: {
        ...common,
        ...(stated !== undefined ? { revision: stated, checkRevision: false } : {}),
        identity: { source: stated !== undefined ? 'stated' : 'none', verified: false, note: 'added without asking the servers: not known to be reachable, to serve this model, or which weights it serves' },
      },
      warnings: [],
    };
  }

  const apiKey = input.apiKey || undefined;
  const target = (url: string, timeoutMs = probeTimeoutMs) => ({ baseUrl: url, apiKey, timeoutMs });
  const warnings: string[] = [];

  // 1. Reachable, and listing the model (else: what it lists).
  const listings = await Promise.all(endpoints.map(async (e) => ({ baseUrl: e.baseUrl, listing: await listModel(target(e.baseUrl, listTimeoutMs), input.model) })));
  for (const { baseUrl: url, listing } of listings) {
    if (listing.kind === 'unreachable') throw new ApiFailure('validation', `${url} cannot be reached: ${listing.detail} (${ADD_WITHOUT_ASKING})`, 'endpoints');
    if (listing.kind === 'unlisted') throw new ApiFailure('validation', `${url} does not serve ${JSON.stringify(input.model)}: it lists ${listedNames(listing.listed)}`, 'model');
    if (listing.kind === 'no-list') warnings.push(`${url} keeps no model list (${listing.detail}): whether it serves ${JSON.stringify(input.model)} is not checked`);
  }
  // 2. What they report about the weights must agree.
  const reports = listings.map(({ baseUrl: url, listing }) => ({ baseUrl: url, revision: listing.kind === 'listed' ? listing.revision : undefined }));
  const distinct = new Set(reports.map((r) => r.revision ?? '(none reported)'));
  if (distinct.size > 1) {
    throw new ApiFailure('validation', `the endpoints serve different weights: ${reports.map((r) => `${r.baseUrl} ${r.revision ?? '(none reported)'}`).join('; ')}`, 'endpoints');
  }
  const reported = reports[0]!.revision;

  // 3. What the server can do (asked of the first endpoint; replicas run the same server).
  const capabilities = await probeCapabilities(target(baseUrl), input.model, resolved.serverKind);
  // The context one request may use (the pool's smallest): the default prompt budget.
  const context = await probePoolContextSize(
    endpoints.map((e) => target(e.baseUrl)),
    input.model,
  );
  common.context = context.size !== undefined ? { size: context.size, source: context.source } : { size: null, reason: context.reason };
  if (context.size === undefined) warnings.push(`no context size: ${context.reason}; prompt budgets need an explicit total, else the run's prompts are not checked before they are sent`);
  // llama.cpp: its slots, and what the concurrency costs in reproducibility (slotsProbe.ts).
  if (resolved.serverKind === 'llama.cpp') {
    common.slots = await probePoolSlots(endpoints.map((e) => target(e.baseUrl)));
    for (const e of endpoints) {
      const note = concurrencyNote(resolved.serverKind, e.baseUrl, e.maxConcurrency, common.slots[e.baseUrl], input.concurrentSlots === true);
      if (note) warnings.push(note);
    }
  }

  // 4. Identity.
  if (stated !== undefined) {
    // Checked where the servers report which weights they load (vLLM's root); refused when they differ.
    if (revisionIdentifiesWeights(reported)) {
      if (!statedMatches(stated, reported!)) {
        throw new ApiFailure('validation', `the revision you stated (${JSON.stringify(stated)}) is not what the servers report: ${baseUrl} serves ${JSON.stringify(reported)}`, 'revision');
      }
      return { baseUrl, settings: { ...common, revision: stated, checkRevision: false, capabilities, identity: { source: 'stated', verified: true, note: `the servers report the same weights (${reported})` } }, warnings };
    }
    const note = reported !== undefined ? `the revision you stated is not checked: the servers report only ${reported}, which does not name the weights` : 'the revision you stated is not checked: the servers report none';
    return { baseUrl, settings: { ...common, revision: stated, checkRevision: false, capabilities, identity: { source: 'stated', verified: false, note } }, warnings };
  }
  if (revisionIdentifiesWeights(reported)) {
    return { baseUrl, settings: { ...common, revision: reported!, checkRevision: true, capabilities, identity: { source: 'reported', verified: true } }, warnings };
  }
  const fingerprinted = await fingerprintPool(endpoints.map((e) => target(e.baseUrl)), input.model, resolved.serverKind);
  if (fingerprinted.kind === 'conflict') throw new ApiFailure('validation', fingerprinted.message, 'endpoints');
  if (fingerprinted.kind === 'unusable') {
    const note = `${reported !== undefined ? `the servers report only ${reported}, which does not tell weights of one shape apart, and ` : 'the servers report no revision and '}no fingerprint could be taken: ${fingerprinted.reason}; state which weights it serves (their revision) when adding it`;
    return {
      baseUrl,
      settings: { ...common, ...(reported !== undefined ? { revision: reported, checkRevision: true } : {}), capabilities, identity: { source: reported !== undefined ? 'reported' : 'none', verified: false, note } },
      warnings,
    };
  }
  const { fingerprint } = fingerprinted;
  return {
    baseUrl,
    settings: { ...common, revision: revisionWithFingerprint(reported, fingerprint.digest), checkRevision: true, fingerprint, capabilities, identity: { source: 'fingerprint', verified: true } },
    warnings,
  };
}

/**
 * Asks a stored model's servers again (`remote endpoints NAME`, the model card's "Check again"):
 * every endpoint reachable and listing the model, what the server can do, the context size, and
 * the weights. The probe and the context replace the stored ones (the probe carries its date). The
 * weights identity is the cache key, so it is checked, never changed: where it is checked (a
 * revision the servers report, a fingerprint), every endpoint must still serve the same weights,
 * else nothing is stored and the error names the endpoint; where it is not (stated, none), it
 * stays as it is and says so. Returns the settings to store and what changed, in words.
 */
export async function reprobeRemote(row: RemoteRow, apiKey: string | undefined): Promise<{ settings: StoredRemoteSettings; changes: string[]; warnings: string[] }> {
  const old = storedSettings(row);
  const serverKind = old.serverKind ?? 'openai';
  const endpoints = endpointsOf(row);
  const target = (url: string, timeoutMs = probeTimeoutMs) => ({ baseUrl: url, apiKey, timeoutMs });
  const warnings: string[] = [];
  const listings = await Promise.all(endpoints.map(async (e) => ({ baseUrl: e.baseUrl, listing: await listModel(target(e.baseUrl, listTimeoutMs), row.model) })));
  for (const { baseUrl: url, listing } of listings) {
    if (listing.kind === 'unreachable') throw new ApiFailure('validation', `${url} cannot be reached: ${listing.detail}; nothing was changed`, 'endpoints');
    if (listing.kind === 'unlisted') throw new ApiFailure('validation', `${url} no longer serves ${JSON.stringify(row.model)}: it lists ${listedNames(listing.listed)}; nothing was changed`, 'model');
    if (listing.kind === 'no-list') warnings.push(`${url} keeps no model list (${listing.detail}): whether it serves ${JSON.stringify(row.model)} is not checked`);
  }
  const expected = expectedWeightsOf(row);
  if (expected) await checkEndpointsServe(expected, endpoints.map((e) => e.baseUrl), apiKey);
  const capabilities = await probeCapabilities(target(endpoints[0]!.baseUrl), row.model, serverKind);
  const probed = await probePoolContextSize(endpoints.map((e) => target(e.baseUrl)), row.model);
  const context: NonNullable<StoredRemoteSettings['context']> = probed.size !== undefined ? { size: probed.size, source: probed.source } : { size: null, reason: probed.reason };
  if (context.size === null) warnings.push(`no context size: ${context.reason}; prompt budgets need an explicit total, else the run's prompts are not checked before they are sent`);
  const slots = serverKind === 'llama.cpp' ? await probePoolSlots(endpoints.map((e) => target(e.baseUrl))) : undefined;

  const identity: StoredIdentity = expected
    ? { ...identityOf(row), verified: true, note: `every endpoint served the recorded weights when checked again at ${capabilities.probedAt}` }
    : identityOf(row);
  if (!expected) warnings.push(`the weights were not checked again: ${identity.note ?? 'this model has no identity the servers can prove'}`);
  const changes = [...capabilityChanges(old.capabilities, capabilities), ...contextChange(old.context, context)];
  const settings: StoredRemoteSettings = { ...old, capabilities, context, identity, ...(slots ? { slots } : {}) };
  warnings.push(...concurrencyNotesOf({ ...row, settings: JSON.stringify(settings) }));
  return { settings, changes, warnings };
}

/** What a new probe says differently from the stored one, one line per capability. */
export function capabilityChanges(before: ServerCapabilities | undefined, after: ServerCapabilities): string[] {
  if (!before) return ['capabilities: probed for the first time'];
  const pairs: Array<[string, { value: string } | undefined, { value: string } | undefined]> = [
    ['completions', before.completions, after.completions],
    ['chat', before.chat, after.chat],
    ['scoring (echo)', before.echoScoring, after.echoScoring],
    ['prompt_logprobs', before.promptLogprobs, after.promptLogprobs],
    ...[...new Set([...Object.keys(before.constraints), ...Object.keys(after.constraints)])].map(
      (k) => [k, before.constraints[k as keyof typeof before.constraints], after.constraints[k as keyof typeof after.constraints]] as [string, { value: string } | undefined, { value: string } | undefined],
    ),
  ];
  return pairs.filter(([, b, a]) => (b?.value ?? 'not asked') !== (a?.value ?? 'not asked')).map(([name, b, a]) => `${name}: ${b?.value ?? 'not asked'} → ${a?.value ?? 'not asked'}`);
}

function contextChange(before: StoredRemoteSettings['context'], after: NonNullable<StoredRemoteSettings['context']>): string[] {
  const words = (c: StoredRemoteSettings['context']) => (c === undefined ? 'not probed' : c.size === null ? 'not reported' : `${c.size} tokens`);
  return words(before) === words(after) ? [] : [`context: ${words(before)} → ${words(after)}`];
}

/**
 * The fingerprint of a pool: taken twice on the first endpoint (it must be reproducible to be
 * worth checking), then on every other endpoint, each compared with the first.
 */
async function fingerprintPool(
  targets: ProbeTarget[],
  model: string,
  serverKind: RemoteServerKind,
): Promise<{ kind: 'ok'; fingerprint: WeightsFingerprint } | { kind: 'unusable'; reason: string } | { kind: 'conflict'; message: string }> {
  const first = await takeFingerprint(targets[0]!, model, serverKind);
  if (!first.ok) return { kind: 'unusable', reason: first.reason };
  const again = await takeFingerprint(targets[0]!, model, serverKind);
  if (!again.ok) return { kind: 'unusable', reason: again.reason };
  if (again.fingerprint.digest !== first.fingerprint.digest) return { kind: 'unusable', reason: 'its greedy outputs are not reproducible (the same prompts gave other texts)' };
  for (const t of targets.slice(1)) {
    const other = await takeFingerprint(t, model, serverKind);
    if (!other.ok) throw new ApiFailure('validation', `${t.baseUrl}: weights fingerprint failed: ${other.reason}`, 'endpoints');
    const compared = compareFingerprints(first.fingerprint, other.fingerprint);
    if (!compared.same) return { kind: 'conflict', message: `the endpoints serve different weights under one name: ${t.baseUrl} differs from ${targets[0]!.baseUrl} (${compared.reason})` };
  }
  return { kind: 'ok', fingerprint: first.fingerprint };
}

/**
 * Checks endpoints against a model's recorded weights before they join its pool; refuses,
 * naming the endpoint, one that serves other weights or cannot be asked.
 */
export async function checkEndpointsServe(expected: ExpectedWeights, baseUrls: string[], apiKey: string | undefined): Promise<void> {
  const verdicts = await Promise.all(baseUrls.map(async (url) => ({ url, verdict: await verifyEndpointWeights({ baseUrl: url, apiKey, timeoutMs: probeTimeoutMs }, expected) })));
  for (const { url, verdict } of verdicts) {
    if (verdict.kind === 'different') throw new ApiFailure('validation', `${url} ${verdict.reason}`, 'endpoints');
    if (verdict.kind === 'failed') throw new ApiFailure('validation', `${url} cannot be checked: ${verdict.reason}`, 'endpoints');
  }
}

/** A stated revision names the reported weights: the same string, or its value without `root=`. */
function statedMatches(stated: string, reported: string): boolean {
  return stated === reported || `root=${stated}` === reported;
}
