/**
 * Greedy means reproducible (issue 35 item 2). llama.cpp's server decodes the requests in flight on
 * its slots together, in one batch, and a batch's numerics differ from one request alone: near-tie
 * argmaxes flip. Measured on a llama-server build de3ff81 with its default slots (`-np` auto: 4):
 * at 4 requests at once, 9 of 15 identical greedy runs differed in 1–3 of 287 outputs (16 of 4,305
 * calls); one request at a time, or the server started with `-np 1`, 0 differences in 5 runs each.
 *
 * So on a llama.cpp server Fairground sends one request at a time to each endpoint unless the
 * server reports a single slot (`GET /props` `total_slots`: it then decodes one request at a time
 * whatever is sent) or the user opts in to concurrency (`remote add --concurrent-slots`), and says
 * what that costs. Other servers are left as configured (vLLM batches continuously by design; its
 * reproducibility is the server's own setting).
 */
import type { RemoteServerKind } from './remoteEngineConfig';
import { probeRequest, type ProbeTarget } from './probeHttp';

export const SLOT_BATCHING_MEASURED =
  'llama.cpp decodes concurrent requests together in one batch, which changes greedy outputs (measured: with 4 requests at once on 4 slots, 9 of 15 identical runs differed in 1–3 of 287 outputs; one at a time or with -np 1, 0 of 5)';

/** `total_slots` from llama.cpp's `GET /props`, or why there is none. Never throws. */
export async function probeSlots(target: ProbeTarget): Promise<{ slots: number } | { slots: null; reason: string }> {
  const props = await probeRequest(target, 'GET', '/../props');
  if (props.kind !== 'ok') return { slots: null, reason: `GET /props: ${props.kind === 'http' ? `HTTP ${props.status}` : props.kind}` };
  const n = (props.json as { total_slots?: unknown } | null)?.total_slots;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? { slots: n } : { slots: null, reason: 'GET /props has no total_slots' };
}

/**
 * Requests one endpoint takes at once: `requested`, except on a llama.cpp server with more than one
 * slot (or an unknown number) where the user has not opted in to concurrent slots: 1.
 */
export function reproducibleLimit(serverKind: RemoteServerKind, requested: number, slots: number | null | undefined, concurrentSlots: boolean): number {
  if (serverKind !== 'llama.cpp' || concurrentSlots || slots === 1) return requested;
  return 1;
}

/** What the chosen concurrency of a llama.cpp endpoint costs in reproducibility, in words; undefined when nothing. */
export function concurrencyNote(serverKind: RemoteServerKind, baseUrl: string, requested: number, slots: number | null | undefined, concurrentSlots: boolean): string | undefined {
  if (serverKind !== 'llama.cpp') return undefined;
  const held = slots === undefined || slots === null ? 'an unknown number of slots' : `${slots} slot${slots === 1 ? '' : 's'}`;
  const limit = reproducibleLimit(serverKind, requested, slots, concurrentSlots);
  if (slots === 1) return undefined; // the server decodes one request at a time: nothing to lose
  if (limit === 1) {
    return requested > 1
      ? `${baseUrl} has ${held}: Fairground sends it one request at a time (not ${requested}) so that greedy outputs are reproducible; ${SLOT_BATCHING_MEASURED}. For more throughput start the server with more replicas (endpoints), or opt in with --concurrent-slots and accept that outputs may vary`
      : undefined;
  }
  return `${baseUrl} has ${held} and takes up to ${limit} requests at once (--concurrent-slots): greedy outputs may differ from run to run; ${SLOT_BATCHING_MEASURED}`;
}
