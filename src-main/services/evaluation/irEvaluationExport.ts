/**
 * Exports of an IR evaluation: the summary table (systems × measures with deltas and adjusted
 * p-values) as CSV, the per-query values in trec_eval's `measure qid value` shape (with `all`,
 * one block per run) as CSV, and a booktabs LaTeX table with † / ‡ against the baseline. Every
 * export comes with a reproducibility manifest naming the inputs' SHA-256, the measures, the test,
 * the correction and α.
 */
import type { IrEvaluation } from '../../api/contract/evaluation';
import { formatBooktabsTable } from '../../io/latex/booktabs';
import { collectEnvironment } from '../../io/manifest/environment';
import { buildManifest } from '../../io/manifest/manifest';
import { csvField } from '../../io/measureCsv';
import { isCountMeasureName, meanHeader } from './irEvaluation';

export type IrExportFormat = 'csv-summary' | 'csv-per-query' | 'latex';

export interface ExportedFile {
  fileName: string;
  mediaType: string;
  content: string;
}

export interface LatexOptions {
  caption?: string;
  label?: string;
  digits: number;
  environment: 'table' | 'table*';
}

export function exportIrEvaluation(ev: IrEvaluation, format: IrExportFormat, latex?: LatexOptions): { file: ExportedFile; manifest: ExportedFile } {
  const stamp = 'evaluation';
  let file: ExportedFile;
  if (format === 'csv-summary') file = { fileName: `${stamp}-summary.csv`, mediaType: 'text/csv', content: summaryCsv(ev) };
  else if (format === 'csv-per-query') file = { fileName: `${stamp}-per-query.csv`, mediaType: 'text/csv', content: perQueryCsv(ev) };
  else file = { fileName: `${stamp}.tex`, mediaType: 'application/x-tex', content: latexTable(ev, latex ?? { digits: 3, environment: 'table' }) };

  const manifest = buildManifest({
    environment: collectEnvironment(),
    run: { tag: ev.baseline, description: `IR evaluation of ${ev.systems.length} run(s) against ${ev.inputs.find((i) => i.role === 'qrels')?.name}` },
    data: {
      qrels: ev.inputs.filter((i) => i.role === 'qrels').map((i) => ({ name: i.name, sha256: i.sha256 }))[0]!,
      other: ev.inputs.filter((i) => i.role === 'run').map((i) => ({ name: i.name, sha256: i.sha256 })),
    },
    evaluation: {
      measures: ev.measures,
      measureParameters: { semantics: 'trec_eval', missingQueries: 'zero (trec_eval -c)', ties: 'score desc, docno desc' },
      significance: {
        test: ev.settings.test,
        correction: ev.settings.correction,
        alpha: ev.settings.alpha,
        ...(ev.settings.permutations !== null ? { permutations: ev.settings.permutations } : {}),
        ...(ev.settings.seed !== null ? { seed: ev.settings.seed } : {}),
      },
      baselines: [ev.baseline],
    },
  });
  const methods = [...new Set(ev.systems.flatMap((s) => ev.measures.map((m) => s.ciMethod?.[m] ?? 't')))];
  const manifestFile = { fileName: `${file.fileName}.manifest.json`, mediaType: 'application/json', content: `${JSON.stringify({ ...manifest, confidenceIntervals: { level: 0.95, methods }, export: { file: file.fileName } }, null, 2)}\n` };
  return { file, manifest: manifestFile };
}

function num(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(12))) : '';
}

function summaryCsv(ev: IrEvaluation): string {
  // test and correction (added after the existing columns) name what produced `significant` on each compared row.
  // `mean` is the per-query mean for every measure, count measures included (their ci and delta are of it);
  // `aggregate` names it and `trec_eval_all` keeps trec_eval's `all` (the sum of a count measure).
  const header = ['run', 'measure', 'mean', 'ci_low', 'ci_high', 'delta_vs_baseline', 'p_value', 'p_adjusted', 'significant', 'wins', 'ties', 'losses', 'ci_method', 'test', 'correction', 'aggregate', 'trec_eval_all'];
  const lines = [header.join(',')];
  for (const s of ev.systems) {
    for (const m of ev.measures) {
      const c = ev.comparisons.find((x) => x.system === s.name && x.measure === m);
      // A column of equal values has no interval: empty bounds, ci_method "no variance (n = …)".
      const noVariance = (s.ciMethod?.[m] ?? '').startsWith('no variance');
      lines.push(
        [
          csvField(s.name),
          csvField(m),
          num(s.means[m]!),
          noVariance ? '' : num(s.ci[m]![0]),
          noVariance ? '' : num(s.ci[m]![1]),
          c ? num(c.delta) : '',
          c ? num(c.pValue) : '',
          c ? num(c.pAdjusted) : '',
          c ? String(c.significant) : '',
          c ? String(c.wins) : '',
          c ? String(c.ties) : '',
          c ? String(c.losses) : '',
          csvField(ciMethodText(s, m)),
          c ? csvField(ev.settings.test) : '',
          c ? csvField(ev.settings.correction) : '',
          'mean per query',
          num(trecEvalAll(ev, s, m)),
        ].join(','),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** How a mean's interval was computed, '… (clipped)' when the clip changed it; t for evaluations made before methods were recorded. */
function ciMethodText(s: IrEvaluation['systems'][number], m: string): string {
  const method = s.ciMethod?.[m] ?? 't';
  return s.ciClipped?.[m] ? `${method} (clipped)` : method;
}

/** trec_eval's `all`: the stored value, else (evaluations made before it was stored) the mean, or the sum of a count measure. */
function trecEvalAll(ev: IrEvaluation, s: IrEvaluation['systems'][number], m: string): number {
  const stored = s.trecEvalAll?.[m];
  if (stored !== undefined) return stored;
  return isCountMeasureName(m) ? s.means[m]! * ev.qids.length : s.means[m]!;
}

function perQueryCsv(ev: IrEvaluation): string {
  const lines = ['run,measure,qid,value'];
  for (const s of ev.systems) {
    for (const q of ev.qids) for (const m of ev.measures) lines.push([csvField(s.name), csvField(m), csvField(q), num(s.perQuery[m]![q]!)].join(','));
    // trec_eval's shape: `all` is its aggregate (the sum of a count measure).
    for (const m of ev.measures) lines.push([csvField(s.name), csvField(m), 'all', num(trecEvalAll(ev, s, m))].join(','));
  }
  return `${lines.join('\n')}\n`;
}

function latexTable(ev: IrEvaluation, opts: LatexOptions): string {
  const baselineRow = ev.systems.findIndex((s) => s.name === ev.baseline);
  const pValues = ev.systems.map((s) =>
    ev.measures.map((m) => (s.name === ev.baseline ? null : (ev.comparisons.find((c) => c.system === s.name && c.measure === m)?.pAdjusted ?? null))),
  );
  const tested = ev.comparisons.length > 0;
  return formatBooktabsTable({
    systems: ev.systems.map((s) => s.name),
    columns: ev.measures.map((m) => ({ label: meanHeader(m, ev.countMeasures), higherIsBetter: ev.higherIsBetter[m] ?? true })),
    values: ev.systems.map((s) => ev.measures.map((m) => s.means[m] ?? null)),
    digits: opts.digits,
    environment: opts.environment,
    ...(opts.caption ? { caption: opts.caption } : {}),
    ...(opts.label ? { label: opts.label } : {}),
    ...(tested
      ? {
          significance: {
            markers: { style: 'baseline' as const, baseline: baselineRow, pValues },
            test: ev.settings.test,
            correction: ev.settings.correction,
            alpha: ev.settings.alpha,
          },
        }
      : {}),
  });
}

