/**
 * Downloads of a run's files, each with its reproducibility manifest beside it:
 *   - files the service writes (runs.export): the file and the manifest it returns;
 *   - tables and figure data the renderer writes (CSV, LaTeX of a table as shown): the run's
 *     manifest (runs.export 'manifest') with an `export` entry naming this file, its SHA-256 and size.
 */
import type { ApiInput } from '$contract';
import { api } from '../../api/client';
import { downloadText } from '../../lib/download';
import { attempt } from '../../state/errors.svelte';

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
  downloadText(out.file.name, out.file.text, out.file.mediaType);
  if (format !== 'manifest') downloadText(manifestName(out.file.name), `${JSON.stringify(out.manifest, null, 2)}\n`, 'application/json');
  return { name: out.file.name, text: out.file.text, mediaType: out.file.mediaType };
}

/** A file the renderer made from a run's metrics, with the run's manifest naming it. */
export async function downloadWithManifest(runId: number, file: TextFile, description: string): Promise<void> {
  downloadText(file.name, file.text, file.mediaType);
  const base = await attempt('Could not get the manifest', () => api.call('runs.export', { runId, format: 'manifest' }));
  if (!base) return;
  const hash = await sha256(file.text);
  const manifest = {
    ...base.manifest,
    export: { file: file.name, ...(hash ? { sha256: hash } : {}), bytes: new TextEncoder().encode(file.text).length, content: description, writtenBy: 'Fairground renderer (the table or figure data as shown)' },
  };
  downloadText(manifestName(file.name), `${JSON.stringify(manifest, null, 2)}\n`, 'application/json');
}

/** A safe file-name stem for a run: `<experiment>-run<id>`. */
export function runFileStem(experimentName: string, runId: number): string {
  return `${experimentName}-run${runId}`.replace(/[^A-Za-z0-9._-]+/g, '_');
}
