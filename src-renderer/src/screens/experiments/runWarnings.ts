/**
 * The warnings a run page shows, each once (issue 34). A run started by `fairground run` stores its
 * design warnings (`stats.designWarnings`) and its metrics list them again as notes
 * ("design warning [code, field]: message Fix: fix"); the page also computed them live from the
 * spec. The design box shows the stored ones — what held when the run ran — and only a run without
 * them (started from the app) gets the live ones; the notes list leaves out every note that is one of
 * the design warnings in the box.
 */
import { designWarningNote, storedDesignWarnings, type DesignWarningLike as DesignWarning } from '$core/format/designWarning';

export { designWarningNote };

/** What the run page shows: the design box's warnings and the other notes. */
export function runPageWarnings(stats: Record<string, unknown>, live: readonly DesignWarning[], notes: readonly string[]): { design: DesignWarning[]; notes: string[] } {
  const stored = storedDesignWarnings(stats);
  const design = stored.length > 0 || Array.isArray(stats.designWarnings) ? stored : [...live];
  const shown = new Set([...design, ...stored].map(designWarningNote));
  const seen = new Set<string>();
  return {
    design,
    notes: notes.filter((n) => {
      if (shown.has(n) || seen.has(n)) return false;
      seen.add(n);
      return true;
    }),
  };
}
