/**
 * One name per Fair RAG measure (issue 37 item 3): the ir_measures-style name is the one written by
 * hand; the metrics-JSON key (a stored, exported interface: unchanged) and the screens' label are
 * derived from it, and the CSV headers stay as they were.
 */
import { describe, expect, it } from 'vitest';
import { FAIR_RAG_MEASURE_NAMES, FairRagQueryMetrics, fairRagMeasureKey, fairRagMeasureLabel } from '../../../src-main/api/contract/fairRag';
import { asciiHeader } from '../../../src-main/core/format/csv';
import { AGGREGATED_MEASURES } from '../../../src-main/experiments/fair-rag/aggregates';
import { perQueryCsv } from '../../../src-main/experiments/fair-rag/exports';
import { FAIR_RAG_MEASURES } from '../../../src-main/experiments/fair-rag/kind';
import { fairRagSummaryTable } from '../../../src-main/experiments/fair-rag/summaryTable';
import type { FairRagMetrics } from '../../../src-main/api/contract/fairRag';
import type { RunSummary } from '../../../src-main/experiments/registry';

describe('Fair RAG measure names', () => {
  it('derives the metrics-JSON keys as they were stored before (a public interface)', () => {
    expect(FAIR_RAG_MEASURE_NAMES.map((n) => fairRagMeasureKey(n))).toEqual(['eeD', 'eeR', 'eeL', 'eeDNorm', 'eeRNorm', 'eeLNorm', 'eu', 'euRaw', 'euNorm', 'ear', 'eaeD', 'eaeDNorm']);
    expect(AGGREGATED_MEASURES).toEqual(['eeD', 'eeR', 'eeL', 'eeDNorm', 'eeRNorm', 'eeLNorm', 'eu', 'euRaw', 'euNorm', 'ear', 'eaeD', 'eaeDNorm']);
    const fields = Object.keys(FairRagQueryMetrics.shape);
    for (const n of FAIR_RAG_MEASURE_NAMES) expect(fields).toContain(fairRagMeasureKey(n));
  });

  it('derives the screens’ labels (macron after the dash, overline over EU), and asciiHeader maps each back to its name', () => {
    expect(FAIR_RAG_MEASURE_NAMES.map((n) => fairRagMeasureLabel(n))).toEqual([
      'EE-D',
      'EE-R',
      'EE-L',
      'EE-D\u0304',
      'EE-R\u0304',
      'EE-L\u0304',
      'EU',
      'EU (raw)',
      'EU\u0305',
      'EAR',
      'EAE-D',
      'EAE-D\u0304',
    ]);
    for (const n of FAIR_RAG_MEASURE_NAMES.filter((m) => m !== 'EU_raw')) expect(asciiHeader(fairRagMeasureLabel(n))).toBe(n);
  });

  it('keeps the CSV headers, the manifest measure list and the CLI summary columns', () => {
    const metrics = { perQuery: [] } as unknown as FairRagMetrics;
    expect(perQueryCsv(metrics)).toBe('query_id,retriever,condition,policy,alpha,n,m,samples,distinct_rankings,EE-D,EE-R,EE-L,EE-D_norm,EE-R_norm,EE-L_norm,EU,EU_raw,u_max,EU_norm,EAR,EAE-D,EAE-D_norm\r\n');
    expect(FAIR_RAG_MEASURES).toEqual(['EE-D', 'EE-R', 'EE-L', 'EE-D_norm', 'EE-R_norm', 'EE-L_norm', 'EU', 'EU_norm', 'EAR', 'EAE-D', 'EAE-D_norm']);
    const ci = (mean: number) => ({ mean, lower: null, upper: null, n: 1, method: null, clipped: false });
    const summary = fairRagSummaryTable({ aggregates: [{ condition: 'bm25/alpha=1', queries: 2, measures: { eeDNorm: ci(0.5), eeRNorm: ci(0.25), eu: ci(1), euNorm: ci(0.75), ear: ci(0.125), eaeDNorm: ci(0.0625) } }] } as unknown as RunSummary);
    expect(summary.split('\n')[0]!.trim().split(/\s+/)).toEqual(['condition', 'queries', 'EE-D_norm', 'EE-R_norm', 'EU', 'EU_norm', 'EAR', 'EAE-D_norm']);
    expect(summary.split('\n')[1]!.trim().split(/\s+/)).toEqual(['bm25/alpha=1', '2', '0.5000', '0.2500', '1.0000', '0.7500', '0.1250', '0.0625']);
  });
});
