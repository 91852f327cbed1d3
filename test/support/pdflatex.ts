/**
 * Compile a LaTeX fragment (an exported table) with plain pdflatex: article class plus the
 * packages the file says it requires, no inputenc/unicode setup. Debian's texlive-latex-base and
 * texlive-latex-recommended (booktabs) provide it; .ci/run installs them when pdflatex is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function pdflatexPath(): string {
  try {
    return execFileSync('sh', ['-c', 'command -v pdflatex'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error("pdflatex not found: install Debian's texlive-latex-base and texlive-latex-recommended (.ci/run does)");
  }
}

/**
 * Compiles; returns the log's warnings about missing characters, the widths (pt) of overfull
 * boxes and the log itself. `doc` sets the class options (e.g. `twocolumn`) and preamble lines. Packages named in the fragment's `%` comment lines (`% Requires \usepackage{booktabs}`)
 * are loaded too. Throws with the log's error lines on failure.
 */
export function compileLatex(
  fragment: string,
  packages: string[] = ['booktabs'],
  doc: { classOptions?: string; preamble?: string } = {},
): { missingCharacters: string[]; pdfBytes: number; overfullPt: number[]; log: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fg-tex-'));
  const named = fragment.split('\n').filter((l) => l.startsWith('%')).flatMap((l) => [...l.matchAll(/\\usepackage\{([A-Za-z0-9,-]+)\}/g)].flatMap((m) => m[1]!.split(',')));
  packages = [...new Set([...packages, ...named])];
  try {
    const source = `\\documentclass${doc.classOptions ? `[${doc.classOptions}]` : ''}{article}\n${packages.map((p) => `\\usepackage{${p}}\n`).join('')}${doc.preamble ?? ''}\\begin{document}\n${fragment}\n\\end{document}\n`;
    writeFileSync(join(dir, 'doc.tex'), source);
    const r = spawnSync(pdflatexPath(), ['-interaction=nonstopmode', '-halt-on-error', '-no-shell-escape', 'doc.tex'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    const log = readFileSync(join(dir, 'doc.log'), 'latin1');
    if (r.status !== 0) {
      const errors = log.split('\n').filter((l, i, all) => l.startsWith('!') || all[i - 1]?.startsWith('!'));
      throw new Error(`pdflatex failed (exit ${r.status}):\n${errors.join('\n')}\n--- source ---\n${fragment}`);
    }
    const overfullPt = [...log.matchAll(/Overfull \\hbox \(([0-9.]+)pt too wide\)/g)].map((m) => Number(m[1]));
    return { missingCharacters: log.split('\n').filter((l) => l.includes('Missing character')), pdfBytes: readFileSync(join(dir, 'doc.pdf')).length, overfullPt, log };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
