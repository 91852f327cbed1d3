/**
 * Judgments: TREC qrels (relevance) and Fair-RAG's utility labels.
 *
 * TREC qrels `qid iter docno rel` are read with the rules of ../trec/qrels.ts (whitespace as
 * trec_eval splits it, `#` comments and blank lines skipped, integer labels, a (qid, docno) pair
 * judged twice is an error), streamed line by line. A negative label is kept as is: trec_eval reads
 * it as "pooled but unjudged". A Fair-RAG relevance-mapping header line is recognised here too.
 *
 * Fair-RAG (fair-rag.md §5; Kim & Diaz App. B, Algorithm 1):
 * - `{t}_relevance_mapping.tsv`: header `qid<TAB>pid<TAB>relevance_label`, label 1 iff δ > 0;
 * - `{t}_delta.tsv` (optional): `qid pid augment_score baseline_score delta` (header optional), the
 *   utility with the item u_j, without it u_i, and δ = u_j − u_i. Its values go into the
 *   judgment's provenance (`utility`, `baseline`, `delta`); given alone, the label is 1 iff δ > 0.
 * Which file is which is read from its first line (3 or 5 columns), not from its name.
 */
import { DataError } from '../../core/errors';
import { isSkippable, parseInteger, parseScore, splitWhitespace, type Where } from '../trec/fields';
import { Batcher } from './batcher';
import type { ImportSink, JsonObject, JudgmentKind, JudgmentRecord, SourceStats } from './records';
import type { LineCounter, TextSource } from './source';

const MAPPING_HEADER = ['qid', 'pid', 'relevance_label'];

export async function importQrels(sources: readonly TextSource[], kind: JudgmentKind, sink: ImportSink, counter: LineCounter, provenance: JsonObject = {}): Promise<SourceStats[]> {
  const stats: SourceStats[] = [];
  for (const source of sources) {
    const file = source.name;
    const out = new Batcher<JudgmentRecord>((b) => sink.judgments(b));
    const seen = new Set<string>();
    let format: 'trec' | 'mapping' | undefined;
    let rows = 0;
    for await (const { line, text } of counter.lines(source)) {
      if (isSkippable(text)) continue;
      const where: Where = { file, line };
      if (format === undefined) {
        const first = text.split('\t');
        format = first.length > 1 && first[0]!.trim() === 'qid' ? 'mapping' : 'trec';
        if (format === 'mapping') {
          checkMappingHeader(text, where);
          continue;
        }
      }
      let qid: string;
      let docno: string;
      let rel: number;
      if (format === 'trec') {
        const f = splitWhitespace(text);
        if (f.length !== 4) throw new DataError(`expected 4 columns 'qid iter docno rel', got ${f.length}`, { ...where, field: 'columns' });
        [qid, , docno] = f as [string, string, string, string];
        rel = parseInteger(f[3]!, 'rel', where);
      } else {
        const f = mappingFields(text, 3, where);
        [qid, docno] = f as [string, string, string];
        rel = parseInteger(f[2]!, 'relevance_label', where);
      }
      const key = `${qid}\n${docno}`;
      if (seen.has(key)) throw new DataError(`duplicate judgement of '${docno}' for query '${qid}'`, { ...where, field: 'docno' });
      seen.add(key);
      await out.add({ queryId: qid, docId: docno, kind, label: rel, provenance, file, line });
      rows++;
    }
    await out.flush();
    if (rows === 0) throw new DataError('no judgments in the file', { file });
    stats.push({ name: file, role: kind === 'utility' ? 'fairrag-mapping' : 'qrels', rows });
  }
  return stats;
}

function checkMappingHeader(text: string, where: Where): void {
  const cols = text.split('\t').map((c) => c.trim());
  if (cols.length !== 3 || cols.some((c, i) => c !== MAPPING_HEADER[i])) {
    throw new DataError(`expected the header '${MAPPING_HEADER.join('<TAB>')}'`, { ...where, field: 'header' });
  }
}

function mappingFields(text: string, n: number, where: Where): string[] {
  const f = text.split('\t').map((c) => c.trim());
  if (f.length !== n) throw new DataError(`expected ${n} tab-separated columns, got ${f.length}`, { ...where, field: 'columns' });
  if (f[0] === '') throw new DataError('empty', { ...where, field: 'qid' });
  if (f[1] === '') throw new DataError('empty', { ...where, field: 'pid' });
  return f;
}

/** The first non-blank line's tab-separated fields (the file's shape), without counting progress. */
async function firstFields(source: TextSource): Promise<string[] | undefined> {
  for await (const { text } of source.lines()) {
    if (text.trim() !== '') return text.split('\t').map((c) => c.trim());
  }
  return undefined;
}

interface Delta {
  utility: number;
  baseline: number;
  delta: number;
  line: number;
}

/** Fair-RAG utility labels: a relevance mapping, a delta file, or both (any order). */
export async function importFairRagLabels(sources: readonly TextSource[], sink: ImportSink, counter: LineCounter, provenance: JsonObject = {}): Promise<SourceStats[]> {
  let mapping: TextSource | undefined;
  let deltaFile: TextSource | undefined;
  for (const s of sources) {
    const fields = await firstFields(s);
    if (!fields) throw new DataError('no judgments in the file', { file: s.name });
    const role = fields.length === 5 ? 'delta' : fields.length === 3 ? 'mapping' : undefined;
    if (!role) {
      throw new DataError(`expected a relevance mapping 'qid<TAB>pid<TAB>relevance_label' (3 columns) or a delta file 'qid pid augment_score baseline_score delta' (5 columns), got ${fields.length} columns`, {
        file: s.name,
        field: 'columns',
      });
    }
    if (role === 'delta') {
      if (deltaFile) throw new DataError(`two delta files (${deltaFile.name} and this one)`, { file: s.name });
      deltaFile = s;
    } else {
      if (mapping) throw new DataError(`two relevance mappings (${mapping.name} and this one)`, { file: s.name });
      mapping = s;
    }
  }
  const stats: SourceStats[] = [];
  const deltas = new Map<string, Delta>();
  if (deltaFile) {
    let rows = 0;
    for await (const { line, text } of counter.lines(deltaFile)) {
      if (text.trim() === '') continue;
      const where: Where = { file: deltaFile.name, line };
      const f = mappingFields(text, 5, where);
      if (rows === 0 && f[0] === 'qid') continue; // header
      const key = `${f[0]}\n${f[1]}`;
      if (deltas.has(key)) throw new DataError(`duplicate row for query '${f[0]}' and item '${f[1]}' (first on line ${deltas.get(key)!.line})`, { ...where, field: 'pid' });
      deltas.set(key, { utility: parseScore(f[2]!, 'augment_score', where), baseline: parseScore(f[3]!, 'baseline_score', where), delta: parseScore(f[4]!, 'delta', where), line });
      rows++;
    }
    if (rows === 0) throw new DataError('no rows in the delta file', { file: deltaFile.name });
    stats.push({ name: deltaFile.name, role: 'fairrag-delta', rows });
  }
  const withDelta = (qid: string, pid: string): JsonObject => {
    const d = deltas.get(`${qid}\n${pid}`);
    return d ? { ...provenance, utility: d.utility, baseline: d.baseline, delta: d.delta } : provenance;
  };
  if (mapping) {
    const labelled = new Batcher<{ qid: string; pid: string; rel: number; line: number }>(async (batch) =>
      sink.judgments(batch.map((r) => ({ queryId: r.qid, docId: r.pid, kind: 'utility' as const, label: r.rel, provenance: withDelta(r.qid, r.pid), file: mapping!.name, line: r.line }))),
    );
    let rows = 0;
    let header = false;
    const seen = new Set<string>();
    for await (const { line, text } of counter.lines(mapping)) {
      if (text.trim() === '') continue;
      const where: Where = { file: mapping.name, line };
      if (!header) {
        checkMappingHeader(text, where);
        header = true;
        continue;
      }
      const f = mappingFields(text, 3, where);
      const key = `${f[0]}\n${f[1]}`;
      if (seen.has(key)) throw new DataError(`duplicate judgement of '${f[1]}' for query '${f[0]}'`, { ...where, field: 'pid' });
      seen.add(key);
      await labelled.add({ qid: f[0]!, pid: f[1]!, rel: parseInteger(f[2]!, 'relevance_label', where), line });
      rows++;
    }
    await labelled.flush();
    if (rows === 0) throw new DataError('no judgments in the file', { file: mapping.name });
    stats.push({ name: mapping.name, role: 'fairrag-mapping', rows });
  } else if (deltaFile) {
    // Algorithm 1: useful iff the utility gain is positive.
    const out = new Batcher<JudgmentRecord>((b) => sink.judgments(b));
    for (const [key, d] of deltas) {
      const [qid, pid] = key.split('\n') as [string, string];
      await out.add({ queryId: qid, docId: pid, kind: 'utility', label: d.delta > 0 ? 1 : 0, provenance: { ...withDelta(qid, pid), rule: 'delta > 0' }, file: deltaFile.name, line: d.line });
    }
    await out.flush();
  }
  return stats;
}
