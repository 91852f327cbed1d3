/**
 * What a MoI fit's checks say, in the words the run view, Table 1, Fig. 6 and the drill-down show
 * (issue 23 item 1: a fit that is uncertain, oriented by a rule or shows no position effect says so
 * where its numbers are shown).
 */
import type { MoiMetrics, MoiQueryDetail } from '$contract';

type Certificate = { reasons: string[]; distinctOptima: number; startsTried: number; exactFit: boolean };
type PositionEffect = { detected: boolean; pValue: number | null; method: string };
type Fit = { converged?: boolean | null | undefined; orientation: string | null; certificate?: Certificate | null | undefined; positionEffect?: PositionEffect | null | undefined; orientationByRule?: boolean | null | undefined; fixedA?: unknown };

export const NO_EFFECT = 'no position effect detected';
export const BY_RULE = 'orientation chosen by the rule, not the data';

const optima = (c: Certificate) => `${c.distinctOptima} distinct optim${c.distinctOptima === 1 ? 'um' : 'a'} among ${c.startsTried} start${c.startsTried === 1 ? '' : 's'}`;

/** "certified (exact fit; 1 distinct optimum among 4 starts)" or "not certified: <why>; 3 distinct optima among 32 starts". */
export function certificateText(fit: Fit): string {
  if (fit.converged === null || fit.converged === undefined) return '–';
  const c = fit.certificate;
  if (fit.converged) return c ? `certified (${c.exactFit ? 'exact fit; ' : ''}${optima(c)})` : 'converged';
  if (!c) return 'not certified: iteration cap reached';
  return `not certified: ${c.reasons.join('; ') || 'the checks failed'}; ${optima(c)}`;
}

/** "detected (p = 0.001, F-test)", "no position effect detected (p = 0.43)" or "–" (a held fixed, or a run before the test). */
export function positionEffectText(pe: PositionEffect | null | undefined): string {
  if (!pe) return '–';
  const p = pe.pValue === null ? '' : `p = ${pe.pValue < 1e-4 ? pe.pValue.toExponential(1) : pe.pValue.toFixed(3)}`;
  if (pe.detected) return `detected${p ? ` (${p}, ${pe.method})` : ''}`;
  return `${NO_EFFECT}${p ? ` (${p})` : ''}`;
}

/** The orientation with who decided it: "kept (orientation chosen by the rule, not the data)", "identified (by the data)". */
export function orientationText(fit: Fit, rule?: string): string {
  if (!fit.orientation) return '–';
  const byRule = fit.orientationByRule ?? (fit.orientation === 'kept' || fit.orientation === 'mirrored');
  if (byRule) return `${fit.orientation} (${BY_RULE}${rule ? ` '${rule}'` : ''})`;
  if (fit.orientation === 'identified') return 'identified (by the data: prefix-pruned prompts)';
  if (fit.orientation === 'fixed') return 'fixed (a held fixed)';
  return fit.orientation;
}

/** One line per kind of caveat over the run's fits, for the run view and the figure (empty: every fit certified, oriented by the data, with an effect). */
export function runFitSummary(queries: MoiMetrics['queries']): { certified: string; lines: string[] } {
  const fits = queries.filter((q) => q.converged !== null && q.converged !== undefined);
  const certified = fits.filter((q) => q.converged);
  const maxOptima = Math.max(0, ...fits.map((q) => q.certificate?.distinctOptima ?? 0));
  const lines: string[] = [];
  const uncertified = fits.filter((q) => !q.converged);
  if (uncertified.length > 0) lines.push(`${uncertified.length} of ${fits.length} fits not certified (${uncertified.map((q) => `${q.queryId}: ${certificateText(q).replace(/^not certified: /, '')}`).join(' · ')})`);
  const byRule = fits.filter((q) => q.orientationByRule ?? (q.orientation === 'kept' || q.orientation === 'mirrored'));
  if (byRule.length > 0) lines.push(`${BY_RULE} in ${byRule.length} of ${fits.length} fits (full-length prompts fit a curve and its mirror equally; prefix-pruned prompts let the data decide)`);
  const noEffect = fits.filter((q) => q.positionEffect && !q.positionEffect.detected);
  if (noEffect.length > 0) lines.push(`${NO_EFFECT} in ${noEffect.length} of ${fits.length} fits (${noEffect.map((q) => q.queryId).join(', ')}): a is indistinguishable from uniform, so u is not identified beyond its mean and the curve is left out of Fig. 6`);
  return {
    certified: `${certified.length} of ${fits.length} fits certified${maxOptima > 0 ? `; at most ${maxOptima} distinct optim${maxOptima === 1 ? 'um' : 'a'} among the starts` : ''}`,
    lines,
  };
}

export type DetailFit = NonNullable<MoiQueryDetail['fit']>;
