import { describe, expect, it } from 'vitest';
import { LinkedSignal } from '../../../src-main/engine/remote/linkedSignal';

describe('LinkedSignal', () => {
  it('aborts with any source, and lets go of its sources on dispose', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = new LinkedSignal(a.signal, undefined, b.signal);
    b.abort('why');
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toBe('why');

    const other = new LinkedSignal(a.signal);
    other.dispose();
    a.abort();
    expect(other.signal.aborted).toBe(false);
  });

  it('starts aborted when a source already is', () => {
    expect(new LinkedSignal(AbortSignal.abort('done')).signal.reason).toBe('done');
  });
});
