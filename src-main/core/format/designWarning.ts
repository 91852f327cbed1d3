/**
 * A design warning stored with a run, one wording for the main side (metrics, manifest,
 * src-main/experiments/designWarningText.ts) and the run page (src-renderer runWarnings.ts), so the
 * page recognises the notes the metrics list (issue 34 item 6). Structural: no contract import.
 */
export interface DesignWarningLike {
  code: string;
  field?: string | undefined;
  message: string;
  fix: string;
}

/** One design warning as a run's metrics and manifest list it. */
export function designWarningNote(w: DesignWarningLike): string {
  return `design warning [${w.code}${w.field ? `, ${w.field}` : ''}]: ${w.message} Fix: ${w.fix}`;
}

/** The design warnings stored with a run (`stats.designWarnings`), well-formed ones only. */
export function storedDesignWarnings(stats: Record<string, unknown>): DesignWarningLike[] {
  const list = stats.designWarnings;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (w): w is DesignWarningLike =>
      typeof w === 'object' && w !== null && typeof (w as DesignWarningLike).code === 'string' && typeof (w as DesignWarningLike).message === 'string' && typeof (w as DesignWarningLike).fix === 'string',
  );
}
