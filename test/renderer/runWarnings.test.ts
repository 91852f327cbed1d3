/**
 * Issue 34: a run started by `fairground run` stores its design warnings and lists them in its
 * metrics' notes; the run page also computes them live. Each is shown once: the stored ones in the
 * design box (what held when the run ran), not again among the notes.
 */
import { describe, expect, it } from 'vitest';
import { designWarningNote as mainNote } from '../../src-main/experiments/designWarningText';
import { designWarningNote, runPageWarnings } from '../../src-renderer/src/screens/experiments/runWarnings';

const k = { code: 'k-covers-candidates', field: 'k', message: 'k = 5 is at least the number of candidates of every query (4–5).', fix: 'choose k below 4' };
const n = { code: 'samples-too-few', field: 'samples', message: 'N = 3 samples per arm cannot separate α = 0 from α = 8.', fix: 'raise samples to at least 216' };

describe('runPageWarnings', () => {
  it('writes a note exactly as the run records it', () => {
    expect(designWarningNote(k)).toBe(mainNote(k));
    expect(designWarningNote(k)).toBe('design warning [k-covers-candidates, k]: k = 5 is at least the number of candidates of every query (4–5). Fix: choose k below 4');
    expect(designWarningNote({ code: 'x', message: 'm.', fix: 'f' })).toBe(mainNote({ code: 'x', message: 'm.', fix: 'f' }));
  });

  it('shows a CLI-started run’s stored warnings once, in the design box', () => {
    const notes = [designWarningNote(k), '2 queries were skipped', designWarningNote(n)];
    const shown = runPageWarnings({ designWarnings: [k, n] }, [k, n], notes);
    expect(shown.design).toEqual([k, n]);
    expect(shown.notes).toEqual(['2 queries were skipped']);
  });

  it('keeps what held when the run ran: stored warnings over live ones, and none when it recorded none', () => {
    // The collection changed since: live finds n only; the run recorded k.
    expect(runPageWarnings({ designWarnings: [k] }, [n], [designWarningNote(k)])).toEqual({ design: [k], notes: [] });
    expect(runPageWarnings({ designWarnings: [] }, [n], ['a note'])).toEqual({ design: [], notes: ['a note'] });
  });

  it('uses the live warnings for a run started from the app (nothing stored), and drops repeated notes', () => {
    expect(runPageWarnings({ queries: 4 }, [n], ['a', 'a', 'b'])).toEqual({ design: [n], notes: ['a', 'b'] });
  });
});
