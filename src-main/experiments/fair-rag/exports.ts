/**
 * Export files of a Fair RAG run:
 *
 *   per-query-csv   one row per query × arm with every metric (RFC 4180 CSV, full precision, empty = n/a)
 *   per-sample-csv  one row per sampled ranking: ranking, output, utility, AR and the judgments
 *   trec-run        one arm (condition) as an expeval stochastic run: `qid Q<s> docno rank score tag`,
 *                   the sample id in column 2, ranks 1..k, six columns and no '#' lines (strict
 *                   readers such as pytrec_eval refuse them; the manifest export carries the
 *                   provenance); reading it with `fairground eval exposure` gives the run's own EE numbers
 *   qrels           the run's utility labels as TREC qrels, every candidate listed (rel 1 useful, 0 not),
 *                   which is what `eval exposure` needs to know n and m
 *   attribution     one arm's judgments as `qid Q<s> docno 0|1` for every top-k item of every sample
 *                   (`eval exposure --attribution`)
 *   latex-table2    Table 2 on the raw utility scale (booktabs, one column wide; cells: the quantity the table's test
 *                   tests, by default the paired per-query difference; † / ‡ = significant at p_adj ≤ α / < 0.01;
 *                   a one-sentence caption, the notes below the table name the cells, test, correction and departure)
 *   latex-table2-normalized  the same on EU̅ = EU / u_max; each caption says which scale it shows
 *   latex-table2-paper, latex-table2-normalized-paper  the same with the paper's cells (unpaired difference of means)
 *   metrics-json    everything `runs.metrics` returns
 */
import type { FairRagMetrics, FairRagSpec } from '../../api/contract/fairRag';
import { fairRagMeasureKey, type FairRagMeasureName } from '../../api/contract/fairRag';
import { DataError } from '../../core/errors';
import { csvField as quoteCsv } from '../../core/format/csv';
import { escapeLatex } from '../../core/format/latex';
import { formatQrels, formatRun } from '../../io/trec';
import type { ExportedFile } from '../registry';
import { generationUtility } from './queryMetrics';
import { generationKey, indexRunItems, judgmentKey, type FairRagRunData } from './items';
import type { FairRagMetricsInput } from './metrics';
import { correctionName } from './table2';

export const sampleId = (sample: number): string => `Q${sample}`;

/** A CSV field of a value: null and non-finite numbers are empty (n/a). */
export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  return quoteCsv(typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : String(value));
}

const csvLine = (fields: (string | number | boolean | null)[]) => fields.map(csvField).join(',') + '\r\n';

/** CSV columns of measures: the header is the measure's name, the value its metrics-JSON key's. */
const measureColumns = <N extends FairRagMeasureName>(names: readonly N[]) => names.map((n) => [n, fairRagMeasureKey(n)] as const);

export function perQueryCsv(metrics: FairRagMetrics): string {
  const cols = [
    ['query_id', 'queryId'],
    ['retriever', 'retriever'],
    ['condition', 'condition'],
    ['policy', 'policy'],
    ['alpha', 'alpha'],
    ['n', 'n'],
    ['m', 'm'],
    ['samples', 'samples'],
    ['distinct_rankings', 'distinctRankings'],
    ...measureColumns(['EE-D', 'EE-R', 'EE-L', 'EE-D_norm', 'EE-R_norm', 'EE-L_norm', 'EU', 'EU_raw']),
    ['u_max', 'uMax'],
    ...measureColumns(['EU_norm', 'EAR', 'EAE-D', 'EAE-D_norm']),
  ] as const;
  let out = csvLine(cols.map(([h]) => h));
  for (const row of metrics.perQuery) out += csvLine(cols.map(([, k]) => row[k]));
  return out;
}

export function perSampleCsv(spec: FairRagSpec, data: FairRagRunData): string {
  let out = csvLine(['query_id', 'condition', 'sample', 'retriever', 'alpha', 'ranking', 'prompt_hash', 'output', 'utility', 'utility_raw', 'AR', 'entails']);
  for (const qid of [...data.samples.keys()].sort()) {
    for (const [condition, samples] of data.samples.get(qid)!) {
      for (const s of samples) {
        const g = data.generations.get(generationKey(qid, s.promptHash));
        const entails = g ? entailsOf(spec, data, qid, s.ranking, g) : null;
        const ar = entails ? entails.filter(Boolean).length / spec.k : null;
        out += csvLine([
          qid,
          condition,
          s.sample,
          s.retriever,
          s.alpha,
          s.ranking.join(' '),
          s.promptHash,
          g?.output ?? null,
          g ? generationUtility(data.queries.get(qid) ?? { lowerIsBetter: false, worst: null }, g) : null,
          g?.utilityRaw ?? null,
          ar,
          entails ? entails.map((e) => (e ? 1 : 0)).join(' ') : null,
        ]);
      }
    }
  }
  return out;
}

/** NLI(d, ŷ) for the top k of one sample; null without attribution or when not judged yet. */
function entailsOf(spec: FairRagSpec, data: FairRagRunData, qid: string, ranking: readonly string[], g: { outputHash: string; citations?: number[] }): boolean[] | null {
  const top = ranking.slice(0, spec.k);
  if (spec.attribution.judge === 'none') return null;
  if (spec.attribution.judge === 'citation') return top.map((_, pos) => (g.citations ?? []).includes(pos + 1));
  const out: boolean[] = [];
  for (const docId of top) {
    const j = data.judgments.get(judgmentKey(qid, g.outputHash, docId));
    if (!j) return null;
    out.push(j.entails);
  }
  return out;
}

function requireCondition(data: FairRagRunData, condition: string | undefined): string {
  if (condition === undefined) throw new DataError('this format exports one arm: give its condition (e.g. bm25/alpha=2)', { field: 'condition' });
  const known = new Set<string>();
  for (const byCondition of data.samples.values()) for (const c of byCondition.keys()) known.add(c);
  if (!known.has(condition)) throw new DataError(`no condition '${condition}' in this run (it has ${[...known].sort().join(', ')})`, { field: 'condition' });
  return condition;
}

export function runTag(experimentName: string, condition: string): string {
  return `${experimentName}.${condition}`.replace(/[^A-Za-z0-9._=-]+/g, '_');
}

export function trecRun(spec: FairRagSpec, data: FairRagRunData, condition: string, tag: string): string {
  const rows: { qid: string; iter: string; docno: string }[] = [];
  for (const qid of [...data.samples.keys()].sort()) {
    for (const s of data.samples.get(qid)!.get(condition) ?? []) {
      s.ranking.slice(0, spec.k).forEach((docno) => rows.push({ qid, iter: sampleId(s.sample), docno }));
    }
  }
  return formatRun(rows, { tag });
}

export function utilityQrels(data: FairRagRunData): string {
  const rows: { qid: string; docno: string; rel: number }[] = [];
  for (const qid of [...data.queries.keys()].sort()) for (const c of data.queries.get(qid)!.candidates) rows.push({ qid, docno: c.docId, rel: c.useful ? 1 : 0 });
  return formatQrels(rows);
}

export function attributionLabels(spec: FairRagSpec, data: FairRagRunData, condition: string): string {
  if (spec.attribution.judge === 'none') throw new DataError("this run judged no attribution (attribution.judge is 'none')", { field: 'format' });
  let out = '';
  for (const qid of [...data.samples.keys()].sort()) {
    for (const s of data.samples.get(qid)!.get(condition) ?? []) {
      const g = data.generations.get(generationKey(qid, s.promptHash));
      const entails = g && entailsOf(spec, data, qid, s.ranking, g);
      if (!entails) throw new DataError(`sample ${s.sample} of query '${qid}' is not judged yet`, { field: 'condition' });
      s.ranking.slice(0, spec.k).forEach((docno, i) => (out += `${qid} ${sampleId(s.sample)} ${docno} ${entails[i] ? 1 : 0}\n`));
    }
  }
  return out;
}

const fmt = (v: number, digits = 2) => {
  const s = v.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
};

/** The caption's sentence on LaMP-3 answers outside 1–5 (issue 34 item 4); empty when there are none. */
function outOfRangeCaption(metrics: FairRagMetrics): string {
  const o = metrics.outOfRangeAnswers;
  if (!o || o.count === 0) return '';
  return ` ${o.count} of ${o.answers} answers outside 1--5 score $\\max(0, 4 - |p - g|)$ (unclamped).`;
}

/**
 * What Table 2's LaTeX cells hold (issue 34 item 8f):
 *  - `paired`: the quantity the paired tests test: the mean over the queries with a run in the
 *    interval of (mean utility of the query's runs in the interval − its deterministic utility)
 *    (`pairedDifference`); a run where every query's utility is the same in every arm gives 0;
 *  - `paper`: Kim & Diaz's number (their Table 2): the mean utility of all runs in the interval minus
 *    the mean deterministic utility over all queries (`difference`), which also moves with which
 *    queries fall into the interval. The unpaired test (`kim-diaz-unpaired-t`) tests this one.
 * Default: the quantity the table's test tests (`paper` for kim-diaz-unpaired-t, else `paired`).
 */
export type Table2Cells = 'paired' | 'paper';

export interface Table2LatexOptions {
  cells?: Table2Cells;
}

/** The cells a table shows by default: what its test tests. */
export function defaultTable2Cells(metrics: Pick<FairRagMetrics, 'table2'>): Table2Cells {
  return metrics.table2.testId === 'kim-diaz-unpaired-t' ? 'paper' : 'paired';
}

/** An interval bound as the header writes it: 0, .2, .4, 1 (the paper's "[0.0, 0.2)" is two digits wider per bound). */
const bound = (v: number) => (v === 0 ? '0' : v === 1 ? '1' : v.toFixed(1).replace(/^0\./, '.'));

/**
 * Table 2 as a booktabs table that fits one column (issue 34 item 9): rows are the retrievers with
 * the baseline utility in parentheses (one generator per run, named in the notes), columns the
 * disparity intervals written compactly ([0,.2)), `\small` with 2pt column gaps; a table still
 * wider than `\linewidth` (long retriever names) is shrunk to it with graphicx's \resizebox. The
 * caption is one sentence (at most three lines in a two-column page); what the cells are exactly,
 * the test, correction, departure, calibration and notes are set below the table in \footnotesize.
 * In a two-column paper, `table*` for `table` gives the full text width with no other change.
 */
export function table2Latex(metrics: FairRagMetrics, scale: 'raw' | 'normalized' = 'raw', opts: Table2LatexOptions = {}): string {
  const t = metrics.table2;
  const rows = scale === 'raw' ? t.rows : t.normalizedRows;
  // Metrics written before pairedDifference existed have only the paper's difference.
  const hasPaired = rows.every((r) => r.cells.every((c) => c.pairedDifference !== undefined));
  const cells: Table2Cells = (opts.cells ?? defaultTable2Cells(metrics)) === 'paired' && hasPaired ? 'paired' : 'paper';
  const scaleText = scale === 'raw' ? 'Raw utility (LaMP-3: 4 $-$ MAE).' : 'Utility $\\overline{\\mathrm{EU}} = \\mathrm{EU}/u_{\\max}$ (Eq. 30).';
  const scaleShort = scale === 'raw' ? 'raw utility' : 'normalised utility';
  const corr = t.correction ?? 'none';
  const correction = corr === 'none' ? ', no multiple-comparison correction' : `, ${correctionName(corr)} over each row's intervals`;
  const pName = corr === 'none' ? '$p$' : '$p_{\\mathrm{adj}}$';
  const cal = t.calibration;
  const calibration = cal
    ? ` Measured null rejection rate${cal.alpha === t.alpha ? '' : ` at $\\alpha = ${cal.alpha}$`}: ${cal.nullRejectionRate.toFixed(3)} [${cal.lo.toFixed(3)}, ${cal.hi.toFixed(3)}] (${cal.runs} simulated runs).`
    : ' Null rejection rate: not simulated.';
  const eed = '$\\overline{\\mathrm{EE\\mbox{-}D}}$';
  const generators = [...new Set(rows.map((r) => r.generator))];
  const caption =
    cells === 'paired'
      ? `Utility of fairer runs minus the deterministic baseline's, paired by query, per ${eed} interval (${scaleShort}; see the notes).`
      : `Mean utility of the runs per ${eed} interval minus the baseline's mean (${scaleShort}; unpaired, as the paper's Table 2).`;
  // Short on purpose (issue 34: at most about 12 footnotesize lines in a column), every fact kept: the cells, the
  // scale, the baseline and generator, the intervals, the test, the correction, the departure and the calibration.
  const pairedTest = t.testId !== undefined && t.testId !== 'kim-diaz-unpaired-t';
  const cellText =
    cells === 'paired'
      ? "Cell: mean over queries of (query's mean utility in the interval $-$ its deterministic one); paper's unpaired cells: latex-table2-paper."
      : `Cell: mean utility of the interval's runs (query $\\times$ $\\alpha$) $-$ the baseline's mean, as the paper${pairedTest ? '; stars test the paired per-query difference' : ''}.`;
  const notes =
    `${cellText} ${scaleText} (\\,): baseline mean` +
    `${generators.length === 1 ? `; generator ${escapeLatex(generators[0]!)}` : ''}. [a,b): $a \\le$ ${eed} $< b$; --: ${cells === 'paired' ? 'no paired query' : 'no run'}. ` +
    `$^{\\dagger}$/$^{\\ddagger}$: ${pName} $\\le ${t.alpha}$ / $< 0.01$, ${escapeLatex(t.test)}${correction}.` +
    `${t.departure ? ` ${escapeLatex(t.departure)}` : ''}${calibration}${outOfRangeCaption(metrics)}`;
  const n = t.intervals.length;
  const lines: string[] = [];
  lines.push('% Requires \\usepackage{booktabs} in the preamble (and \\usepackage{graphicx} when the table is wider than the column: it is then shrunk to \\linewidth).');
  lines.push('% One column wide; in a two-column paper, table* in place of table gives it the full text width.');
  lines.push(`% Cells: ${cells === 'paired' ? 'paired per-query differences (what the paired tests test)' : "the paper's unpaired difference of means"}.`);
  lines.push('\\begin{table}[ht]');
  lines.push('\\centering');
  lines.push(`\\caption{${caption}}`);
  lines.push(`\\label{tab:fair-rag-table2${scale === 'raw' ? '' : '-normalized'}}`);
  lines.push('\\small\\setlength{\\tabcolsep}{2pt}%');
  lines.push('\\sbox0{%');
  lines.push(`\\begin{tabular}{l${'r'.repeat(n)}}`);
  lines.push('\\toprule');
  lines.push(`Retriever (baseline) & \\multicolumn{${n}}{c}{${eed} interval} \\\\`);
  lines.push(`\\cmidrule(lr){2-${n + 1}}`);
  lines.push(` & ${t.intervals.map(([a, b]) => `[${bound(a)},${bound(b)})`).join(' & ')} \\\\`);
  lines.push('\\midrule');
  for (const row of rows) {
    const name = `${escapeLatex(generators.length === 1 ? row.retriever : `${row.retriever}+${row.generator}`)} (${row.baseline === null ? '--' : fmt(row.baseline, 3)})`;
    const values = row.cells.map((c) => {
      const d = cells === 'paired' ? (c.pairedDifference ?? null) : c.difference;
      if (d === null) return '--';
      const text = fmt(d);
      const v = text.startsWith('-') ? `$-$${text.slice(1)}` : `${d > 0 && Number(text) !== 0 ? '+' : ''}${text}`;
      // † p ≤ α, ‡ p < 0.01 (PyTerrier style, as in the app's Table 2); the phantom keeps digits aligned.
      const p = c.pAdjusted ?? c.pValue;
      const mark = !c.significant ? '' : p !== null && p !== undefined && p < 0.01 ? '\\ddagger' : '\\dagger';
      return mark ? `${v}$^{${mark}}$` : `${v}\\hphantom{$^{\\ddagger}$}`;
    });
    lines.push(`${name} & ${values.join(' & ')} \\\\`);
  }
  lines.push('\\bottomrule');
  lines.push('\\end{tabular}}%');
  lines.push('\\ifdim\\wd0>\\linewidth\\sbox0{\\resizebox{\\linewidth}{!}{\\usebox0}}\\fi');
  lines.push('\\usebox0');
  lines.push('');
  lines.push('\\smallskip');
  lines.push(`\\parbox{\\linewidth}{\\footnotesize\\raggedright Notes. ${notes}}`);
  lines.push('\\end{table}');
  return lines.join('\n') + '\n';
}

export function exportFairRag(
  input: FairRagMetricsInput & { format: string; condition?: string | undefined; experimentName: string },
  metrics: () => FairRagMetrics,
): ExportedFile {
  const { spec } = input;
  const data = indexRunItems(input.items);
  const base = `${input.experimentName}-run${input.runId}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  switch (input.format) {
    case 'per-query-csv':
      return { name: `${base}.per-query.csv`, mediaType: 'text/csv', text: perQueryCsv(metrics()) };
    case 'per-sample-csv':
      return { name: `${base}.per-sample.csv`, mediaType: 'text/csv', text: perSampleCsv(spec, data) };
    case 'trec-run': {
      const condition = requireCondition(data, input.condition);
      const tag = runTag(input.experimentName, condition);
      return { name: `${base}.${condition.replace(/[^A-Za-z0-9._=-]+/g, '_')}.trec`, mediaType: 'text/plain', text: trecRun(spec, data, condition, tag) };
    }
    case 'qrels':
      return { name: `${base}.utility.qrels`, mediaType: 'text/plain', text: utilityQrels(data) };
    case 'attribution': {
      const condition = requireCondition(data, input.condition);
      return { name: `${base}.${condition.replace(/[^A-Za-z0-9._=-]+/g, '_')}.attribution`, mediaType: 'text/plain', text: attributionLabels(spec, data, condition) };
    }
    case 'latex-table2':
      return { name: `${base}.table2.tex`, mediaType: 'application/x-tex', text: table2Latex(metrics()) };
    case 'latex-table2-normalized':
      return { name: `${base}.table2-normalized.tex`, mediaType: 'application/x-tex', text: table2Latex(metrics(), 'normalized') };
    case 'latex-table2-paper':
      return { name: `${base}.table2-paper.tex`, mediaType: 'application/x-tex', text: table2Latex(metrics(), 'raw', { cells: 'paper' }) };
    case 'latex-table2-normalized-paper':
      return { name: `${base}.table2-normalized-paper.tex`, mediaType: 'application/x-tex', text: table2Latex(metrics(), 'normalized', { cells: 'paper' }) };
    case 'metrics-json':
      return { name: `${base}.metrics.json`, mediaType: 'application/json', text: `${JSON.stringify(metrics(), null, 2)}\n` };
    default:
      throw new DataError(`unknown export format '${input.format}'`, { field: 'format' });
  }
}
