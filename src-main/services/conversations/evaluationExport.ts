/**
 * Exports of a conversation set's evaluation, each with a reproducibility manifest (io/manifest):
 * - csv: the runs × topics table, one row per run and topic with every measure, then a row per run
 *   with topic `all` holding its mean (trec_eval's convention);
 * - csv-tests: the paired tests between runs (measure, runs, topics, means, Δ, p, adjusted p);
 * - latex: the means per run as a booktabs table (io/latex), with ranx-style letters marking which
 *   runs a run is significantly better than, per measure.
 */
import { ApiFailure } from '../../api/router';
import type { Correction } from '../../core/stats/multipleComparisons';
import { formatBooktabsTable } from '../../io/latex/booktabs';
import { collectEnvironment } from '../../io/manifest/environment';
import { buildManifest } from '../../io/manifest/manifest';
import { csvField } from '../../io/measureCsv';
import type { ExportedFile } from './conversationsService';
import type { SetEvaluation } from './setEvaluation';

export type EvaluationExportFormat = 'csv' | 'csv-tests' | 'latex';

export interface EvaluationLatexOptions {
  caption?: string | undefined;
  label?: string | undefined;
  /** Decimal places for every measure column; absent: each column's own, from its values' scale (columnDecimals). */
  digits?: number | undefined;
  environment: 'table' | 'table*';
}

export function exportSetEvaluation(ev: SetEvaluation, format: EvaluationExportFormat, latex?: EvaluationLatexOptions): { file: ExportedFile; manifest: ExportedFile } {
  const stem = `gfrc-${slug(ev.setName)}`;
  let file: ExportedFile;
  if (format === 'csv') file = { fileName: `${stem}.csv`, mediaType: 'text/csv', content: tableCsv(ev) };
  else if (format === 'csv-tests') file = { fileName: `${stem}-tests.csv`, mediaType: 'text/csv', content: testsCsv(ev) };
  else if (ev.runs.length === 0 || ev.measures.length === 0) throw new ApiFailure('validation', 'the evaluation has no runs to put in a table', 'evaluation.runs');
  else file = { fileName: `${stem}.tex`, mediaType: 'application/x-tex', content: latexTable(ev, latex ?? { environment: 'table*' }) };

  const manifest = buildManifest({
    environment: collectEnvironment(),
    run: { tag: ev.setName, description: `GFRC2 / GFRC of conversation set '${ev.setName}': ${ev.runs.length} run(s) × ${ev.topics.length} topic(s)` },
    parameters: {
      L: ev.L,
      l_max: ev.lMax,
      gluedFirstWord: ev.gluedFirstWord,
      rVariant: ev.settings.rVariant,
      gains: '(2^l - 1) / 2^l_max',
      weights: 'equal: 1/(M+1) for GFRC2 (Eq. 19) and GFRC (R and each GF)',
      attributeSets: ev.attributeSets,
      runs: ev.runs,
      topics: ev.topics,
    },
    data: { collection: { name: ev.setName, source: 'conversations JSONL export', sha256: ev.dataSha256 } },
    evaluation: {
      measures: ev.measures,
      measureParameters: { reference: 'Sakai, Tao & Song 2025, GFRC2 (Eq. 11-21) and GFRC (Eq. 1-10)', scoredNuggets: 'all but unaccepted llm-suggested' },
      significance: {
        test: ev.settings.test,
        correction: ev.settings.correction as Correction,
        alpha: ev.settings.alpha,
        ...(ev.settings.permutations !== null ? { permutations: ev.settings.permutations } : {}),
        ...(ev.settings.seed !== null ? { seed: ev.settings.seed } : {}),
      },
    },
    extra: { family: ev.settings.family, notes: ev.notes },
  });
  return {
    file,
    manifest: { fileName: `${file.fileName}.manifest.json`, mediaType: 'application/json', content: `${JSON.stringify({ ...manifest, export: { file: file.fileName } }, null, 2)}\n` },
  };
}

function num(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '' : String(Number(x.toPrecision(12)));
}

function tableCsv(ev: SetEvaluation): string {
  const lines = [['run', 'topic', 'conversations', ...ev.measures].map(csvField).join(',')];
  for (const run of ev.runs) {
    for (const c of ev.cells.filter((x) => x.run === run)) lines.push([csvField(run), csvField(c.topic), String(c.conversations), ...ev.measures.map((m) => num(c.values?.[m]))].join(','));
    const mean = ev.means.find((m) => m.run === run);
    if (mean) lines.push([csvField(run), 'all', String(mean.topics), ...ev.measures.map((m) => num(mean.values[m]))].join(','));
  }
  return `${lines.join('\n')}\n`;
}

function testsCsv(ev: SetEvaluation): string {
  const lines = ['measure,run_a,run_b,topics,mean_a,mean_b,delta_b_minus_a,p_value,p_adjusted,significant'];
  for (const c of ev.comparisons) {
    lines.push([csvField(c.measure), csvField(c.runA), csvField(c.runB), String(c.topics), num(c.meanA), num(c.meanB), num(c.delta), num(c.pValue), num(c.pAdjusted), String(c.significant)].join(','));
  }
  return `${lines.join('\n')}\n`;
}

function latexTable(ev: SetEvaluation, opts: EvaluationLatexOptions): string {
  // ranx-style letters (at most 26 runs): pValues[column][i][j] = adjusted p of runs i and j; the
  // table marks the one whose mean is better.
  const tested = ev.comparisons.length > 0 && ev.runs.length <= 26;
  const pValues = ev.measures.map((m) =>
    ev.runs.map((a, i) =>
      ev.runs.map((b, j) => (i === j ? null : (ev.comparisons.find((x) => x.measure === m && ((x.runA === a && x.runB === b) || (x.runA === b && x.runB === a)))?.pAdjusted ?? null))),
    ),
  );
  const values = ev.runs.map((r) => ev.measures.map((m) => ev.means.find((x) => x.run === r)?.values[m] ?? null));
  return formatBooktabsTable({
    systems: ev.runs.map((r) => r || '(no run)'),
    columns: ev.measures.map((m, c) => ({ label: m, digits: opts.digits ?? columnDecimals(values.map((row) => row[c] ?? null)) })),
    values,
    environment: opts.environment,
    systemHeader: 'Run',
    caption: opts.caption ?? `GFRC2, EGNP, EGF, GFRC, R and GF of the runs of ${ev.setName}, mean over ${ev.topics.length} topics (L = ${ev.L}, R by ${ev.settings.rVariant}).`,
    label: opts.label ?? 'tab:gfrc',
    ...(tested ? { significance: { markers: { style: 'letters' as const, pValues }, test: ev.settings.test, correction: ev.settings.correction as Correction, alpha: ev.settings.alpha } } : {}),
  });
}

/** Significant digits of the smallest value of a measure column (issue 34 item 8g). */
export const LATEX_SIGNIFICANT_DIGITS = 3;
/** A column's values are placed at most this many decades below its largest (so one near-zero mean does not widen every cell). */
const MAX_DECADES = 3;

/**
 * Decimal places of a measure column from the scale of its values: enough for the smallest nonzero
 * |value| to show LATEX_SIGNIFICANT_DIGITS significant digits (but looking no further than
 * MAX_DECADES below the largest), one number of places for the whole column so the points line up.
 * GFRC2 means of 0.0012–0.0213 get 5 places (0.00120, 0.02130), R or GF near 0.5 get 3 (0.500);
 * 0 to 8 places. A column of zeros or nulls gets 3.
 */
export function columnDecimals(values: readonly (number | null)[]): number {
  const magnitudes = values.filter((v): v is number => v !== null && Number.isFinite(v) && v !== 0).map(Math.abs);
  if (magnitudes.length === 0) return LATEX_SIGNIFICANT_DIGITS;
  const largest = Math.max(...magnitudes);
  const smallest = Math.max(Math.min(...magnitudes), largest / 10 ** MAX_DECADES);
  // The exponent of the smallest value as it would print with the wanted significant digits (0.000999 rounds to 1.00e-3).
  const exponent = Number(smallest.toExponential(LATEX_SIGNIFICANT_DIGITS - 1).split('e')[1]);
  return Math.min(8, Math.max(0, LATEX_SIGNIFICANT_DIGITS - 1 - exponent));
}

function slug(name: string): string {
  return name.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '') || 'set';
}
