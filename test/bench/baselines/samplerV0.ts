/**
 * The sampler as it was before issue 18 item 2 (commit 9ab442f), kept verbatim as the baseline of
 * the `sampler` bench suite and as the reference of the stream-equality test
 * (test/core/sampling/samplerStream.test.ts): for every seed the new sampler must return exactly
 * these rankings. It draws a Gumbel per candidate in input order, fully sorts all candidates with
 * a closure comparator and keeps the first k.
 *
 * Fair-RAG's own numpy Plackett–Luce sampler cannot run here (no PyPI, no GitHub), so this previous
 * implementation is the strongest baseline that runs inside the project.
 */
import type { Rng } from '../../../src-main/core/random/rng';
import { checkCutoff, checkSampleCount, checkUniqueIds, compareIds } from '../../../src-main/core/sampling/itemChecks';

export function sampleTopKByLogitsV0(options: { ids: readonly string[]; logits: readonly number[]; k: number; samples: number; rng: Rng }): string[][] {
  const { ids, logits, k, samples, rng } = options;
  if (ids.length !== logits.length) throw new RangeError(`got ${ids.length} ids but ${logits.length} logits`);
  checkUniqueIds(ids);
  checkCutoff(k);
  checkSampleCount(samples);
  let max = -Infinity;
  for (const w of logits) {
    if (!Number.isFinite(w)) throw new RangeError(`logits must be finite, got ${w}`);
    if (w > max) max = w;
  }
  const n = ids.length;
  const depth = Math.min(n, k);
  const shifted = logits.map((w) => w - max);
  const keys = new Float64Array(n);
  const order = Array.from({ length: n }, (_, i) => i);
  const byKey = (a: number, b: number): number => (keys[b] as number) - (keys[a] as number) || compareIds(ids[a] as string, ids[b] as string);
  const out: string[][] = [];
  for (let s = 0; s < samples; s++) {
    for (let i = 0; i < n; i++) keys[i] = (shifted[i] as number) + rng.nextGumbel();
    order.sort(byKey);
    out.push(order.slice(0, depth).map((i) => ids[i] as string));
  }
  return out;
}
