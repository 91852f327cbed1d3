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

/** RFC 4180 CSV of a header and rows (core/format/csv, the writer of the CLI and the services). */
export { csvTable as toCsv } from '$core/format/csv';
