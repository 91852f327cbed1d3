/**
 * Types shared across engine/remote that would otherwise be imported in a circle (issue 37:
 * responseReaders → echoScorer → responseReaders; remoteEngineConfig ↔ weightsFingerprint). Types
 * only: nothing here runs, and this file imports nothing of engine/remote.
 */
import type { ContinuationScore } from '../types';

/** A continuation's score as the echo scorer reads it (echoScorer.ts, responseReaders.ts). */
export interface ScoredContinuation extends ContinuationScore {
  promptTokens: number;
}

/** One prompt's greedy continuation in a weights fingerprint (weightsFingerprint.ts). */
export interface FingerprintOutput {
  text: string;
  /** Generated tokens and their log-probabilities, when the server returns them. */
  tokens: string[] | null;
  logprobs: number[] | null;
}

/** A fingerprint of the weights behind a served model (weightsFingerprint.ts). */
export interface WeightsFingerprint {
  method: 'greedy-v1';
  prompts: string[];
  maxTokens: number;
  outputs: FingerprintOutput[];
  /** sha256 of the texts (16 hex digits): the part of the cache identity. */
  digest: string;
}
