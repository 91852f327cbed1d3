/**
 * What the CLI prints after a Fair RAG run and for `experiment show` (ExperimentKind.summaryTable and
 * describeStats): one line per arm with the mean over queries of the main measures, and the
 * de-duplication and cache counters in one sentence each.
 */
import type { FairRagMetrics } from '../../api/contract/fairRag';
import { fairRagMeasureKey, type FairRagMeasureName } from '../../api/contract/fairRag';
import type { RunSummary } from '../registry';

const num = (v: number | undefined | null, digits = 4) => (v === undefined || v === null ? '-' : v.toFixed(digits));

export function fairRagSummaryTable(result: RunSummary): string {
  const metrics = result as unknown as Pick<FairRagMetrics, 'aggregates'>;
  const shown: FairRagMeasureName[] = ['EE-D_norm', 'EE-R_norm', 'EU', 'EU_norm', 'EAR', 'EAE-D_norm'];
  const cols = ['condition', 'queries', ...shown];
  const rows = metrics.aggregates.map((a) => [a.condition, String(a.queries), ...shown.map((m) => num(a.measures[fairRagMeasureKey(m)]?.mean))]);
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ') + '\n';
  return line(cols) + rows.map(line).join('');
}

export function fairRagDescribeStats(stats: Record<string, unknown>): string | undefined {
  if (!('naiveGenerations' in stats)) return undefined; // a run that stopped before its counters
  const n = (k: string) => (typeof stats[k] === 'number' ? (stats[k] as number) : 0);
  let out = `generations: ${n('distinctGenerations')} distinct prompts for ${n('naiveGenerations')} sampled rankings (${n('naiveGenerations') - n('distinctGenerations')} calls saved by de-duplication); ${n('generationsComputed')} computed, ${n('generationsFromCache')} from the call cache\n`;
  if (n('naiveJudgments') > 0) {
    out += `attribution: ${n('distinctJudgments')} distinct judgments for ${n('naiveJudgments')} retrieved items (${n('naiveJudgments') - n('distinctJudgments')} saved); ${n('judgmentsComputed')} computed, ${n('judgmentsFromCache')} from the call cache\n`;
  }
  const skipped = Array.isArray(stats.skippedQueries) ? (stats.skippedQueries as { queryId: string; reason: string }[]) : [];
  out += `queries: ${n('queries')}${skipped.length ? ` (${skipped.length} skipped: ${skipped.slice(0, 3).map((s) => `${s.queryId}: ${s.reason}`).join('; ')}${skipped.length > 3 ? '; …' : ''})` : ''}; ${(n('elapsedMs') / 1000).toFixed(1)} s\n`;
  return out;
}
