/**
 * Export files of a RichRAG run (the service adds the reproducibility manifest to each):
 *
 *   tables-csv         Table 1 and Table 3 in long form: table, condition, framework, setting, measure,
 *                      queries, mean, delta vs baseline, p, corrected p, significant (RFC 4180, full precision)
 *   per-query-csv      one row per query × condition with every measure (empty = n/a)
 *   latex-table1       Table 1 as booktabs (io/latex): conditions × F1 R2 RL CR2 CRL, best in bold,
 *   latex-table3       Table 3 likewise (MAP, nDCG@c, NCOM); † / ‡ = corrected p ≤ α / ≤ 0.01 vs the baseline
 *   preferences-jsonl  US³ DPO pairs {prompt, chosen, rejected} (preferences.ts)
 *   sft-jsonl          silver lists {prompt, completion} (preferences.ts)
 *                      (both: prompts fitted to the ranker's token budget, counted by its tokenizer;
 *                      the manifest's export.promptBudget says how)
 *   metrics-json       everything `richrag.metrics` returns
 */
import type { RichRagMetrics, RichRagSpec, RichRagTable } from '../../api/contract/richrag';
import { DataError } from '../../core/errors';
import { formatBooktabsTable } from '../../io/latex/booktabs';
import { csvField } from '../../io/measureCsv';
import type { RunItem } from '../../store/experimentsRepo';
import type { ExperimentDeps, ExportedFile } from '../registry';
import { indexRunItems } from './items';
import { jsonl, preferenceExport, sftExport, type TrainingExport } from './preferences';
import type { TokenizeFn } from './promptBudget';

export interface RichRagExportInput {
  runId: number;
  spec: RichRagSpec;
  items: readonly RunItem[];
  experimentName: string;
  format: string;
}

const csvLine = (fields: (string | number | boolean | null | undefined)[]) =>
  fields.map((v) => (v === null || v === undefined ? '' : typeof v === 'number' ? (Number.isFinite(v) ? String(v) : '') : csvField(String(v)))).join(',') + '\r\n';

export function tablesCsv(metrics: RichRagMetrics): string {
  let out = csvLine(['table', 'condition', 'framework', 'setting', 'measure', 'queries', 'mean', 'delta_vs_baseline', 'p_value', 'p_adjusted', 'significant', 'baseline', 'test', 'correction']);
  for (const [name, table] of [
    ['table1', metrics.table1],
    ['table3', metrics.table3],
  ] as const) {
    for (const row of table.rows) {
      for (const m of table.measures) {
        const c = row.cells[m]!;
        out += csvLine([name, row.condition, row.framework, row.setting, m, c.n, c.mean, c.delta, c.pValue, c.pAdjusted, c.pValue === null ? null : c.significant, table.baseline, table.test, table.correction]);
      }
    }
  }
  return out;
}

export function perQueryCsv(metrics: RichRagMetrics): string {
  const measures = [...new Set(metrics.perQuery.flatMap((r) => Object.keys(r.values)))];
  const info = new Map(metrics.conditions.map((c) => [c.condition, c]));
  let out = csvLine(['query_id', 'condition', 'framework', 'setting', ...measures]);
  for (const r of metrics.perQuery) {
    const c = info.get(r.condition)!;
    out += csvLine([r.queryId, r.condition, c.framework, c.setting, ...measures.map((m) => r.values[m] ?? null)]);
  }
  return out;
}

export function tableLatex(table: RichRagTable, caption: string, label: string): string {
  const baseline = table.rows.findIndex((r) => r.condition === table.baseline);
  return formatBooktabsTable({
    systems: table.rows.map((r) => r.condition),
    columns: table.measures.map((m) => ({ label: m })),
    values: table.rows.map((r) => table.measures.map((m) => r.cells[m]!.mean)),
    digits: 4,
    caption,
    label,
    systemHeader: 'Condition',
    ...(baseline >= 0
      ? {
          significance: {
            markers: { style: 'baseline' as const, baseline, pValues: table.rows.map((r) => table.measures.map((m) => r.cells[m]!.pAdjusted)) },
            test: table.test,
            correction: table.correction,
            alpha: table.alpha,
          },
        }
      : {}),
  });
}

/**
 * A JSONL file of training records whose prompts are fitted to the training budget (promptBudget.ts
 * trainingBudget) in the ranker's tokens, by its engine's tokenizer: the manifest gets the budget as
 * applied (`promptBudget`: unit 'tokens', or 'estimated tokens' with the method and reason where no
 * tokenizer answered), and a warning when prompts were cut or the counts were an estimate.
 */
async function trainingFile(
  name: string,
  what: string,
  build: (tokenize: TokenizeFn | undefined) => Promise<TrainingExport<object>>,
  deps: Pick<ExperimentDeps, 'engineFor' | 'resolveGenerator'> | undefined,
  spec: RichRagSpec,
): Promise<ExportedFile> {
  let tokenize: TokenizeFn | undefined;
  if (deps) {
    const engine = deps.engineFor(deps.resolveGenerator(spec.ranker.generator ?? spec.generator, spec.ranker.generator ? 'ranker.generator' : 'generator'));
    tokenize = (r) => engine.tokenize(r);
  }
  const out = await build(tokenize);
  const b = out.budget;
  const warnings: string[] = [];
  if (b && b.unit === 'estimated tokens') warnings.push(`the ${what}' prompts were budgeted by an estimate of the ranker's tokens (${b.estimate?.reason ?? 'no tokenizer answered'}): an upper bound, so candidates' texts may be cut more than needed; see export.promptBudget`);
  if (out.promptsCut > 0) warnings.push(`${out.promptsCut} of ${out.prompts} training prompts had their candidates' texts cut to fit the ranker's token budget of ${b?.total} (${b?.origin}); the question, aspects and ids were kept`);
  return {
    name,
    mediaType: 'application/jsonl',
    text: jsonl(out.records),
    manifest: {
      records: out.records.length,
      promptBudget: b
        ? { ...b, promptsCut: out.promptsCut, applies: `each record's prompt (one per training query: ${out.prompts}) in the ranker's tokens; its completion is left free` }
        : { unit: 'none', total: null, origin: 'not counted (the export was made without an engine)', promptsCut: 0 },
    },
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * `deps` gives the ranker's engine, whose tokenizer counts the training records' prompts (the
 * training formats are then asynchronous); without it (pure tests) their prompts are not budgeted,
 * and the file's manifest says so.
 */
export function exportRichRag(input: RichRagExportInput, metrics: () => RichRagMetrics, deps?: Pick<ExperimentDeps, 'engineFor' | 'resolveGenerator'>): ExportedFile | Promise<ExportedFile> {
  const base = `${input.experimentName}-run${input.runId}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  switch (input.format) {
    case 'tables-csv':
      return { name: `${base}.tables.csv`, mediaType: 'text/csv', text: tablesCsv(metrics()) };
    case 'per-query-csv':
      return { name: `${base}.per-query.csv`, mediaType: 'text/csv', text: perQueryCsv(metrics()) };
    case 'latex-table1': {
      const m = metrics();
      const caption = `Answer quality of every framework over ${plural(m.queries.length, 'query', 'queries')} (k = ${m.k}, generator ${m.generator}); F1: SQuAD F1, R2/RL: ROUGE F, CR2/CRL: com-rouge (RichRAG Table 1).`;
      return { name: `${base}.table1.tex`, mediaType: 'application/x-tex', text: tableLatex(m.table1, caption, 'tab:richrag-table1') };
    }
    case 'latex-table3': {
      const m = metrics();
      const caption = `Ranking quality of the top ${m.k} over ${plural(m.queries.length, 'query', 'queries')} (RichRAG Table 3). Relevance: ${m.relevance}.${m.table3.departure ? ` ${m.table3.departure}` : ''}`;
      return { name: `${base}.table3.tex`, mediaType: 'application/x-tex', text: tableLatex(m.table3, caption, 'tab:richrag-table3') };
    }
    case 'preferences-jsonl':
      if (!input.spec.preferences.enabled) throw new DataError('this run made no preference data (preferences.enabled is false)', { field: 'format' });
      return trainingFile(`${base}.preferences.jsonl`, 'preference pairs', (tokenize) => preferenceExport(input.spec, indexRunItems(input.items), tokenize), deps, input.spec);
    case 'sft-jsonl':
      return trainingFile(`${base}.sft.jsonl`, 'SFT records', (tokenize) => sftExport(input.spec, indexRunItems(input.items), tokenize), deps, input.spec);
    case 'metrics-json':
      return { name: `${base}.metrics.json`, mediaType: 'application/json', text: `${JSON.stringify(metrics(), null, 2)}\n` };
    default:
      throw new DataError(`unknown export format '${input.format}' for a RichRAG run`, { field: 'format' });
  }
}
