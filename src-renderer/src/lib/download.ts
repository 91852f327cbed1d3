/** Save text or a data URL as a file (works in Electron and in the browser). */
import { zipStored } from '$core/format/zip';

export interface NamedText {
  fileName: string;
  content: string;
  mediaType: string;
}

/**
 * Several files of one export (a file and its manifest) as one download (issue 26 item 6: a
 * second download is held back by Chrome's multiple-downloads prompt): one file as itself, more as
 * one stored `<first file>.zip`.
 */
export function downloadFiles(files: readonly NamedText[]): void {
  if (files.length === 0) return;
  if (files.length === 1) return downloadText(files[0]!.fileName, files[0]!.content, files[0]!.mediaType);
  const enc = new TextEncoder();
  const zip = zipStored(files.map((f) => ({ name: f.fileName, data: enc.encode(f.content) })));
  downloadBlob(`${files[0]!.fileName}.zip`, new Blob([zip as BlobPart], { type: 'application/zip' }));
}
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
