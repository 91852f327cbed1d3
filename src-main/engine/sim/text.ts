/** Text helpers of the simulated reader: normalisation, words, hashing to [0, 1), the sim's tokens. */
import { createHash } from 'node:crypto';

/** Lower case, whitespace collapsed, trimmed: how answers are compared. */
export function normalise(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Whitespace runs collapsed to one space (documents are found in a prompt on this form). */
export function squash(text: string): string {
  return text.replace(/\s+/g, ' ');
}

/** Lower-case words of letters and digits. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A deterministic number in [0, 1) from the parts (SHA-256 of their join). */
export function unit(...parts: (string | number)[]): number {
  const h = createHash('sha256').update(parts.join('\u0000')).digest();
  return h.readUIntBE(0, 6) / 2 ** 48;
}

/** A deterministic standard normal draw (Box-Muller over two `unit` draws). */
export function gaussian(...parts: (string | number)[]): number {
  const u1 = Math.max(unit(...parts, 'g1'), 1e-300);
  const u2 = unit(...parts, 'g2');
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * The simulated reader's tokens: maximal runs of whitespace and of non-whitespace, so the token texts
 * concatenate to the text exactly. `cuts` (character offsets) split tokens further.
 */
export function simTokens(text: string, cuts: readonly number[] = []): { text: string; start: number }[] {
  const out: { text: string; start: number }[] = [];
  const sortedCuts = [...new Set(cuts)].filter((c) => c > 0 && c < text.length).sort((a, b) => a - b);
  const re = /\s+|\S+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    let start = m.index;
    const end = start + m[0].length;
    for (const c of sortedCuts) {
      if (c > start && c < end) {
        out.push({ text: text.slice(start, c), start });
        start = c;
      }
    }
    out.push({ text: text.slice(start, end), start });
  }
  return out;
}
