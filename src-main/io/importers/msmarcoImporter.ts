/**
 * MS MARCO passage ranking files: `collection.tsv` (`pid<TAB>passage`), `queries.*.tsv`
 * (`qid<TAB>query`) and qrels (`qid 0 pid rel`, TREC layout, tabs or spaces). TSV without quoting
 * and without a header: a `"` is part of the text. Each file's role comes from its name (qrels,
 * quer…, collection/corpus/passage), otherwise from its shape (4 columns: qrels) and then the order
 * given (corpus first, then queries).
 */
import { DataError } from '../../core/errors';
import { Batcher } from './batcher';
import { readDelimitedRecords } from './delimited';
import { importQrels } from './judgmentImporters';
import type { DocumentRecord, ImportSink, QueryRecord, SourceStats } from './records';
import type { LineCounter, TextSource } from './source';

type MsMarcoRole = 'corpus' | 'queries' | 'qrels';

function roleByName(baseName: string): MsMarcoRole | undefined {
  const n = baseName.toLowerCase();
  if (n.includes('qrel')) return 'qrels';
  if (n.includes('quer')) return 'queries';
  if (n.includes('collection') || n.includes('corpus') || n.includes('passage')) return 'corpus';
  return undefined;
}

async function columnCount(source: TextSource): Promise<number> {
  for await (const { text } of source.lines()) if (text.trim() !== '') return text.trim().split(/\s+/).length;
  return 0;
}

export async function assignMsMarcoRoles(sources: readonly TextSource[]): Promise<Map<TextSource, MsMarcoRole>> {
  const roles = new Map<TextSource, MsMarcoRole>();
  const taken = new Set<MsMarcoRole>();
  const claim = (s: TextSource, role: MsMarcoRole) => {
    if (taken.has(role)) throw new DataError(`two files look like the MS MARCO ${role} (${[...roles].find(([, r]) => r === role)![0].name} and this one)`, { file: s.name });
    roles.set(s, role);
    taken.add(role);
  };
  for (const s of sources) {
    const r = roleByName(s.baseName);
    if (r) claim(s, r);
  }
  for (const s of sources) {
    if (roles.has(s)) continue;
    if ((await columnCount(s)) === 4 && !taken.has('qrels')) claim(s, 'qrels');
    else if (!taken.has('corpus')) claim(s, 'corpus');
    else claim(s, 'queries');
  }
  return roles;
}

export async function importMsMarco(sources: readonly TextSource[], sink: ImportSink, counter: LineCounter): Promise<SourceStats[]> {
  const roles = await assignMsMarcoRoles(sources);
  const stats: SourceStats[] = [];
  // Corpus, then queries, then qrels, whatever order the files came in.
  for (const want of ['corpus', 'queries', 'qrels'] as const) {
    for (const [source, role] of roles) {
      if (role !== want) continue;
      if (role === 'qrels') {
        stats.push(...(await importQrels([source], 'relevance', sink, counter)));
        continue;
      }
      const file = source.name;
      const docs = new Batcher<DocumentRecord>((b) => sink.documents(b));
      const queries = new Batcher<QueryRecord>((b) => sink.queries(b));
      let rows = 0;
      for await (const rec of readDelimitedRecords(counter.lines(source), file, { delimiter: '\t', quoted: false })) {
        const where = { file, line: rec.line };
        if (rec.fields.length !== 2) {
          throw new DataError(`expected 2 tab-separated columns '${role === 'corpus' ? 'pid<TAB>passage' : 'qid<TAB>query'}', got ${rec.fields.length}`, { ...where, field: 'columns' });
        }
        const [id, text] = rec.fields as [string, string];
        if (id.trim() === '') throw new DataError('missing id (empty)', { ...where, field: role === 'corpus' ? 'pid' : 'qid' });
        if (role === 'corpus') await docs.add({ docId: id.trim(), title: '', text, attrs: {}, ...where });
        else await queries.add({ queryId: id.trim(), text, answers: [], task: null, metric: null, subaspects: null, candidates: null, attrs: {}, ...where });
        rows++;
      }
      await docs.flush();
      await queries.flush();
      if (rows === 0) throw new DataError('no rows in the file', { file });
      stats.push({ name: file, role, rows });
    }
  }
  return stats;
}
