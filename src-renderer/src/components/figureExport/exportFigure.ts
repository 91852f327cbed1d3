/**
 * A plotly figure's exports, each carrying its reproducibility manifest (issue 17 item 7):
 * SVG (manifest in <metadata>), PNG at 300 dpi (manifest in an iTXt chunk) and vector PDF (the
 * plotly SVG redrawn as PDF paths and text, manifest attached as an embedded file). The manifest is
 * the run's (or evaluation's) manifest when the figure has one, with an `export` entry naming this
 * file; a figure of no stored result carries a minimal one naming the figure and its data's hash.
 */
import Plotly from 'plotly.js-dist-min';
import { api } from '../../api/client';
import { downloadBlob } from '../../lib/download';
import { dataUrlBytes, dataUrlText, pngWithManifest, svgWithManifest } from './manifest';
import { svgToPdf } from './svgToPdf';

export type FigureFormat = 'svg' | 'png' | 'pdf';
export type ManifestSource = () => Promise<Record<string, unknown> | undefined>;

const MEDIA: Record<FigureFormat, string> = { svg: 'image/svg+xml', png: 'image/png', pdf: 'application/pdf' };

/** A run's manifest (runs.export 'manifest'), for figures of a run. */
export function runManifest(runId: number): ManifestSource {
  return async () => (await api.call('runs.export', { runId, format: 'manifest' })).manifest as Record<string, unknown>;
}

async function sha256(text: string): Promise<string | undefined> {
  if (!globalThis.crypto?.subtle) return undefined;
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export interface FigureExportInput {
  el: HTMLElement;
  fileName: string;
  title: string;
  width: number;
  height: number;
  data: unknown;
  manifest?: ManifestSource | undefined;
}

/** The manifest JSON a figure file carries. */
export async function figureManifest(input: FigureExportInput, format: FigureFormat): Promise<string> {
  const base = (await input.manifest?.()) ?? { kind: 'fairground-figure', note: 'this figure is not tied to a stored run; the manifest names the figure and the hash of its plotted data' };
  const dataHash = await sha256(JSON.stringify(input.data));
  const manifest = {
    ...base,
    export: {
      file: `${input.fileName}.${format}`,
      format: format === 'pdf' ? 'PDF (vector: paths and text)' : format === 'svg' ? 'SVG (vector)' : 'PNG, 300 dpi',
      content: `the figure as shown: ${input.title}`,
      size: { widthPx: input.width, heightPx: input.height, inches: [input.width / 96, input.height / 96] },
      ...(dataHash ? { plottedDataSha256: dataHash } : {}),
      exportedAt: new Date().toISOString(),
      writtenBy: 'Fairground renderer (plotly.js figure)',
    },
  };
  return JSON.stringify(manifest, null, 2);
}

/** Renders the figure in `format` with its manifest inside; returns the file's name and bytes. */
export async function renderFigure(input: FigureExportInput, format: FigureFormat): Promise<{ name: string; bytes: Uint8Array; mediaType: string; unsupported: string[] }> {
  const json = await figureManifest(input, format);
  const name = `${input.fileName}.${format}`;
  let bytes: Uint8Array;
  let unsupported: string[] = [];
  if (format === 'png') {
    const url = await Plotly.toImage(input.el, { format: 'png', width: input.width, height: input.height, scale: 300 / 96 });
    bytes = pngWithManifest(dataUrlBytes(url), json);
  } else {
    const svg = dataUrlText(await Plotly.toImage(input.el, { format: 'svg', width: input.width, height: input.height, scale: 1 }));
    if (format === 'svg') bytes = new TextEncoder().encode(svgWithManifest(svg, json));
    else {
      const pdf = svgToPdf(svg, { title: input.title, manifest: { fileName: `${input.fileName}.manifest.json`, json } });
      bytes = pdf.pdf;
      unsupported = pdf.unsupported;
    }
  }
  return { name, bytes, mediaType: MEDIA[format], unsupported };
}

export async function downloadFigure(input: FigureExportInput, format: FigureFormat): Promise<{ unsupported: string[] }> {
  const file = await renderFigure(input, format);
  downloadBlob(file.name, new Blob([file.bytes as BlobPart], { type: file.mediaType }));
  return { unsupported: file.unsupported };
}
