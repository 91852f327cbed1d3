/** The pure pieces of utility labeling: per-query metric and utility, and the export formats. */
import { describe, expect, it } from 'vitest';
import { exportUtilityLabels } from '../../../src-main/services/labeling/labelExports';
import type { UtilityJudgment } from '../../../src-main/services/labeling/utilityJudgments';
import { metricNameFor, utilityMetric } from '../../../src-main/services/labeling/utilityMetric';

describe('utility metric', () => {
  it("uses the override, else Fair-RAG's label metric of a LaMP task, else the query's metric", () => {
    expect(metricNameFor({ task: 'LaMP-3', metric: 'mae' }, undefined)).toBe('accuracy');
    expect(metricNameFor({ task: 'LaMP_4', metric: null }, undefined)).toBe('rougeL');
    expect(metricNameFor({ task: 'qa', metric: 'f1' }, undefined)).toBe('f1');
    expect(metricNameFor({ task: 'LaMP-3', metric: 'mae' }, 'mae')).toBe('mae');
    expect(metricNameFor({ task: null, metric: null }, undefined)).toBeUndefined();
  });

  it('turns MAE/RMSE into 4 − |error| with LaMP’s rule for an unparsable prediction', () => {
    const mae = utilityMetric('mae', 'pltrdy');
    expect(mae.utility(' 4 ', ['5'])).toBe(3);
    expect(mae.utility('five', ['5'])).toBe(0); // → 1.0, the farther end from 5: error 4
    expect(mae.utility('n/a', ['3'])).toBe(2); // gold 3: 5.0 on the tie, error 2
    expect(utilityMetric('rmse', 'pltrdy').utility('2', ['5'])).toBe(1);
    expect(() => mae.utility('4', ['4', '5'])).toThrow('exactly one reference');
    expect(mae.provenance).toEqual({ metric: 'mae', utilityScale: '4 - |error|' });
  });

  it('scores ROUGE by F with the chosen implementation and names it', () => {
    const pl = utilityMetric('rougeL', 'pltrdy');
    const rs = utilityMetric('rougeL', 'rouge-score');
    // pltrdy is case-sensitive with punctuation attached; rouge-score lower-cases and strips it.
    expect(pl.utility('Rain, again', ['rain again'])).toBeCloseTo(0.5, 7); // only 'again' matches
    expect(rs.utility('Rain, again', ['rain again'])).toBeCloseTo(1, 12);
    expect(pl).toMatchObject({ label: 'rougeL (pltrdy)', provenance: { metric: 'rougeL', metricImpl: 'pltrdy' } });
    expect(utilityMetric('accuracy', 'pltrdy').utility(' comedy\n', ['comedy'])).toBe(1);
    expect(() => utilityMetric('rougeLsum', 'pltrdy')).toThrow('pltrdy has no rougeLsum');
    expect(() => utilityMetric('bleu', 'pltrdy')).toThrow("unknown metric 'bleu'");
  });
});

describe('label exports', () => {
  const j = (queryId: string, docId: string, label: number, extra: Partial<UtilityJudgment> = {}): UtilityJudgment => ({
    queryId,
    docId,
    label,
    source: 'llm',
    provenance: { utility: label, baseline: 0, delta: label },
    profileId: null,
    ...extra,
  });
  const input = {
    collectionName: 'LaMP 2 / dev',
    queries: [
      { queryId: '310', candidates: ['b', 'a', '310/c'] },
      { queryId: '311', candidates: null },
    ],
    judgments: [
      j('310', 'a', 1),
      j('310', 'b', 0),
      // A LaMP item renamed by the importer is written back under its profile id in Fair-RAG files.
      j('310', '310/c', 1, { profileId: 'c' }),
      // A manual override: the label is the override, the measurement the one it replaced.
      j('311', 'x', 1, { source: 'manual', provenance: { previous: { label: 0, source: 'llm', provenance: { utility: 0.25, baseline: 0.5, delta: -0.25 } } } }),
      j('311', 'w', 0, { source: 'import', provenance: { generator: 'paper' } }),
    ],
    minUseful: 0,
  };

  it('writes the Fair-RAG relevance mapping in candidate order, profile ids restored', () => {
    const out = exportUtilityLabels('fairrag-mapping', input);
    expect(out).toEqual({ fileName: 'LaMP_2_dev_relevance_mapping.tsv', content: 'qid\tpid\trelevance_label\n310\tb\t0\n310\ta\t1\n310\tc\t1\n311\tw\t0\n311\tx\t1\n', rows: 5, queries: 2 });
  });

  it('writes the delta file from the measurements (manual: the one under the override; none: left out)', () => {
    expect(exportUtilityLabels('fairrag-delta', input).content).toBe(
      'qid\tpid\taugment_score\tbaseline_score\tdelta\n310\tb\t0\t0\t0\n310\ta\t1\t0\t1\n310\tc\t1\t0\t1\n311\tx\t0.25\t0.5\t-0.25\n',
    );
  });

  it('writes TREC qrels with the collection’s doc ids and keeps only queries with enough useful documents', () => {
    expect(exportUtilityLabels('qrels', input).content).toBe('310 0 b 0\n310 0 a 1\n310 0 310/c 1\n311 0 w 0\n311 0 x 1\n');
    const kept = exportUtilityLabels('qrels', { ...input, minUseful: 2 });
    expect(kept).toMatchObject({ rows: 3, queries: 1 });
    expect(kept.content).not.toContain('311');
  });
});
