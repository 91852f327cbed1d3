/**
 * Issue 26 item 5: CSV headers are ASCII by default (the renderer's table downloads wrote
 * `EE-D̄_mean`, a D followed by U+0304, which pandas and R keep as an awkward column name), and the
 * screens' names stay available with `headers: 'unicode'`. Normalised measures keep a distinct name
 * (`EE-D_norm_mean`), so they never collide with the raw ones.
 */
import { describe, expect, it } from 'vitest';
import { asciiHeader, asciiHeaders, csvTable } from '../../../src-main/core/format/csv';

const ASCII = /^[\x00-\x7f]*$/;

describe('ASCII CSV headers', () => {
  it('spells the measure labels of the screens in ASCII, raw and normalised apart', () => {
    expect(asciiHeader('EE-D̄_mean')).toBe('EE-D_norm_mean');
    expect(asciiHeader('EU̅')).toBe('EU_norm');
    expect(asciiHeader('EAE-D̄_ci_lower')).toBe('EAE-D_norm_ci_lower');
    expect(asciiHeader('p (Holm) α=0.05 ≤ φ')).toBe('p (Holm) alpha=0.05 <= phi');
    expect(asciiHeader('Δ nDCG − café')).toBe('Delta nDCG - cafe');
    expect(asciiHeader('中')).toBe('_');
    expect(asciiHeader('nDCG@10')).toBe('nDCG@10');
    // The Fair RAG screens' measure labels (src-renderer/…/fair-rag/types.ts MEASURE_LABELS).
    const labels = ['EE-D', 'EE-R', 'EE-L', 'EE-D̄', 'EE-R̄', 'EE-L̄', 'EU', 'EU (raw)', 'EU̅', 'EAR', 'EAE-D', 'EAE-D̄'];
    const ascii = asciiHeaders(labels);
    for (const h of ascii) expect(h).toMatch(ASCII);
    expect(new Set(ascii).size).toBe(labels.length);
    expect(ascii).toEqual(['EE-D', 'EE-R', 'EE-L', 'EE-D_norm', 'EE-R_norm', 'EE-L_norm', 'EU', 'EU (raw)', 'EU_norm', 'EAR', 'EAE-D', 'EAE-D_norm']);
  });

  it('names that become equal are numbered, none is lost', () => {
    expect(asciiHeaders(['a中', 'a日', 'a_'])).toEqual(['a_', 'a__2', 'a__3']);
  });

  it('csvTable writes ASCII headers by default and the screen names on request; values are never changed', () => {
    const header = ['condition', 'EE-D̄_mean', 'EE-D_mean'];
    const rows = [['α=2', 0.25, 0.5]];
    const text = csvTable(header, rows);
    expect(text).toBe('condition,EE-D_norm_mean,EE-D_mean\nα=2,0.25,0.5\n');
    expect(text.split('\n')[0]).toMatch(ASCII);
    expect(csvTable(header, rows, { headers: 'unicode' })).toBe('condition,EE-D̄_mean,EE-D_mean\nα=2,0.25,0.5\n');
  });
});
