/**
 * Downloads of a run's files with their reproducibility manifest. One click is one download
 * (issue 26 item 6: a second, separate manifest download was held back by Chrome's
 * multiple-downloads prompt): with "with manifest" on (the default, exportPrefs) the file and
 * `<file>.manifest.json` come as one stored `<file>.zip`; off, the file alone.
 *   - files the service writes (runs.export): the file and the manifest it returns;
 *   - tables and figure data the renderer writes (CSV, LaTeX of a table as shown): the run's
 *     manifest (runs.export 'manifest') with an `export` entry naming this file, its SHA-256 and size.
 * The manifest alone (format 'manifest') is one JSON file.
 */
import type { ApiInput } from '$contract';
import { zipStored } from '$core/format/zip';
import { api } from '../../api/client';
import { downloadBlob, downloadText } from '../../lib/download';
import { attempt } from '../../state/errors.svelte';
import { exportPrefs } from './exportPrefs.svelte';

export type RunExportFormat = ApiInput<'runs.export'>['format'];

export interface TextFile {
  name: string;
  text: string;
  mediaType: string;
}

function manifestName(fileName: string): string {
  return `${fileName}.manifest.json`;
}

async function sha256(text: string): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) return undefined;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** A file of runs.export and its manifest. Returns the file (undefined when the export failed). */
export async function downloadRunExport(runId: number, format: RunExportFormat, condition?: string): Promise<TextFile | undefined> {
  const out = await attempt('Export failed', () => api.call('runs.export', { runId, format, ...(condition ? { condition } : {}) }));
  if (!out) return undefined;
  if (format === 'manifest' || !exportPrefs.withManifest) downloadText(out.file.name, out.file.text, out.file.mediaType);
  else downloadBundle(out.file, `${JSON.stringify(out.manifest, null, 2)}\n`);
  return { name: out.file.name, text: out.file.text, mediaType: out.file.mediaType };
}

/** A file the renderer made from a run's metrics, with the run's manifest naming it. */
export async function downloadWithManifest(runId: number, file: TextFile, description: string): Promise<void> {
  if (!exportPrefs.withManifest) return downloadText(file.name, file.text, file.mediaType);
  const base = await attempt('Could not get the manifest; the file was saved alone', () => api.call('runs.export', { runId, format: 'manifest' }));
  if (!base) return downloadText(file.name, file.text, file.mediaType);
  const hash = await sha256(file.text);
  const manifest = {
    ...base.manifest,
    export: { file: file.name, ...(hash ? { sha256: hash } : {}), bytes: new TextEncoder().encode(file.text).length, content: description, writtenBy: 'Fairground renderer (the table or figure data as shown)' },
  };
  downloadBundle(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

/** One download: `<file>.zip` holding the file and `<file>.manifest.json`. */
function downloadBundle(file: TextFile, manifest: string): void {
  const enc = new TextEncoder();
  const zip = zipStored([
    { name: file.name, data: enc.encode(file.text) },
    { name: manifestName(file.name), data: enc.encode(manifest) },
  ]);
  downloadBlob(`${file.name}.zip`, new Blob([zip as BlobPart], { type: 'application/zip' }));
}

/** A safe file-name stem for a run: `<experiment>-run<id>`. */
export function runFileStem(experimentName: string, runId: number): string {
  return `${experimentName}-run${runId}`.replace(/[^A-Za-z0-9._-]+/g, '_');
}
