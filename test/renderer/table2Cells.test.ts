/**
 * Table 2 on screen and in its CSV shows what the table's test tests (issue 34 item 8f), as the
 * default LaTeX export does; the paper's unpaired difference stays (CSV `diff_*`, screen toggle).
 *
 * Hand-computed (utility raw = normalised, u_max 1), in [0, .2):
 *   q1: deterministic 1, arms 0.4 and 1 → query mean 0.7, paired 0.7 − 1 = −0.3;
 *   q2: deterministic 0, arm 0.5 → paired +0.5;
 *   paired difference (−0.3 + 0.5) / 2 = 0.1 (2 queries, 3 runs);
 *   paper's difference mean(0.4, 1, 0.5) − mean(1, 0) = 0.6333… − 0.5 = 0.1333….
 *   [.4, .6): q1 arm 1 (paired 0), q2 arm 0 (paired 0) → paired 0, paper 0.5 − 0.5 = 0.
 *   Other intervals: no run → empty fields.
 */
import { describe, expect, it } from 'vitest';
import type { FairRagMetrics } from '../../src-main/api/contract/fairRag';
import type { QueryArmMetrics } from '../../src-main/experiments/fair-rag/queryMetrics';
import { table2, table2Settings, TABLE2_INTERVALS } from '../../src-main/experiments/fair-rag/table2';
import { defaultTable2CellsShown, table2CellValue, table2CellsLabel, table2CsvText } from '../../src-renderer/src/screens/experiments/fair-rag/table2Cells';

type Arm = [queryId: string, policy: 'deterministic' | 'pl', eeDNorm: number, eu: number];

function arm([queryId, policy, eeDNorm, eu]: Arm, i: number): QueryArmMetrics {
  return { queryId, retriever: 'bm25', condition: policy === 'pl' ? `bm25/alpha=${i}` : 'bm25/deterministic', policy, alpha: policy === 'pl' ? i : null, eeDNorm, eu, euNorm: eu, uMax: 1 } as QueryArmMetrics;
}

const ARMS: Arm[] = [
  ['q1', 'deterministic', 1, 1],
  ['q2', 'deterministic', 1, 0],
  ['q1', 'pl', 0.1, 0.4],
  ['q1', 'pl', 0.15, 1],
  ['q2', 'pl', 0.1, 0.5],
  ['q1', 'pl', 0.5, 1],
  ['q2', 'pl', 0.45, 0],
];

function table2Of(test: 'paired-t' | 'kim-diaz-unpaired-t'): FairRagMetrics['table2'] {
  const spec = { significance: { test, correction: 'holm' as const, alpha: 0.05 }, seeds: { sampling: 1 } } as Parameters<typeof table2Settings>[0];
  const rows = table2(
    ARMS.map((a, i) => arm(a, i)),
    ['bm25'],
    'gen',
    'raw',
    { test, correction: 'holm', alpha: 0.05 },
  );
  return { intervals: TABLE2_INTERVALS.map(([a, b]) => [a, b] as [number, number]), ...table2Settings(spec), alpha: 0.05, utility: 'EU', rows, normalizedRows: rows } as FairRagMetrics['table2'];
}

function parse(csv: string): Record<string, string>[] {
  const [head, ...lines] = csv.trimEnd().split('\n');
  // The test's name holds commas (it is quoted): split on commas outside quotes.
  const split = (l: string) => l.match(/("([^"]|"")*"|[^,]*)(,|$)/g)!.map((f) => f.replace(/,$/, '')).slice(0, -1);
  const names = split(head!);
  return lines.map((l) => Object.fromEntries(split(l).map((v, i) => [names[i]!, v])));
}

describe('Table 2 CSV: paired_difference columns beside the paper’s diff columns', () => {
  it('adds paired_difference_* at the end and keeps every existing column in place', () => {
    const csv = table2CsvText(table2Of('paired-t'), undefined);
    const header = csv.split('\n')[0]!.split(',');
    // The columns before this change, in their order (a public format).
    expect(header.slice(0, 8)).toEqual(['retriever', 'generator', 'baseline', 'baseline_queries', 'diff_0_0.2', 'runs_0_0.2', 'mean_0_0.2', 'p_0_0.2']);
    expect(header.indexOf('excluded_at_one')).toBe(4 + 5 * 4);
    expect(header.indexOf('calibration')).toBe(4 + 5 * 4 + 1 + 5 * 4 + 7);
    expect(header.slice(-5)).toEqual(['paired_difference_0_0.2', 'paired_difference_0.2_0.4', 'paired_difference_0.4_0.6', 'paired_difference_0.6_0.8', 'paired_difference_0.8_1']);
  });

  it('hand-computed: paired 0.1 and 0 where the paper’s difference is 0.1333… and 0', () => {
    const [row] = parse(table2CsvText(table2Of('paired-t'), undefined));
    expect(Number(row!['paired_difference_0_0.2'])).toBeCloseTo(0.1, 12);
    expect(Number(row!['diff_0_0.2'])).toBeCloseTo(1.9 / 3 - 0.5, 12);
    expect(row!['runs_0_0.2']).toBe('3');
    expect(row!['queries_0_0.2']).toBe('2');
    expect(row!['paired_difference_0.4_0.6']).toBe('0');
    expect(row!['diff_0.4_0.6']).toBe('0');
    expect(row!['paired_difference_0.2_0.4']).toBe('');
    expect(row!['baseline']).toBe('0.5');
    expect(row!['calibration']).toBe('not simulated');
  });
});

describe('Table 2 screen cells', () => {
  it('show the paired difference by default, the paper’s difference for the paper’s test, each labelled', () => {
    const paired = table2Of('paired-t');
    expect(defaultTable2CellsShown(paired)).toBe('paired');
    const cell = paired.rows[0]!.cells[0]!;
    expect(table2CellValue(cell, 'paired')).toBeCloseTo(0.1, 12);
    expect(table2CellValue(cell, 'paper')).toBeCloseTo(1.9 / 3 - 0.5, 12);
    expect(table2CellsLabel('paired')).toMatch(/^Paired by query \(what the test tests\)/);
    expect(table2CellsLabel('paper')).toMatch(/^The paper's unpaired difference/);
    expect(defaultTable2CellsShown(table2Of('kim-diaz-unpaired-t'))).toBe('paper');
    // Metrics from before pairedDifference existed: the paper's cells.
    const old = table2Of('paired-t');
    for (const c of old.rows[0]!.cells) delete (c as { pairedDifference?: unknown }).pairedDifference;
    expect(defaultTable2CellsShown(old)).toBe('paper');
  });
});
