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

export { designWarningNote, storedDesignWarnings } from '../core/format/designWarning';
