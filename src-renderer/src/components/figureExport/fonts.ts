/**
 * Text in the PDF figures uses two of the PDF standard 14 fonts (every reader has them, nothing to
 * embed): Helvetica (or Helvetica-Bold) in WinAnsiEncoding for Latin text, and Symbol for Greek
 * letters and mathematical signs (α, φ, ≥, ≤, ≠, ≈, ∞, →, …). Advance widths (1/1000 em) come from
 * the Adobe font metrics and place text anchored at its middle or end as the SVG asked.
 * A character neither font has is written as '?' (and reported by `unsupported`); zero-width
 * characters are left out; a combining macron or overline (EU̅) becomes a bar drawn over the
 * character before it.
 */

/** Helvetica widths of ASCII 32…126. */
const HELVETICA_ASCII = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722,
  278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556, 556, 333,
  500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
/** Helvetica-Bold widths of ASCII 32…126. */
const HELVETICA_BOLD_ASCII = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, 975, 722, 722, 722, 722, 667, 611, 778, 722,
  278, 556, 722, 611, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, 333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, 611, 611, 389,
  556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584,
];

/** WinAnsiEncoding codes of the characters outside Latin-1 it has (0x80…0x9F). */
const WIN_ANSI_EXTRA: Record<string, number> = {
  '€': 0x80, '‚': 0x82, 'ƒ': 0x83, '„': 0x84, '…': 0x85, '†': 0x86, '‡': 0x87, 'ˆ': 0x88, '‰': 0x89, 'Š': 0x8a, '‹': 0x8b, 'Œ': 0x8c, 'Ž': 0x8e,
  '‘': 0x91, '’': 0x92, '“': 0x93, '”': 0x94, '•': 0x95, '–': 0x96, '—': 0x97, '˜': 0x98, '™': 0x99, 'š': 0x9a, '›': 0x9b, 'œ': 0x9c, 'ž': 0x9e, 'Ÿ': 0x9f,
};
const WIN_ANSI_WIDTH: Record<number, number> = {
  0x85: 1000, 0x86: 556, 0x87: 556, 0x89: 1000, 0x91: 222, 0x92: 222, 0x93: 333, 0x94: 333, 0x95: 350, 0x96: 556, 0x97: 1000, 0x99: 1000,
  0xa0: 278, 0xb0: 400, 0xb1: 584, 0xb2: 333, 0xb3: 333, 0xb5: 556, 0xb7: 278, 0xb9: 333, 0xbc: 834, 0xbd: 834, 0xbe: 834, 0xd7: 584, 0xf7: 584,
};

/** Symbol font codes and widths of the Greek letters and signs it has. */
const SYMBOL: Record<string, [number, number]> = {
  'Α': [0x41, 722], 'Β': [0x42, 667], 'Χ': [0x43, 722], 'Δ': [0x44, 612], '∆': [0x44, 612], 'Ε': [0x45, 611], 'Φ': [0x46, 763], 'Γ': [0x47, 603], 'Η': [0x48, 722], 'Ι': [0x49, 333], 'Κ': [0x4b, 722],
  'Λ': [0x4c, 686], 'Μ': [0x4d, 889], 'Ν': [0x4e, 722], 'Ο': [0x4f, 722], 'Π': [0x50, 768], 'Θ': [0x51, 741], 'Ρ': [0x52, 556], 'Σ': [0x53, 592], 'Τ': [0x54, 611], 'Υ': [0x55, 690], 'Ω': [0x57, 768],
  'Ξ': [0x58, 645], 'Ψ': [0x59, 795], 'Ζ': [0x5a, 611],
  'α': [0x61, 631], 'β': [0x62, 549], 'χ': [0x63, 549], 'δ': [0x64, 494], 'ε': [0x65, 439], 'φ': [0x66, 521], 'γ': [0x67, 411], 'η': [0x68, 603], 'ι': [0x69, 329], 'ϕ': [0x6a, 603], 'κ': [0x6b, 549],
  'λ': [0x6c, 549], 'μ': [0x6d, 576], 'ν': [0x6e, 521], 'ο': [0x6f, 549], 'π': [0x70, 549], 'θ': [0x71, 521], 'ρ': [0x72, 549], 'σ': [0x73, 603], 'τ': [0x74, 439], 'υ': [0x75, 576], 'ω': [0x77, 686],
  'ξ': [0x78, 493], 'ψ': [0x79, 686], 'ζ': [0x7a, 494], 'ς': [0x56, 439], 'ϑ': [0x4a, 631],
  '≤': [0xa3, 549], '≥': [0xb3, 549], '≠': [0xb9, 549], '≈': [0xbb, 549], '≡': [0xba, 549], '∞': [0xa5, 713], '→': [0xae, 987], '←': [0xac, 987], '↑': [0xad, 603], '↓': [0xaf, 603], '↔': [0xab, 1042],
  '⇒': [0xde, 987], '∑': [0xe5, 713], '∏': [0xd5, 823], '√': [0xd6, 549], '∂': [0xb6, 494], '∈': [0xce, 713], '∉': [0xcf, 713], '∀': [0x22, 713], '∃': [0x24, 549], '∝': [0xb5, 713], '∩': [0xc7, 768],
  '∪': [0xc8, 768], '⊂': [0xcc, 713], '⊆': [0xcd, 713], '∅': [0xc6, 823], '∇': [0xd1, 713], '∫': [0xf2, 274], '′': [0xa2, 247], '″': [0xb2, 411], '⋅': [0xd7, 250], '−': [0x2d, 549], '∼': [0x7e, 549],
  '∧': [0xd9, 603], '∨': [0xda, 603], '¬': [0xd8, 713], '⊕': [0xc5, 768], '⊗': [0xc4, 768],
};

export type FontKey = 'F1' | 'F2' | 'F3';
export const FONT_NAMES: Record<FontKey, string> = { F1: 'Helvetica', F2: 'Helvetica-Bold', F3: 'Symbol' };

export interface TextRun {
  font: FontKey;
  /** Single-byte codes in the font's encoding. */
  codes: number[];
  /** Advance of the run at 1 unit font size. */
  width: number;
}

function latin(ch: string, bold: boolean): [number, number] | undefined {
  const cp = ch.codePointAt(0)!;
  const ascii = bold ? HELVETICA_BOLD_ASCII : HELVETICA_ASCII;
  if (cp >= 32 && cp <= 126) return [cp, ascii[cp - 32]!];
  if (cp === 0x2212) return undefined; // minus: Symbol's, which has the right width
  const code = cp >= 0xa0 && cp <= 0xff ? cp : WIN_ANSI_EXTRA[ch];
  if (code === undefined) return undefined;
  return [code, WIN_ANSI_WIDTH[code] ?? (code >= 0xc0 ? 611 : 556)];
}

/** Zero-width characters (plotly puts U+200B around sub- and superscripts): not drawn, no advance. */
const ZERO_WIDTH = new Set([0x200b, 0x200c, 0x200d, 0x2060, 0xfeff]);
/** Combining macron and overline (EU̅, ε̄): drawn as a bar over the character before them. */
const OVERBARS = new Set([0x304, 0x305]);

export interface TextLayout {
  runs: TextRun[];
  /** Bars over characters, as [start, end] advances at 1 unit font size. */
  overbars: [number, number][];
}

/** Splits text into runs per font; overbars from combining macrons/overlines; other combining marks are dropped. */
export function layoutText(text: string, bold: boolean, unsupported?: Set<string>): TextLayout {
  const runs: TextRun[] = [];
  const overbars: [number, number][] = [];
  const base: FontKey = bold ? 'F2' : 'F1';
  let advance = 0;
  let previous: [number, number] | undefined;
  for (const ch of text.normalize('NFC')) {
    const cp = ch.codePointAt(0)!;
    if (ZERO_WIDTH.has(cp)) continue;
    if (cp >= 0x300 && cp <= 0x36f) {
      if (OVERBARS.has(cp) && previous) overbars.push(previous);
      else unsupported?.add(ch);
      continue;
    }
    let font: FontKey = base;
    let glyph = latin(ch === '\t' ? ' ' : ch, bold);
    if (!glyph) {
      const s = SYMBOL[ch];
      if (s) {
        font = 'F3';
        glyph = s;
      } else {
        unsupported?.add(ch);
        glyph = [0x3f, 556];
      }
    }
    const last = runs.at(-1);
    if (last && last.font === font) {
      last.codes.push(glyph[0]);
      last.width += glyph[1] / 1000;
    } else runs.push({ font, codes: [glyph[0]], width: glyph[1] / 1000 });
    previous = [advance, advance + glyph[1] / 1000];
    advance += glyph[1] / 1000;
  }
  return { runs, overbars };
}

export function textRuns(text: string, bold: boolean, unsupported?: Set<string>): TextRun[] {
  return layoutText(text, bold, unsupported).runs;
}
