/**
 * Utility labels out of the workspace, for the kept queries (≥ minUseful useful documents; with
 * minUseful 0 every labelled query), queries in collection order and documents in candidate order:
 *
 * - qrels            TREC `qid 0 docno label` (io/trec formatQrels), the collection's doc ids;
 * - fairrag-mapping  Fair-RAG's `{t}_relevance_mapping.tsv`: header `qid<TAB>pid<TAB>relevance_label`;
 * - fairrag-delta    Fair-RAG's `{t}_delta.tsv`: `qid pid augment_score baseline_score delta`
 *                    (u_j, u_0, δ from the label's provenance; a manual override reports the
 *                    measurement it overrides; labels without numbers are left out).
 *
 * In the two Fair-RAG files `pid` is the LaMP profile item id: a document the importer renamed
 * `<qid>/<pid>` (ids repeated across users) is written back as `pid`, so the files line up with
 * Fair-RAG's LaMP inputs. Labels are the stored ones, manual overrides included.
 */
import { DataError } from '../../core/errors';
import { formatQrels } from '../../io/trec/index';
import type { JsonObject } from '../../store/collectionTypes';
import type { UtilityJudgment } from './utilityJudgments';

export type LabelExportFormat = 'qrels' | 'fairrag-mapping' | 'fairrag-delta';

export interface ExportInput {
  collectionName: string;
  /** Queries in collection order with their candidate order (null: by doc id). */
  queries: readonly { queryId: string; candidates: readonly string[] | null }[];
  judgments: readonly UtilityJudgment[];
  minUseful: number;
}

export interface LabelExport {
  fileName: string;
  content: string;
  rows: number;
  queries: number;
}

export function exportUtilityLabels(format: LabelExportFormat, input: ExportInput): LabelExport {
  const byQuery = new Map<string, UtilityJudgment[]>();
  for (const j of input.judgments) {
    const list = byQuery.get(j.queryId) ?? [];
    list.push(j);
    byQuery.set(j.queryId, list);
  }
  const rows: UtilityJudgment[] = [];
  let queries = 0;
  for (const q of input.queries) {
    const list = byQuery.get(q.queryId);
    if (!list || list.filter((j) => j.label > 0).length < input.minUseful) continue;
    queries++;
    const order = new Map((q.candidates ?? []).map((id, i) => [id, i]));
    rows.push(...[...list].sort((a, b) => (order.get(a.docId) ?? Infinity) - (order.get(b.docId) ?? Infinity) || (a.docId < b.docId ? -1 : a.docId > b.docId ? 1 : 0)));
  }
  const base = fileStem(input.collectionName);
  switch (format) {
    case 'qrels':
      return { fileName: `${base}_utility.qrels`, content: formatQrels(rows.map((j) => ({ qid: j.queryId, docno: j.docId, rel: j.label }))), rows: rows.length, queries };
    case 'fairrag-mapping': {
      const lines = rows.map((j) => tsv([j.queryId, pidOf(j), formatNumber(j.label)]));
      return { fileName: `${base}_relevance_mapping.tsv`, content: `qid\tpid\trelevance_label\n${lines.join('')}`, rows: lines.length, queries };
    }
    case 'fairrag-delta': {
      const lines: string[] = [];
      for (const j of rows) {
        const m = measurementOf(j);
        if (m) lines.push(tsv([j.queryId, pidOf(j), formatNumber(m.utility), formatNumber(m.baseline), formatNumber(m.delta)]));
      }
      return { fileName: `${base}_delta.tsv`, content: `qid\tpid\taugment_score\tbaseline_score\tdelta\n${lines.join('')}`, rows: lines.length, queries };
    }
  }
}

/** The provenance that holds a label's measurement: its own, or (manual override) that of the label it replaced. */
export function measuredProvenance(j: { provenance: JsonObject }): JsonObject | undefined {
  const has = (p: JsonObject | undefined) => p !== undefined && typeof p.utility === 'number' && typeof p.baseline === 'number' && typeof p.delta === 'number';
  if (has(j.provenance)) return j.provenance;
  const previous = (j.provenance.previous as { provenance?: JsonObject } | undefined)?.provenance;
  return has(previous) ? previous : undefined;
}

/** u_j, u_0 and δ of a label (see measuredProvenance). */
export function measurementOf(j: { provenance: JsonObject }): { utility: number; baseline: number; delta: number } | undefined {
  const p = measuredProvenance(j);
  return p ? { utility: p.utility as number, baseline: p.baseline as number, delta: p.delta as number } : undefined;
}

function pidOf(j: UtilityJudgment): string {
  return j.profileId !== null && j.docId === `${j.queryId}/${j.profileId}` ? j.profileId : j.docId;
}

function tsv(fields: string[]): string {
  for (const f of fields) if (/[\t\r\n]/.test(f)) throw new DataError(`cannot write ${JSON.stringify(f)} to a TSV file: it contains a tab or a line break`);
  return `${fields.join('\t')}\n`;
}

/** Integers as integers ("1", not "1.0"); other numbers as JavaScript prints them (shortest round-trip). */
function formatNumber(n: number): string {
  return String(n);
}

function fileStem(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^_+|_+$/g, '') || 'collection';
}
