/**
 * A measure's column header on the Results screen (issue 34 item 5): a count measure (NumRet,
 * NumRel, NumQ, …: trec_eval prints their sum) is shown as its per-query mean, as its interval and
 * paired test are, and its header says so — the same header as the CSV, table and LaTeX exports
 * (src-main/services/evaluation/irEvaluation.ts meanHeader).
 */
export function measureLabel(measure: string, countMeasures: readonly string[] | undefined): string {
  return (countMeasures ?? []).includes(measure) ? `${measure} (mean per query)` : measure;
}
