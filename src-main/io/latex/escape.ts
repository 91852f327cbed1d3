/**
 * Escaping of plain text for LaTeX text mode: the ten special characters of the LaTeX book
 * (Lamport, §2.2.1 / The LaTeX Companion) become commands that print them literally, so system
 * names such as `bm25_k1=0.9 & rm3 (10%)` typeset as written.
 */
const REPLACEMENTS: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  $: '\\$',
  '&': '\\&',
  '#': '\\#',
  '%': '\\%',
  _: '\\_',
  '^': '\\textasciicircum{}',
  '~': '\\textasciitilde{}',
};

export function escapeLatex(text: string): string {
  // One pass, so the braces produced for `\` are not escaped again.
  return text.replace(/[\\{}$&#%_^~]/g, (c) => REPLACEMENTS[c] as string);
}
