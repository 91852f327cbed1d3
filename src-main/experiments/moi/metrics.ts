/**
 * All metrics of a MoI run as plain data (pure: stored items + spec → tables and figure data):
 * Table 1 (methods × answer quality, paired tests against the retriever, Holm), Table 7 (MRR of the
 * gold passage vs answer quality, gold-at-j rows), Table 8 (reversed orders), Fig. 6 (mean position
 * bias a_j per position with the uniform 1/L line), calls and tokens per method (planned from the
 * spec vs executed from the items), and one summary row per query for the drill-down list.
 */
import type { MoiMetrics, MoiSpec } from '../../api/contract/moi';
import type { RunItem } from '../../store/experimentsRepo';
import { fitCaveats, fitChecks, indexRunItems, orientationByRule, type FitPayload, type MoiRunData } from './items';
import { methodLabel } from './plan';
import { buildTable, methodValue } from './tables';

export interface MoiMetricsInput {
  runId: number;
  spec: MoiSpec;
  items: readonly RunItem[];
  finished: boolean;
  generatorName: string;
  experimentName?: string;
  /** Queries the run skipped (from the run's stats). */
  skipped?: { queryId: string; reason: string }[];
}

const TABLE7_METHODS = ['retriever', 'bayes-saliency', 'bayes-saliency-plus', 'qg', 'longllmlingua', 'longllmlingua-code', 'moi'];
const TABLE8_METHODS = ['random', 'retriever', 'retriever-reversed', 'moi', 'moi-reversed'];

/** Methods present in the run, in the table order the plans used (gold rows last, by position). */
export function methodsOf(data: MoiRunData): string[] {
  const seen: string[] = [];
  for (const q of data.queries.values()) for (const m of q.methods) if (!seen.includes(m)) seen.push(m);
  const gold = seen.filter((m) => m.startsWith('gold@')).sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  return [...seen.filter((m) => !m.startsWith('gold@')), ...gold];
}

/** Measures in order of first appearance (primary metrics first, then extras). */
function measuresOf(data: MoiRunData): string[] {
  const out: string[] = [];
  for (const q of data.queries.values()) if (q.metrics[0] && !out.includes(q.metrics[0])) out.push(q.metrics[0]);
  for (const q of data.queries.values()) for (const m of q.metrics) if (!out.includes(m)) out.push(m);
  return out;
}

export function moiMetrics(input: MoiMetricsInput): MoiMetrics {
  const { spec } = input;
  const data = indexRunItems(input.items);
  const qids = [...data.queries.keys()].sort();
  const methods = methodsOf(data);
  const measures = measuresOf(data);
  const queriesWith = (measure: string) => qids.filter((q) => data.queries.get(q)!.metrics.includes(measure));
  const withGold = qids.filter((q) => data.queries.get(q)!.passages.some((p) => p.gold === true));
  const warnings: string[] = [];

  const table1 = buildTable(
    data,
    spec,
    methods.filter((m) => !m.startsWith('gold@') && !m.endsWith('-reversed')),
    measures,
    queriesWith,
    'Mean answer quality per method; a query counts towards its own metric and the extra metrics. Random: mean over the self-consistency answers.',
  );
  const table7 = buildTable(
    data,
    spec,
    [...TABLE7_METHODS.filter((m) => methods.includes(m)), ...methods.filter((m) => m.startsWith('gold@'))],
    ['MRR', ...measures],
    (measure) => (measure === 'MRR' ? withGold : queriesWith(measure).filter((q) => withGold.includes(q))),
    'Queries with a gold passage among the N; MRR = mean 1/rank of the first gold passage in the order fed to the generator; "Gold at j-th" moves the first gold passage to position j, the others in retriever order.',
  );
  const table8 = buildTable(data, spec, TABLE8_METHODS.filter((m) => methods.includes(m)), measures, queriesWith, 'Reversing the order fed to the generator (the retriever’s and MoI’s).');

  const incomplete = !input.finished || qids.length === 0 || qids.some((q) => data.queries.get(q)!.methods.some((m) => !data.methods.get(q)?.has(m)));
  const inexact = [...data.perms.values()].reduce((a, m) => a + [...m.values()].filter((p) => !p.exactAlignment).length, 0);
  if (inexact > 0) warnings.push(`${inexact} scored ordering(s) had token texts that did not spell the prompt exactly: their passage/question split was estimated`);
  const under = qids.filter((q) => data.fits.get(q)?.underdetermined).length;
  if (under > 0) warnings.push(`${under} of ${qids.length} MoI fits are underdetermined (notes §2.3 (iv): cyclic and pruned sets need a fixed a from a calibration run)`);
  const fitNotes = fitSummary(qids.map((q) => data.fits.get(q)).filter((f): f is FitPayload => f !== undefined));
  warnings.push(...fitNotes);
  if (fitNotes.length > 0) table1.note = `${table1.note} MoI fits: ${fitNotes.join('; ')}.`;
  const firstQuery = data.queries.get(qids[0] ?? '');
  return {
    kind: 'moi',
    runId: input.runId,
    generator: input.generatorName,
    agent: spec.agent ? selectorName(spec.agent) : input.generatorName,
    n: spec.n,
    permutationSet: firstQuery ? `${spec.permutations.set} (${firstQuery.set.permutations.length} prompts of ${firstQuery.set.length} passages for N = ${firstQuery.passages.length})` : spec.permutations.set,
    methods: methods.map((m) => ({ method: m, label: methodLabel(m) })),
    table1,
    table7,
    table8,
    fig6: fig6(data, warnings),
    costs: costs(data, methods),
    queries: qids.map((qid) => {
      const q = data.queries.get(qid)!;
      const fit = data.fits.get(qid);
      const metric = q.metrics[0]!;
      return {
        queryId: qid,
        text: q.text,
        n: q.passages.length,
        permutations: q.set.permutations.length,
        gold: q.passages.some((p) => p.gold !== null) ? q.passages.filter((p) => p.gold).length : null,
        orientation: fit?.orientation ?? null,
        underdetermined: fit?.underdetermined ?? null,
        converged: fit ? fit.converged : null,
        caveats: fit ? fitCaveats(fit) : [],
        ...(fit ? fitChecks(fit) : { certificate: null, positionEffect: null }),
        orientationByRule: fit ? orientationByRule(fit) : null,
        retrieverTau: fit?.retrieverTau ?? null,
        metric,
        values: Object.fromEntries(q.methods.map((m) => [m, methodValue(data, qid, m, metric)])),
        complete: q.methods.every((m) => data.methods.get(qid)?.has(m)),
      };
    }),
    skipped: input.skipped ?? [],
    warnings,
    incomplete,
  };
}

function selectorName(s: NonNullable<MoiSpec['agent']>): string {
  if ('model' in s) return s.model;
  if ('remote' in s) return s.remote;
  return s.kind === 'local' ? `model ${s.modelId}` : `server ${s.endpointId}`;
}

/**
 * Uncertainty of the run's fits, one phrase each (issue 23): fits not certified, orientation chosen by
 * the rule (full-length prompts), no position effect detected. Empty when every fit is certified,
 * oriented by the data and shows a position effect.
 */
export function fitSummary(fits: readonly FitPayload[]): string[] {
  const out: string[] = [];
  const n = fits.length;
  const uncertified = fits.filter((f) => !f.converged);
  if (uncertified.length > 0) {
    const optima = Math.max(...uncertified.map((f) => f.certificate?.distinctOptima ?? 1));
    out.push(`${uncertified.length} of ${n} fits not certified (${[...new Set(uncertified.flatMap((f) => f.certificate?.codes ?? ['iteration-cap']))].join(', ')}; up to ${optima} distinct optima among the starts)`);
  }
  const byRule = fits.filter((f) => orientationByRule(f));
  if (byRule.length > 0) {
    out.push(`orientation of ${byRule.length} of ${n} fits set by the rule '${byRule[0]!.orientationRule}', not by the data (full-length prompts fit a curve and its mirror equally; prefix-pruned prompts identify it)`);
  }
  const noEffect = fits.filter((f) => f.positionEffect && !f.positionEffect.detected);
  if (noEffect.length > 0) out.push(`no position effect detected in ${noEffect.length} of ${n} fits (a indistinguishable from uniform; their curves are left out of Fig. 6)`);
  return out;
}

/** Fig. 6: mean a_j per position over the queries' estimated fits, grouped by prompt length L; fits without a detected position effect are left out (and counted in the notes). */
export function fig6(data: MoiRunData, warnings: string[] = []): MoiMetrics['fig6'] {
  const byLength = new Map<number, FitPayload[]>();
  let fixed = 0;
  for (const f of data.fits.values()) {
    if (f.fixedA) {
      fixed++;
      continue;
    }
    let list = byLength.get(f.a.length);
    if (!list) byLength.set(f.a.length, (list = []));
    list.push(f);
  }
  if (fixed > 0) warnings.push(`${fixed} fit(s) held a fixed; Fig. 6 averages the estimated profiles only`);
  return [...byLength.entries()]
    .sort(([a], [b]) => a - b)
    .map(([length, fits]) => [length, fits.filter((f) => !f.positionEffect || f.positionEffect.detected).map((f) => f.a), fitSummary(fits)] as const)
    .map(([length, as, notes]) => ({
      length,
      queries: as.length,
      uniform: 1 / length,
      notes: as.length === 0 ? ['no position effect detected: no curve to draw', ...notes] : notes,
      positions: as.length === 0 ? [] : Array.from({ length }, (_, j) => {
        const v = as.map((a) => a[j]!);
        const mean = v.reduce((x, y) => x + y, 0) / v.length;
        const sd = v.length > 1 ? Math.sqrt(v.reduce((x, y) => x + (y - mean) ** 2, 0) / (v.length - 1)) : null;
        return { position: j + 1, mean, sd, min: Math.min(...v), max: Math.max(...v) };
      }),
    }));
}

/** Calls and tokens per method: planned (spec formulas) and executed (items), summed over queries. */
export function costs(data: MoiRunData, methods: readonly string[]): MoiMetrics['costs'] {
  return methods.map((method) => {
    const planned = { scorePasses: 0, scoreRequests: 0, generations: 0 };
    const executed = { scorePasses: 0, scoreRequests: 0, generations: 0, scoredTokens: 0, generationPromptTokens: 0, completionTokens: 0 };
    let queries = 0;
    for (const byMethod of data.methods.values()) {
      const m = byMethod.get(method);
      if (!m) continue;
      queries++;
      for (const k of Object.keys(planned) as (keyof typeof planned)[]) planned[k] += m.planned[k];
      for (const k of Object.keys(executed) as (keyof typeof executed)[]) executed[k] += m.cost[k];
    }
    const per = (v: number) => (queries ? v / queries : 0);
    return {
      method,
      label: methodLabel(method),
      queries,
      planned,
      executed,
      perQuery: { scorePasses: per(executed.scorePasses), generations: per(executed.generations), tokens: per(executed.scoredTokens + executed.generationPromptTokens + executed.completionTokens) },
    };
  });
}
