/**
 * The warnings a run page shows, each once (issue 34). A run started by `fairground run` stores its
 * design warnings (`stats.designWarnings`) and its metrics list them again as notes
 * ("design warning [code, field]: message Fix: fix"); the page also computed them live from the
 * spec. The design box shows the stored ones — what held when the run ran — and only a run without
 * them (started from the app) gets the live ones; the notes list leaves out every note that is one of
 * the design warnings in the box.
 */
/** A design warning as the contract has it (plans.ts DesignWarning), structurally (tests import this module from the root project). */
export interface DesignWarning {
  code: string;
  field?: string | undefined;
  message: string;
  fix: string;
}

/** One design warning as a run's metrics and manifest list it (the same text as src-main/experiments/designWarningText.ts). */
export function designWarningNote(w: DesignWarning): string {
  return `design warning [${w.code}${w.field ? `, ${w.field}` : ''}]: ${w.message} Fix: ${w.fix}`;
}

/** The design warnings stored with a run (its stats), well-formed ones only. */
export function storedDesignWarnings(stats: Record<string, unknown>): DesignWarning[] {
  const list = stats.designWarnings;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (w): w is DesignWarning =>
      typeof w === 'object' && w !== null && typeof (w as DesignWarning).code === 'string' && typeof (w as DesignWarning).message === 'string' && typeof (w as DesignWarning).fix === 'string',
  );
}

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
