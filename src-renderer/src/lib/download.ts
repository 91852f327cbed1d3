/** Save text or a data URL as a file (works in Electron and in the browser). */
export function downloadText(fileName: string, content: string, mediaType = 'text/plain'): void {
  downloadBlob(fileName, new Blob([content], { type: `${mediaType};charset=utf-8` }));
}

export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  downloadUrl(fileName, url);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function downloadUrl(fileName: string, url: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

/** RFC 4180 CSV of a header and rows. */
export function toCsv(header: string[], rows: (string | number | null | undefined)[][]): string {
  const field = (v: string | number | null | undefined): string => {
    if (v === null || v === undefined) return '';
    const s = String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [header, ...rows].map((r) => r.map(field).join(',')).join('\n') + '\n';
}
