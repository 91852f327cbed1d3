/**
 * Fixed-point numbers printed as C's printf("%.Nf") prints them (trec_eval's `%6.4f`, Python's
 * `f'{x:.4f}'` in ir_measures and Fair-RAG): the exact binary value rounded to N places, an exact
 * tie to the even digit. JS's `toFixed` rounds an exact tie up (away from zero), so 1/32 = 0.03125
 * printed 0.0313 where trec_eval prints 0.0312.
 */

/** The largest number of places `formatFixed` accepts (toFixed's limit). */
export const MAX_PLACES = 100;

export function formatFixed(x: number, places: number): string {
  if (!Number.isInteger(places) || places < 0 || places > MAX_PLACES) throw new RangeError(`places must be an integer in [0, ${MAX_PLACES}], got ${places}`);
  const s = x.toFixed(places);
  if (!Number.isFinite(x) || Math.abs(x) >= 1e21 || places >= MAX_PLACES) return s;
  // toFixed(100) is exact to 100 places; a tie at place N+1 (N < 100) has an expansion that ends
  // there, so every later digit is 0.
  const exact = Math.abs(x).toFixed(MAX_PLACES);
  const cut = exact.indexOf('.') + 1 + places;
  if (exact.charCodeAt(cut) !== 53 /* 5 */) return s;
  for (let i = cut + 1; i < exact.length; i++) if (exact.charCodeAt(i) !== 48) return s;
  const down = exact.slice(0, places === 0 ? cut - 1 : cut);
  const last = down.charCodeAt(down.length - 1) - 48;
  if (last % 2 !== 0) return s; // toFixed already went up, to the even digit
  return x < 0 || Object.is(x, -0) ? `-${down}` : down;
}
