/**
 * The one wording of a design warning (issue 34 item 6) for `run --dry-run`, a headless `run` (on
 * stderr before anything is computed) and the run's stored warnings (metrics, manifest): the
 * wizard's review step shows the same `message` and `fix` (contract/plans.ts DesignWarning).
 */
import type { DesignWarning } from '../api/contract/plans';

/** The two lines `run --dry-run` and `run` print: "warning [code, field]: message" and "  fix: fix". */
export function designWarningLines(w: DesignWarning): [string, string] {
  return [`warning [${w.code}${w.field ? `, ${w.field}` : ''}]: ${w.message}`, `  fix: ${w.fix}`];
}

/** The same as one line, as a run's metrics and manifest list it. */
export function designWarningNote(w: DesignWarning): string {
  return `design warning [${w.code}${w.field ? `, ${w.field}` : ''}]: ${w.message} Fix: ${w.fix}`;
}

/** The design warnings stored with a run (`stats.designWarnings`), well-formed ones only. */
export function storedDesignWarnings(stats: Record<string, unknown>): DesignWarning[] {
  const list = stats.designWarnings;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (w): w is DesignWarning =>
      typeof w === 'object' && w !== null && typeof (w as DesignWarning).code === 'string' && typeof (w as DesignWarning).message === 'string' && typeof (w as DesignWarning).fix === 'string',
  );
}
