// What scored a stored retrieval run, said truthfully (issue 26 item 3): "BM25" is two scorers —
// queries with a candidate set (LaMP profiles) are scored in memory by Okapi BM25 over their
// candidates (rank_bm25's defaults: k1 1.5, b 0.75, no stemming unless asked), the others by SQLite
// FTS5's bm25() over the whole collection (k1 1.2, b 0.75, Porter-stemmed).

type Params = Record<string, unknown>;

/** The in-memory scorer's settings as stored in a run's params.candidates (defaults filled in). */
export function okapiLabel(candidates: Params | undefined): string {
  const c = candidates ?? {};
  const k1 = typeof c.k1 === 'number' ? c.k1 : 1.5;
  const b = typeof c.b === 'number' ? c.b : 0.75;
  const tokenizer = c.tokenizer === 'whitespace' ? 'whitespace tokens' : 'word tokens';
  const stem = c.stem === true ? 'Porter' : 'no stemming';
  return `Okapi BM25 in memory, k1 ${k1}, b ${b}, ${tokenizer}, ${stem}`;
}

export const FTS5_LABEL = 'SQLite FTS5 bm25(), k1 1.2, b 0.75, Porter';

/** The method column of a stored run: for BM25, which scorer scored how many queries. */
export function runMethodLabel(method: string, params: Params): string {
  if (method !== 'bm25') return method;
  const scorers = params.scorers as { candidatesOkapi?: number; collectionFts5?: number } | undefined;
  const okapi = okapiLabel(params.candidates as Params | undefined);
  if (!scorers) return `BM25 (${okapi} for queries with candidates; ${FTS5_LABEL} for the others)`;
  const parts: string[] = [];
  if (scorers.candidatesOkapi) parts.push(`${okapi} (${scorers.candidatesOkapi} ${scorers.candidatesOkapi === 1 ? 'query' : 'queries'} over their candidates)`);
  if (scorers.collectionFts5) parts.push(`${FTS5_LABEL} (${scorers.collectionFts5} ${scorers.collectionFts5 === 1 ? 'query' : 'queries'} over the collection)`);
  return parts.length ? `BM25: ${parts.join('; ')}` : 'BM25';
}
