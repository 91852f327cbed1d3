/**
 * Reads a RichRAG coverage input file (coverageInputSchema.ts) into what core's silver list and NCOM
 * take: sub-answers, the documents' scored texts in pool order, k, and the ranking as pool indices.
 * Every problem is a DataError naming the file and the field path as written in the file, e.g.
 * `pool.json: ranking[2]: unknown document id 'd9'`.
 */
import { DataError } from '../../core/errors';
import { richRagDocString } from '../../core/richrag/docString';
import { coverageInputSchema } from './coverageInputSchema';
import { parseJsonText } from '../jsonText';

export interface CoverageInput {
  subAnswers: string[];
  /** Document ids in pool order. */
  ids: string[];
  /** The text scored for each document (richRagDocString), in pool order. */
  texts: string[];
  k: number;
  /** Pool indices of the ranking, or undefined when the file has none. */
  ranking: number[] | undefined;
}

export function parseCoverageInput(text: string, file: string): CoverageInput {
  const parsed = coverageInputSchema.safeParse(parseJsonText(text, file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = fieldPath(issue.path.filter((p): p is string | number => typeof p !== 'symbol'));
    throw new DataError(issue.message, { file, field: field || undefined });
  }
  const data = parsed.data;

  const index = new Map<string, number>();
  data.docs.forEach((d, i) => {
    const first = index.get(d.id);
    if (first !== undefined) throw new DataError(`duplicate document id '${d.id}' (first at docs[${first}])`, { file, field: `docs[${i}].id` });
    index.set(d.id, i);
  });

  let ranking: number[] | undefined;
  if (data.ranking != null) {
    const seen = new Map<string, number>();
    ranking = data.ranking.map((id, t) => {
      const d = index.get(id);
      if (d === undefined) throw new DataError(`unknown document id '${id}'`, { file, field: `ranking[${t}]` });
      const first = seen.get(id);
      if (first !== undefined) throw new DataError(`duplicate document id '${id}' (first at ranking[${first}])`, { file, field: `ranking[${t}]` });
      seen.set(id, t);
      return d;
    });
  }

  return {
    subAnswers: data.subanswers,
    ids: data.docs.map((d) => d.id),
    texts: data.docs.map((d) => richRagDocString(d)),
    k: data.k,
    ranking,
  };
}

function fieldPath(path: readonly (string | number)[]): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out;
}

