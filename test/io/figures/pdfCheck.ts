/**
 * Checks of a PDF file for the figure-export tests: the structure by hand (header, every xref
 * offset at its `N 0 obj`, startxref at the xref table, trailer) and, when Debian's poppler-utils
 * are installed, what poppler reads (pages, size, text, attachments, images).
 */
import { execFileSync, spawnSync } from 'node:child_process';

export interface PdfStructure {
  objects: number;
  /** Text of every object, by number. */
  bodies: Map<number, string>;
  trailer: string;
}

export function checkPdfStructure(bytes: Uint8Array): PdfStructure {
  const text = Buffer.from(bytes).toString('latin1');
  if (!text.startsWith('%PDF-1.')) throw new Error('no %PDF-1.x header');
  if (!/%%EOF\s*$/.test(text)) throw new Error('no %%EOF at the end');
  const start = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)?.[1]);
  if (!text.startsWith('xref', start)) throw new Error(`startxref ${start} does not point at the xref table`);
  const head = /^xref\s+0 (\d+)\s+/.exec(text.slice(start));
  if (!head) throw new Error('malformed xref table');
  const count = Number(head[1]);
  const rows = text.slice(start + head[0].length).split('\n').slice(0, count);
  if (rows[0] !== '0000000000 65535 f ') throw new Error(`bad first xref row '${rows[0]}'`);
  const bodies = new Map<number, string>();
  for (let n = 1; n < count; n++) {
    const m = /^(\d{10}) 00000 n $/.exec(rows[n] ?? '');
    if (!m) throw new Error(`bad xref row ${n}: '${rows[n]}'`);
    const off = Number(m[1]);
    if (!text.startsWith(`${n} 0 obj\n`, off)) throw new Error(`xref offset of object ${n} (${off}) is not at '${n} 0 obj'`);
    const end = text.indexOf('\nendobj\n', off);
    const body = text.slice(off + `${n} 0 obj\n`.length, end);
    const stream = /\/Length (\d+) >>\nstream\n/.exec(body);
    if (stream && !body.slice(stream.index + stream[0].length + Number(stream[1])).startsWith('\nendstream')) throw new Error(`object ${n}: /Length ${stream[1]} does not end at endstream`);
    bodies.set(n, body);
  }
  const trailer = text.slice(text.indexOf('trailer', start));
  if (!new RegExp(`/Size ${count}\\b`).test(trailer)) throw new Error('trailer /Size does not match the xref table');
  return { objects: count - 1, bodies, trailer };
}

export function hasPoppler(): boolean {
  return spawnSync('sh', ['-c', 'command -v pdfinfo && command -v pdftotext && command -v pdfdetach && command -v pdfimages'], { encoding: 'utf8' }).status === 0;
}

export function poppler(tool: string, args: string[]): string {
  return execFileSync(tool, args, { encoding: 'utf8' });
}
