/**
 * Export files of a MoI run (the service adds the reproducibility manifest):
 *
 *   table1-csv / table7-csv / table8-csv     one row per method × measure: mean, n, difference to the
 *                                            retriever, p, adjusted p, significance, the test and correction behind it (RFC 4180)
 *   table1-latex / table7-latex / table8-latex   booktabs, best per column in bold, † / ‡ against the
 *                                            retriever (adjusted p ≤ α / ≤ 0.01), the test in the caption
 *   fig6-csv                                 L, position, mean a_j, sd, min, max, queries, uniform 1/L
 *   costs-csv                                planned and executed calls and tokens per method
 *   per-query-csv                            query × method × measure: value, order (doc ids), answer
 *   permutations-csv                         every scored ordering: s_i, its terms, ŝ_i, tokens
 *   fits-csv / fits-json                     per query: fitted a (per position) and u (per passage, doc ids),
 *                                            ranking, objective, certification (converged, reasons, starts,
 *                                            distinct optima), orientation and whether the rule chose it,
 *                                            position effect detected and its p-value
 *   metrics-json                             everything `moi.metrics` returns
 */
import type { MoiMetrics, MoiSpec, MoiTable } from '../../api/contract/moi';
import { DataError } from '../../core/errors';
import { csvField as coreCsvField } from '../../core/format/csv';
import { formatBooktabsTable } from '../../io/latex/booktabs';
import type { RunItem } from '../../store/experimentsRepo';
import type { ExportedFile } from '../registry';
import { fitCaveats, generationKey, indexRunItems, orientationByRule } from './items';
import { methodsOf } from './metrics';
import { correctionText, methodValue } from './tables';

export function csvField(value: string | number | boolean | null): string {
  if (value === null) return '';
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : String(value);
  return coreCsvField(text); // RFC 4180 quoting and formula neutralising (core/format/csv)
}

const csvLine = (fields: (string | number | boolean | null)[]) => fields.map(csvField).join(',') + '\r\n';

/** One row per method × measure; `test` and `correction` name what produced each p-value and star (issue 23 item 2). */
export function tableCsv(table: MoiTable): string {
  let out = csvLine(['method', 'label', 'measure', 'mean', 'n', 'difference_vs_baseline', 'p', 'p_adjusted', 'significant', 'test', 'correction']);
  const correction = correctionText(table.correction);
  for (const row of table.rows) {
    row.cells.forEach((c, i) => {
      const tested = c.pValue !== null;
      out += csvLine([row.method, row.label, table.columns[i]!.measure, c.mean, c.n, c.difference, c.pValue, c.pAdjusted, c.significant, tested ? table.test : null, tested ? correction : null]);
    });
  }
  return out;
}

export function tableLatex(table: MoiTable, caption: string, label: string): string {
  const baseline = table.baseline ? table.rows.findIndex((r) => r.method === table.baseline) : -1;
  return formatBooktabsTable({
    systems: table.rows.map((r) => r.label),
    columns: table.columns.map((c) => ({ label: c.measure, higherIsBetter: c.higherIsBetter })),
    values: table.rows.map((r) => r.cells.map((c) => c.mean)),
    digits: 3,
    caption,
    label,
    systemHeader: 'Ranking',
    ...(baseline >= 0
      ? {
          significance: {
            markers: { style: 'baseline' as const, baseline, pValues: table.rows.map((r) => r.cells.map((c) => c.pAdjusted)) },
            test: table.test.replace(/ against .*/, ''),
            correction: table.correction,
            alpha: table.alpha,
          },
        }
      : {}),
  });
}

export function fig6Csv(metrics: MoiMetrics): string {
  // Columns unchanged; what the curve cannot vouch for (fits left out, uncertified, orientation set by the
  // rule) is in metrics-json (fig6[].notes) and per query in fits-csv / fits-json.
  let out = csvLine(['length', 'position', 'mean_a', 'sd', 'min', 'max', 'queries', 'uniform']);
  for (const g of metrics.fig6) for (const p of g.positions) out += csvLine([g.length, p.position, p.mean, p.sd, p.min, p.max, g.queries, g.uniform]);
  return out;
}

export function costsCsv(metrics: MoiMetrics): string {
  let out = csvLine([
    'method',
    'label',
    'queries',
    'planned_score_passes',
    'planned_score_requests',
    'planned_generations',
    'score_passes',
    'score_requests',
    'generations',
    'scored_tokens',
    'generation_prompt_tokens',
    'completion_tokens',
  ]);
  for (const c of metrics.costs) {
    out += csvLine([
      c.method,
      c.label,
      c.queries,
      c.planned.scorePasses,
      c.planned.scoreRequests,
      c.planned.generations,
      c.executed.scorePasses,
      c.executed.scoreRequests,
      c.executed.generations,
      c.executed.scoredTokens,
      c.executed.generationPromptTokens,
      c.executed.completionTokens,
    ]);
  }
  return out;
}

export function perQueryCsv(items: readonly RunItem[]): string {
  const data = indexRunItems(items);
  let out = csvLine(['query_id', 'method', 'measure', 'value', 'order', 'answer']);
  for (const qid of [...data.queries.keys()].sort()) {
    const q = data.queries.get(qid)!;
    for (const method of methodsOf(data)) {
      const m = data.methods.get(qid)?.get(method);
      if (!m) continue;
      const hash = m.chosen ? m.promptHashes[m.chosen.index] : m.promptHashes.length === 1 ? m.promptHashes[0] : undefined;
      const answer = hash ? (data.generations.get(generationKey(qid, hash))?.output ?? null) : null;
      const order = m.order ? m.order.map((i) => q.passages[i]!.docId).join(' ') : null;
      for (const measure of q.metrics) out += csvLine([qid, method, measure, methodValue(data, qid, method, measure), order, answer]);
    }
  }
  return out;
}

export function permutationsCsv(items: readonly RunItem[]): string {
  const data = indexRunItems(items);
  let out = csvLine(['query_id', 'sample', 'order', 's', 'log_p_question', 'log_p_passages', 'predicted', 'question_tokens', 'passage_tokens', 'prompt_tokens', 'continuation_tokens']);
  for (const qid of [...data.queries.keys()].sort()) {
    const q = data.queries.get(qid)!;
    const fit = data.fits.get(qid);
    q.set.permutations.forEach((order, i) => {
      const p = data.perms.get(qid)?.get(order.join(','));
      out += csvLine([
        qid,
        i,
        order.map((k) => q.passages[k]!.docId).join(' '),
        p?.s ?? null,
        p?.question ?? null,
        p?.passages ?? null,
        fit?.predictions[i] ?? null,
        p?.questionTokens ?? null,
        p?.passageTokens ?? null,
        p?.promptTokens ?? null,
        p?.continuationTokens ?? null,
      ]);
    });
  }
  return out;
}

/** Per-query fits (issue 23 item 5): a and u with the certification and orientation fields. */
export function fitsJson(items: readonly RunItem[]) {
  const data = indexRunItems(items);
  return [...data.queries.keys()].sort().flatMap((qid) => {
    const fit = data.fits.get(qid);
    if (!fit) return [];
    const q = data.queries.get(qid)!;
    return [
      {
        queryId: qid,
        a: fit.a,
        u: Object.fromEntries(fit.u.map((v, p) => [q.passages[p]!.docId, v])),
        ranking: fit.ranking.map((p) => q.passages[p]!.docId),
        objective: fit.objective,
        converged: fit.converged,
        uncertainReasons: fit.certificate?.reasons ?? (fit.converged ? [] : ['iteration cap reached']),
        startsTried: fit.certificate?.startsTried ?? null,
        distinctOptima: fit.certificate?.distinctOptima ?? null,
        exactFit: fit.certificate?.exactFit ?? null,
        orientation: fit.orientation,
        orientationRule: fit.orientationRule,
        orientationByRule: orientationByRule(fit),
        positionEffectDetected: fit.positionEffect?.detected ?? null,
        positionEffectP: fit.positionEffect?.pValue ?? null,
        underdetermined: fit.underdetermined,
        underdeterminedReasons: fit.reasons,
        fixedA: fit.fixedA !== null,
        caveats: fitCaveats(fit),
      },
    ];
  });
}

export function fitsCsv(items: readonly RunItem[]): string {
  let out = csvLine([
    'query_id',
    'a',
    'u',
    'ranking',
    'objective',
    'converged',
    'uncertain_reasons',
    'starts_tried',
    'distinct_optima',
    'orientation',
    'orientation_by_rule',
    'position_effect_detected',
    'position_effect_p',
    'underdetermined',
    'caveats',
  ]);
  for (const f of fitsJson(items)) {
    out += csvLine([
      f.queryId,
      f.a.join(' '),
      Object.entries(f.u)
        .map(([d, v]) => `${d}=${v}`)
        .join(' '),
      f.ranking.join(' '),
      f.objective,
      f.converged,
      f.uncertainReasons.join('; '),
      f.startsTried,
      f.distinctOptima,
      f.orientation,
      f.orientationByRule,
      f.positionEffectDetected,
      f.positionEffectP,
      f.underdetermined,
      f.caveats.join('; '),
    ]);
  }
  return out;
}

const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '_');

export function exportMoi(input: { runId: number; spec: MoiSpec; items: readonly RunItem[]; experimentName: string; format: string }, metrics: () => MoiMetrics): ExportedFile {
  const base = safe(`${input.experimentName}-run${input.runId}`);
  const csv = (name: string, text: string): ExportedFile => ({ name: `${base}-${name}.csv`, mediaType: 'text/csv', text });
  const tex = (name: string, text: string): ExportedFile => ({ name: `${base}-${name}.tex`, mediaType: 'application/x-tex', text });
  const g = () => metrics().generator;
  switch (input.format) {
    case 'table1-csv':
      return csv('table1', tableCsv(metrics().table1));
    case 'table1-latex':
      return tex('table1', tableLatex(metrics().table1, `Answer quality of each ranking fed to ${g()} (MoI, Lee et al.; Table 1 layout).`, 'tab:moi-table1'));
    case 'table7-csv':
      return csv('table7', tableCsv(metrics().table7));
    case 'table7-latex':
      return tex('table7', tableLatex(metrics().table7, 'MRR of the gold passage and answer quality (queries with a gold passage; Table 7 layout).', 'tab:moi-table7'));
    case 'table8-csv':
      return csv('table8', tableCsv(metrics().table8));
    case 'table8-latex':
      return tex('table8', tableLatex(metrics().table8, 'Answer quality with the order reversed (Table 8 layout).', 'tab:moi-table8'));
    case 'fig6-csv':
      return csv('fig6-position-bias', fig6Csv(metrics()));
    case 'costs-csv':
      return csv('calls', costsCsv(metrics()));
    case 'per-query-csv':
      return csv('per-query', perQueryCsv(input.items));
    case 'permutations-csv':
      return csv('permutations', permutationsCsv(input.items));
    case 'fits-csv':
      return csv('fits', fitsCsv(input.items));
    case 'fits-json':
      return { name: `${base}-fits.json`, mediaType: 'application/json', text: `${JSON.stringify(fitsJson(input.items), null, 2)}\n` };
    case 'metrics-json':
      return { name: `${base}-metrics.json`, mediaType: 'application/json', text: `${JSON.stringify(metrics(), null, 2)}\n` };
    default:
      throw new DataError(`MoI runs have no export format '${input.format}'`, { field: 'format' });
  }
}
